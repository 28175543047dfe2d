import * as Boom from '@hapi/boom';
import type { Knex } from 'knex';

import { newSecret, publicPrefix } from '../../../lib/api-key-token';
import { sha256Hex } from '../../../lib/crypto';
import type { Lists, PageRequest } from '../../../lib/lists';
import type { Outbox } from '../../../lib/notifications/outbox';
import type { Page } from '../../../lib/pagination';
import { recordSecurityEvent, type RequestOrigin } from '../../../lib/security-events';
import { toIso } from '../../../lib/time';
import { ApiKey } from '../models/api-key';

// What a key has beyond the spec's seven fields, on session-only routes: a roll (a new secret for the same key, the
// old one kept for an overlap), its policy (the address allow-list and the current overlap) and its health.
const DAY_MS = 24 * 3600_000;
export const MAX_OVERLAP_SECONDS = 30 * 24 * 3600;
export const UNUSED_DAYS = 90;
export const SCOPE_WINDOW_DAYS = 30;

export interface Policy {
    keyId: string;
    allowedCidrs: string[];                                     // empty: any address
    overlap: { rolledAt: string; previousTokenExpiresAt: string } | null;
}

export interface Warning {
    code: 'no_expiry' | 'unused' | 'unused_scopes';
    message: string;
    scopes?: string[];
}

export interface Health {
    id: string;
    name: string;
    prefix: string;
    createdAt: string;
    expiresAt: string | null;
    lastUsedAt: string | null;
    lastUsedIp: string | null;
    warnings: Warning[];
}

export class KeyExtrasService {
    constructor(private readonly knex: Knex, private readonly lists: Lists, private readonly outbox: Outbox, private readonly clock: () => number) { }

    /**
     * A new secret for the same key (id, name, prefix, scopes, expiry). The replaced secret keeps working for
     * `overlapSeconds` (0: not at all); rolling again ends an overlap still running, as its secret is replaced in turn.
     * Two rolls at once: the second is refused rather than leaving the first one's token dead.
     */
    async roll(userId: string, id: string, overlapSeconds: number, origin: RequestOrigin): Promise<{ token: string; apiKey: ApiKey; previousTokenExpiresAt: string | null }> {
        return this.knex.transaction(async (trx) => {
            const key = await this.live(trx, userId, id);
            const now = this.clock();
            if (key.expiresAt && Date.parse(key.expiresAt) <= now) {
                throw Boom.conflict(`The key expired at ${key.expiresAt}: a roll keeps the expiry, so create a new key instead`);
            }

            const next = newSecret(key.prefix);
            const previousTokenExpiresAt = overlapSeconds > 0 ? toIso(now + overlapSeconds * 1000) : null;
            const changed = await ApiKey.query(trx).patch({
                secretHash: sha256Hex(next.secret),
                previousSecretHash: previousTokenExpiresAt ? key.secretHash : null,
                previousExpiresAt: previousTokenExpiresAt,
                previousNotifiedAt: null,
                rolledAt: toIso(now)
            }).where({ id, secret_hash: key.secretHash });
            if (!changed) {
                throw Boom.conflict('The key was rolled by another request at the same moment: roll it again if you need this one\'s token');
            }

            const described = { name: key.name, prefix: publicPrefix(key.prefix) };
            await recordSecurityEvent(trx, { type: 'api_key.rolled', userId, actor: userId, credentialId: id, ip: origin.ip, data: { ...described, overlapSeconds, previousTokenExpiresAt } });
            await this.outbox.send(trx, {
                type: 'security.api_key_rolled', userId,
                data: {
                    ...described, rolledAt: toIso(now), ip: origin.ip ?? 'an unknown address',
                    overlap: previousTokenExpiresAt ? `keeps working until ${previousTokenExpiresAt}; every use of it until then is in your security trail.` : 'stopped working at once.'
                }
            });
            return { token: next.token, apiKey: (await ApiKey.query(trx).findById(id))!, previousTokenExpiresAt };
        });
    }

    async policy(userId: string, id: string): Promise<Policy> {
        return this.describePolicy(await this.live(this.knex, userId, id));
    }

    /** Sets the allow-list (canonical ranges; empty: any address) and/or ends the overlap now (`overlap: null`). */
    async updatePolicy(userId: string, id: string, changes: { allowedCidrs?: string[]; overlap?: null }, origin: RequestOrigin): Promise<Policy> {
        return this.knex.transaction(async (trx) => {
            const key = await this.live(trx, userId, id);
            const patch: Partial<ApiKey> = {};
            if (changes.allowedCidrs) {
                patch.allowedCidrs = changes.allowedCidrs.length ? JSON.stringify(changes.allowedCidrs) : null;
            }

            const endsOverlap = changes.overlap === null && this.describePolicy(key).overlap !== null;
            if (changes.overlap === null) {
                Object.assign(patch, { previousSecretHash: null, previousExpiresAt: null });
            }

            await ApiKey.query(trx).patch(patch).where({ id });
            const updated = (await ApiKey.query(trx).findById(id))!;
            const policy = this.describePolicy(updated);
            await recordSecurityEvent(trx, {
                type: 'api_key.policy_changed', userId, actor: userId, credentialId: id, ip: origin.ip,
                data: { name: key.name, prefix: publicPrefix(key.prefix), allowedCidrs: policy.allowedCidrs, overlapEnded: endsOverlap }
            });
            return policy;
        });
    }

    /** A page of the user's live keys, each with the address of its last use and what looks wrong with it. */
    async health(userId: string, page: PageRequest): Promise<Page<Health>> {
        const now = this.clock();
        return this.lists.page({ table: 'api_keys', scope: { user_id: userId }, where: 'revoked_at IS NULL', load: (row) => this.describeHealth(ApiKey.fromDatabaseJson(row), now) }, page);
    }

    private async live(db: Knex | Knex.Transaction, userId: string, id: string): Promise<ApiKey> {
        const key = await ApiKey.query(db).findOne({ id, user_id: userId }).whereNull('revoked_at');
        if (!key) {
            throw Boom.notFound('API key not found');
        }

        return key;
    }

    private describePolicy(key: ApiKey): Policy {
        const overlapping = key.previousSecretHash && key.previousExpiresAt && Date.parse(key.previousExpiresAt) > this.clock();
        return {
            keyId: key.id,
            allowedCidrs: key.allowedCidrs ? JSON.parse(key.allowedCidrs) as string[] : [],
            overlap: overlapping ? { rolledAt: key.rolledAt!, previousTokenExpiresAt: key.previousExpiresAt! } : null
        };
    }

    // Warnings: no expiry; not used for 90 days (keys at least that old); scopes not exercised in the last 30 days
    // (keys at least that old). A scope is exercised by a request the key was allowed to make with it.
    private describeHealth(key: ApiKey, now: number): Health {
        const age = now - Date.parse(key.createdAt);
        const warnings: Warning[] = [];
        if (!key.expiresAt) {
            warnings.push({ code: 'no_expiry', message: 'The key never expires: give new keys an expiry, and roll long-lived ones regularly.' });
        }

        if (age >= UNUSED_DAYS * DAY_MS && (!key.lastUsedAt || Date.parse(key.lastUsedAt) <= now - UNUSED_DAYS * DAY_MS)) {
            warnings.push({ code: 'unused', message: `The key has not been used for ${UNUSED_DAYS} days: revoke it if nothing needs it.` });
        }

        if (age >= SCOPE_WINDOW_DAYS * DAY_MS) {
            const uses = key.scopeUses ? JSON.parse(key.scopeUses) as Record<string, string> : {};
            const since = toIso(now - SCOPE_WINDOW_DAYS * DAY_MS).slice(0, 10);
            const idle = key.scopes.filter((scope) => !uses[scope] || uses[scope] < since);
            if (idle.length) {
                warnings.push({
                    code: 'unused_scopes', scopes: idle,
                    message: `The key has not used ${idle.length === 1 ? 'this scope' : 'these scopes'} in ${SCOPE_WINDOW_DAYS} days: ${idle.join(', ')}. A key with fewer scopes does less harm if it leaks.`
                });
            }
        }

        return {
            id: key.id, name: key.name, prefix: publicPrefix(key.prefix), createdAt: key.createdAt, expiresAt: key.expiresAt,
            lastUsedAt: key.lastUsedAt, lastUsedIp: key.lastUsedIp ?? null, warnings
        };
    }
}
