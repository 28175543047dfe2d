import * as Boom from '@hapi/boom';

import { randomBase62 } from '../../../lib/base62';
import { isUniqueViolation } from '../../../lib/db/errors';
import { newId } from '../../../lib/ids';
import { nowIso } from '../../../lib/time';
import { AppDomain, type App } from '../models/app';
import type { AppsContext } from './context';

// Custom domains: a hostname is claimed once on the platform and proven by a TXT record at
// `_hostless-challenge.<hostname>`, which a job looks for with growing delays until it appears.
export const VERIFY_JOB = 'domains.verify';
const CHALLENGE = '_hostless-challenge';

export class DomainsService {
    constructor(private readonly context: AppsContext) { }

    async list(app: App): Promise<AppDomain[]> {
        return await AppDomain.query(this.context.knex).where({ app_id: app.id }).orderBy('created_at', 'desc').orderBy('id', 'desc');
    }

    async add(app: App, hostname: string): Promise<AppDomain> {
        try {
            return await this.context.knex.transaction(async (trx) => {
                const domain = await AppDomain.query(trx).insertAndFetch({
                    id: newId('dom'), appId: app.id, projectId: app.projectId, hostname, status: 'pending',
                    verificationToken: `hostless-verify=${randomBase62(32)}`, verifiedAt: null, checkedAt: null, lastError: null, createdAt: nowIso()
                });
                await this.context.queue.enqueue(VERIFY_JOB, { domainId: domain.id }, { trx, maxAttempts: 12 });
                return domain;
            });
        }
        catch (err) {
            throw isUniqueViolation(err) ? Boom.conflict(`${hostname} is already attached to an app`) : err;
        }
    }

    async remove(app: App, hostname: string): Promise<void> {
        const deleted = await AppDomain.query(this.context.knex).delete().where({ app_id: app.id, hostname });
        if (!deleted) {
            throw Boom.notFound(`${hostname} is not a custom domain of ${app.name}`);
        }
    }

    /** The job: looks for the TXT record; throws (and so is retried later) until it is there. */
    async verify(domainId: string): Promise<void> {
        const domain = await AppDomain.query(this.context.knex).findById(domainId);
        if (!domain || domain.status === 'verified') {
            return;
        }

        const found = await this.context.dns.txt(`${CHALLENGE}.${domain.hostname}`).catch((err: Error) => {
            throw new Error(`DNS lookup failed: ${err.message}`);
        });
        const now = nowIso();
        if (found.includes(domain.verificationToken)) {
            await AppDomain.query(this.context.knex).patch({ status: 'verified', verifiedAt: now, checkedAt: now, lastError: null }).where({ id: domainId });
            return;
        }

        const lastError = `No TXT record ${domain.verificationToken} at ${CHALLENGE}.${domain.hostname} yet`;
        await AppDomain.query(this.context.knex).patch({ checkedAt: now, lastError }).where({ id: domainId });
        throw new Error(lastError);
    }
}

export function publicDomain(domain: AppDomain) {
    return {
        id: domain.id,
        domain: domain.hostname,
        status: domain.status,
        verification: { type: 'TXT', name: `${CHALLENGE}.${domain.hostname}`, value: domain.verificationToken },
        verifiedAt: domain.verifiedAt,
        checkedAt: domain.checkedAt,
        lastError: domain.lastError,
        createdAt: domain.createdAt
    };
}
