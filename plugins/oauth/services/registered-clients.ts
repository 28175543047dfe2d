import * as Boom from '@hapi/boom';
import type { Knex } from 'knex';

import { randomBase62 } from '../../../lib/base62';
import { sha256Hex } from '../../../lib/crypto';
import { newId } from '../../../lib/ids';
import type { Lists, PageRequest } from '../../../lib/lists';
import type { Page } from '../../../lib/pagination';
import { recordSecurityEvent, type RequestOrigin } from '../../../lib/security-events';
import { nowIso } from '../../../lib/time';
import { RegisteredClient } from '../models/client';
import type { GrantsService } from './grants';

// A user's confidential clients for custom connectors: `svoc_` ids, a secret shown once (only its SHA-256 kept), and
// redirect URIs matched exactly. Deleting one revokes every grant made through it, in the same transaction.
export const MAX_CLIENTS = 20;
const SECRET_PREFIX = 'svos_';

export class RegisteredClientsService {
    constructor(private readonly knex: Knex, private readonly lists: Lists, private readonly grants: GrantsService) { }

    async create(userId: string, input: { name: string; redirectUris: string[] }, origin: RequestOrigin): Promise<{ client: RegisteredClient; secret: string }> {
        const secret = SECRET_PREFIX + randomBase62(43);
        const client = await this.knex.transaction(async (trx) => {
            const count = await RegisteredClient.query(trx).where({ user_id: userId }).resultSize();
            if (count >= MAX_CLIENTS) {
                throw Boom.conflict(`An account holds at most ${MAX_CLIENTS} OAuth clients; delete one first`);
            }

            const created = await RegisteredClient.query(trx).insertAndFetch({
                id: newId('svoc'), userId, name: input.name, secretHash: sha256Hex(secret), redirectUris: input.redirectUris, createdAt: nowIso()
            });
            await recordSecurityEvent(trx, {
                type: 'oauth_client.created', userId, actor: userId, credentialId: created.id, ip: origin.ip,
                data: { name: created.name, redirectUris: created.redirectUris }
            });
            return created;
        });

        return { client, secret };
    }

    async list(userId: string, page: PageRequest): Promise<Page<RegisteredClient>> {
        return this.lists.page({ table: 'oauth_clients', scope: { user_id: userId }, load: (row) => RegisteredClient.fromDatabaseJson(row) }, page);
    }

    /** Unknown and foreign clients are the same 404. */
    async remove(userId: string, id: string, origin: RequestOrigin): Promise<RegisteredClient> {
        return this.knex.transaction(async (trx) => {
            const client = await RegisteredClient.query(trx).findOne({ id, user_id: userId });
            if (!client) {
                throw Boom.notFound('OAuth client not found');
            }

            await RegisteredClient.query(trx).deleteById(id);
            await this.grants.revokeAllOfClient(trx, id, origin);
            await recordSecurityEvent(trx, { type: 'oauth_client.deleted', userId, actor: userId, credentialId: id, ip: origin.ip, data: { name: client.name } });
            return client;
        });
    }
}
