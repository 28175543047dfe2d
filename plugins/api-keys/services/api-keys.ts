import * as Boom from '@hapi/boom';
import type { Knex } from 'knex';

import { generateApiKey, publicPrefix } from '../../../lib/api-key-token';
import { sha256Hex } from '../../../lib/crypto';
import { newId } from '../../../lib/ids';
import type { Lists, PageRequest } from '../../../lib/lists';
import type { Outbox } from '../../../lib/notifications/outbox';
import type { Page } from '../../../lib/pagination';
import type { Scope } from '../../../lib/scopes';
import { recordSecurityEvent, type RequestOrigin } from '../../../lib/security-events';
import { nowIso, toIso } from '../../../lib/time';
import { ApiKey } from '../models/api-key';

export const MAX_ACTIVE_KEYS = 100;
const DAY_MS = 24 * 3600_000;

export interface ApiKeysOptions {
    maxLifetimeDays: number | null;                             // API_KEY_MAX_LIFETIME_DAYS
    clock: () => number;
}

export class ApiKeysService {
    constructor(private readonly knex: Knex, private readonly lists: Lists, private readonly outbox: Outbox, private readonly options: ApiKeysOptions) { }

    async create(userId: string, input: { name: string; scopes: Scope[]; expiresAt?: Date | null }, origin: RequestOrigin): Promise<{ token: string; apiKey: ApiKey }> {
        this.checkLifetime(input.expiresAt ?? null);
        const { token, prefix, secret } = generateApiKey();
        const apiKey = await this.knex.transaction(async (trx) => {
            const active = await ApiKey.query(trx).where({ user_id: userId }).whereNull('revoked_at').resultSize();
            if (active >= MAX_ACTIVE_KEYS) {
                throw Boom.conflict(`An account holds at most ${MAX_ACTIVE_KEYS} API keys; revoke one first`);
            }

            const key = await ApiKey.query(trx).insertAndFetch({
                id: newId('key'),
                userId,
                name: input.name,
                prefix,
                secretHash: sha256Hex(secret),
                scopes: input.scopes,
                expiresAt: input.expiresAt ? toIso(input.expiresAt) : null,
                lastUsedAt: null,
                revokedAt: null,
                createdAt: nowIso()
            });
            const described = { name: key.name, prefix: publicPrefix(key.prefix), scopes: key.scopes };
            await recordSecurityEvent(trx, { type: 'api_key.created', userId, actor: userId, credentialId: key.id, ip: origin.ip, data: { ...described, expiresAt: key.expiresAt } });
            await this.outbox.send(trx, {
                type: 'security.api_key_created', userId,
                data: { ...described, expiresAt: key.expiresAt ?? 'never', createdAt: key.createdAt, ip: origin.ip ?? 'an unknown address' }
            });
            return key;
        });

        return { token, apiKey };
    }

    /** Live and expired keys, newest first; revoked keys vanish from the list. */
    async list(userId: string, page: PageRequest): Promise<Page<ApiKey>> {
        return this.lists.page({ table: 'api_keys', scope: { user_id: userId }, where: 'revoked_at IS NULL', load: (row) => ApiKey.fromDatabaseJson(row) }, page);
    }

    /** Unknown, foreign and already revoked keys are all 404: one atomic update decides. */
    async revoke(userId: string, id: string, origin: RequestOrigin): Promise<ApiKey> {
        return this.knex.transaction(async (trx) => {
            const revoked = await ApiKey.query(trx).patch({ revokedAt: nowIso(), revokedReason: 'user' }).where({ id, user_id: userId }).whereNull('revoked_at');
            if (!revoked) {
                throw Boom.notFound('API key not found');
            }

            const key = (await ApiKey.query(trx).findById(id))!;
            await recordSecurityEvent(trx, { type: 'api_key.revoked', userId, actor: userId, credentialId: id, ip: origin.ip, data: { name: key.name, prefix: publicPrefix(key.prefix) } });
            return key;
        });
    }

    // API_KEY_MAX_LIFETIME_DAYS: a new key must expire, and no later than the cap.
    private checkLifetime(expiresAt: Date | null): void {
        const days = this.options.maxLifetimeDays;
        if (days === null) {
            return;
        }

        const latest = this.options.clock() + days * DAY_MS;
        if (!expiresAt) {
            throw Boom.badRequest(`"expiresAt" is required: API keys on this deployment expire within ${days} day${days === 1 ? '' : 's'} (API_KEY_MAX_LIFETIME_DAYS)`);
        }

        if (expiresAt.getTime() > latest) {
            throw Boom.badRequest(`"expiresAt" must be at most ${days} day${days === 1 ? '' : 's'} from now (API_KEY_MAX_LIFETIME_DAYS), no later than ${toIso(latest)}`);
        }
    }
}
