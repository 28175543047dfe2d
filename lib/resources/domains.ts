import * as Boom from '@hapi/boom';
import type { Knex } from 'knex';

import { randomBase62 } from '../base62';
import { isUniqueViolation } from '../db/errors';
import { newId } from '../ids';
import type { DnsProbe } from '../outside/dns-probe';
import type { JobQueue } from '../queue/types';
import type { ResourceRef } from './model';

// Custom domains of any resource, keyed by (resource_type, resource_id). A claim is proven by a TXT record at
// `_hostless-challenge.<hostname>`, which a job looks for with growing delays. A hostname is held by at most one
// verified claim on the platform; a pending claim blocks nobody and expires after PENDING_DAYS, so no one can
// squat a name they cannot prove. Refusals never say who holds a name.
export const VERIFY_JOB = 'domains.verify';
export const PENDING_DAYS = 7;
const CHALLENGE = '_hostless-challenge';
const DAY_MS = 86_400_000;

export type DomainStatus = 'pending' | 'verified' | 'expired';

interface DomainRow {
    id: string;
    resource_type: string;
    resource_id: string;
    project_id: string;
    hostname: string;
    status: DomainStatus;
    verification_token: string;
    verified_at: string | null;
    checked_at: string | null;
    last_error: string | null;
    expires_at: string | null;
    created_at: string;
}

export class Domains {
    constructor(private readonly knex: Knex, private readonly queue: JobQueue, private readonly dns: DnsProbe, private readonly clock: () => number = Date.now) { }

    async list(resource: ResourceRef) {
        const rows = await this.knex<DomainRow>('domains').where({ resource_id: resource.id, resource_type: resource.type })
            .orderBy('created_at', 'desc').orderBy('id', 'desc');
        return rows.map((row) => this.view(row));
    }

    async add(resource: ResourceRef, hostname: string) {
        try {
            return await this.knex.transaction(async (trx) => {
                const held = await trx<DomainRow>('domains').where({ hostname, status: 'verified' }).first('resource_id');
                const own = await trx('domains').where({ resource_id: resource.id, hostname }).first<DomainRow | undefined>();
                if (own && this.status(own) !== 'expired') {
                    throw Boom.conflict(`${hostname} is already a custom domain of ${resource.name}`);
                }

                if (held) {
                    throw Boom.conflict(`${hostname} cannot be added: it is already verified for a resource on this platform`);
                }

                if (own) {
                    await trx('domains').where({ id: own.id }).delete();
                }

                const now = this.clock();
                const row: DomainRow = {
                    id: newId('dom'), resource_type: resource.type, resource_id: resource.id, project_id: resource.projectId, hostname, status: 'pending',
                    verification_token: `hostless-verify=${randomBase62(32)}`, verified_at: null, checked_at: null, last_error: null,
                    expires_at: new Date(now + PENDING_DAYS * DAY_MS).toISOString(), created_at: new Date(now).toISOString()
                };
                await trx('domains').insert(row);
                await this.queue.enqueue(VERIFY_JOB, { domainId: row.id }, { trx, maxAttempts: 12 });
                return this.view(row);
            });
        }
        catch (err) {
            throw isUniqueViolation(err) ? Boom.conflict(`${hostname} is already a custom domain of ${resource.name}`) : err;
        }
    }

    async remove(resource: ResourceRef, hostname: string): Promise<void> {
        const deleted = await this.knex('domains').where({ resource_id: resource.id, resource_type: resource.type, hostname }).delete();
        if (!deleted) {
            throw Boom.notFound(`${hostname} is not a custom domain of ${resource.name}`);
        }
    }

    /** The hostnames that route to a resource: its verified claims. */
    async verifiedHostnames(resourceId: string): Promise<string[]> {
        return this.knex('domains').where({ resource_id: resourceId, status: 'verified' }).orderBy('hostname').pluck('hostname');
    }

    /** The job: looks for the TXT record; throws (and so is retried later) until it is there or the claim ends. */
    async verify(domainId: string): Promise<void> {
        const domain = await this.knex<DomainRow>('domains').where({ id: domainId }).first();
        if (!domain || domain.status !== 'pending') {
            return;
        }

        const now = new Date(this.clock()).toISOString();
        if (this.status(domain) === 'expired') {
            await this.knex('domains').where({ id: domainId, status: 'pending' }).update({ status: 'expired', checked_at: now });
            return;
        }

        if (await this.knex('domains').where({ hostname: domain.hostname, status: 'verified' }).first('id')) {
            await this.knex('domains').where({ id: domainId }).update({ checked_at: now, last_error: `${domain.hostname} was verified for another resource first` });
            return;
        }

        const found = await this.dns.txt(`${CHALLENGE}.${domain.hostname}`).catch((err: Error) => {
            throw new Error(`DNS lookup failed: ${err.message}`);
        });
        if (found.includes(domain.verification_token)) {
            try {
                await this.knex('domains').where({ id: domainId, status: 'pending' }).update({ status: 'verified', verified_at: now, checked_at: now, last_error: null, expires_at: null });
            }
            catch (err) {
                if (!isUniqueViolation(err)) {
                    throw err;
                }

                await this.knex('domains').where({ id: domainId }).update({ checked_at: now, last_error: `${domain.hostname} was verified for another resource first` });
            }

            return;
        }

        const lastError = `No TXT record ${domain.verification_token} at ${CHALLENGE}.${domain.hostname} yet`;
        await this.knex('domains').where({ id: domainId }).update({ checked_at: now, last_error: lastError });
        throw new Error(lastError);
    }

    private status(row: DomainRow): DomainStatus {
        return row.status === 'pending' && row.expires_at && Date.parse(row.expires_at) <= this.clock() ? 'expired' : row.status;
    }

    private view(row: DomainRow) {
        const status = this.status(row);
        return {
            id: row.id,
            domain: row.hostname,
            status,
            verification: { type: 'TXT', name: `${CHALLENGE}.${row.hostname}`, value: row.verification_token },
            verifiedAt: row.verified_at,
            checkedAt: row.checked_at,
            lastError: row.last_error,
            expiresAt: status === 'pending' ? row.expires_at : null,
            createdAt: row.created_at
        };
    }
}
