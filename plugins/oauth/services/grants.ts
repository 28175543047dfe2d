import * as Boom from '@hapi/boom';
import type { Knex } from 'knex';

import { newId } from '../../../lib/ids';
import type { Lists, PageRequest } from '../../../lib/lists';
import type { Page } from '../../../lib/pagination';
import { recordSecurityEvent, type RequestOrigin } from '../../../lib/security-events';
import { nowIso } from '../../../lib/time';
import { Grant, type GrantRevocation } from '../models/grant';
import type { Authorization } from '../models/authorization';

// Connected AI apps: a grant is made when a code is exchanged, and revoked by the user, by deleting its client, or by
// the server when a code or refresh token comes back a second time. Both go to the user's security trail. Access
// tokens name their grant; the access pipeline reads it on every request, so a revocation holds at the next one.

export interface ConnectedApp {
    grant: Grant;
    projects: Array<{ id: string; name: string | null }> | null;
}

export class GrantsService {
    constructor(private readonly knex: Knex, private readonly lists: Lists) { }

    /** The grant of an allowed authorization, named as the consent screen named its client. */
    async create(trx: Knex.Transaction, authorization: Authorization, userId: string, origin: RequestOrigin): Promise<Grant> {
        const grant = await Grant.query(trx).insertAndFetch({
            id: newId('ogr'), userId, clientId: authorization.clientId, clientName: authorization.clientName, clientKind: authorization.clientKind,
            scopes: authorization.scopes, projects: authorization.projects, resource: authorization.resource, createdAt: nowIso(), lastUsedAt: null, revokedAt: null, revokedReason: null
        });
        await recordSecurityEvent(trx, {
            type: 'oauth_grant.created', userId: grant.userId, actor: grant.userId, credentialId: grant.id, ip: origin.ip,
            data: { client: grant.clientName, clientId: grant.clientId.slice(0, 200), scopes: grant.scopes, projects: grant.projects ?? 'all' }
        });
        return grant;
    }

    /** Revokes a live grant and records it; false when it was already revoked. */
    async revoke(trx: Knex.Transaction, grantId: string, reason: GrantRevocation, origin: RequestOrigin): Promise<boolean> {
        const revoked = await Grant.query(trx).patch({ revokedAt: nowIso(), revokedReason: reason }).where({ id: grantId }).whereNull('revoked_at');
        if (revoked) {
            const grant = (await Grant.query(trx).findById(grantId))!;
            await recordSecurityEvent(trx, {
                type: 'oauth_grant.revoked', userId: grant.userId, actor: reason === 'user' || reason === 'client_deleted' ? grant.userId : 'oauth-server',
                credentialId: grantId, ip: origin.ip, data: { client: grant.clientName, reason }
            });
        }

        return revoked > 0;
    }

    async revokeAllOfClient(trx: Knex.Transaction, clientId: string, origin: RequestOrigin): Promise<void> {
        for (const { id } of await Grant.query(trx).select('id').where({ client_id: clientId }).whereNull('revoked_at')) {
            await this.revoke(trx, id, 'client_deleted', origin);
        }
    }

    /** The user's live grants, newest first, with the names of the projects they are pinned to. */
    async list(userId: string, page: PageRequest): Promise<Page<ConnectedApp>> {
        const { items, next } = await this.lists.page({ table: 'oauth_grants', scope: { user_id: userId }, where: 'revoked_at IS NULL', load: (row) => Grant.fromDatabaseJson(row) }, page);
        return { items: await this.named(items), next };
    }

    /** Unknown, foreign and already revoked grants are the same 404. */
    async revokeByUser(userId: string, grantId: string, origin: RequestOrigin): Promise<ConnectedApp> {
        const grant = await this.knex.transaction(async (trx) => {
            const found = await Grant.query(trx).findOne({ id: grantId, user_id: userId });
            if (!found || !await this.revoke(trx, grantId, 'user', origin)) {
                throw Boom.notFound('Connected app not found');
            }

            return (await Grant.query(trx).findById(grantId))!;
        });
        return (await this.named([grant]))[0];
    }

    private async named(grants: Grant[]): Promise<ConnectedApp[]> {
        const ids = [...new Set(grants.flatMap((grant) => grant.projects ?? []))];
        const rows: Array<{ id: string; name: string }> = ids.length ? await this.knex('projects').whereIn('id', ids).select('id', 'name') : [];
        const names = new Map(rows.map((row) => [row.id, row.name]));
        return grants.map((grant) => ({ grant, projects: grant.projects?.map((id) => ({ id, name: names.get(id) ?? null })) ?? null }));
    }
}
