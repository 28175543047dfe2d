import * as Boom from '@hapi/boom';
import type { Knex } from 'knex';

import { randomBase62 } from '../../../lib/base62';
import { sha256Hex } from '../../../lib/crypto';
import { newId } from '../../../lib/ids';
import { User } from '../../../lib/models/user';
import type { Outbox } from '../../../lib/notifications/outbox';
import { ACCESS_TOKEN_TTL_SECONDS, type SessionSigner } from '../../../lib/session-token';
import { recordSecurityEvent, type RequestOrigin } from '../../../lib/security-events';
import { isoIn, nowIso } from '../../../lib/time';
import { RefreshToken, Session } from '../models/session';

// Sessions: a row per sign-in, short-lived access JWTs naming it, and single-use refresh tokens (rotation with
// reuse detection: a used refresh token presented again ends the whole session).
export const SESSION_TTL_MS = 30 * 24 * 3600 * 1000;
const REFRESH_PREFIX = 'svr_';

/** A live session as its user sees it: where it was opened, when, and whether it is the one asking. */
export interface SessionSummary {
    id: string;
    current: boolean;
    createdAt: string;
    expiresAt: string;
    lastRefreshedAt: string | null;                             // the last token pair it received (access tokens last minutes)
    ip: string | null;                                          // the address it signed in from, from the security trail
    method: string | null;                                      // password | register
}

export interface SessionPair {
    accessToken: string;
    refreshToken: string;
    expiresIn: number;
}

export class SessionService {
    constructor(private readonly knex: Knex, private readonly signer: SessionSigner, private readonly outbox: Outbox) { }

    async open(trx: Knex.Transaction, userId: string, origin: RequestOrigin, method: 'password' | 'register'): Promise<SessionPair> {
        if (method === 'password' && origin.ip && !await this.signedInFrom(trx, userId, origin.ip)) {
            await this.outbox.send(trx, { type: 'security.sign_in_new_address', userId, data: { ip: origin.ip, signedInAt: nowIso() } });
        }

        const session = await Session.query(trx).insertAndFetch({
            id: newId('ses'), userId, createdAt: nowIso(), expiresAt: isoIn(SESSION_TTL_MS), revokedAt: null, revokedReason: null
        });
        await recordSecurityEvent(trx, { type: 'session.signed_in', userId, actor: userId, credentialId: session.id, ip: origin.ip, data: { method } });
        return this.pair(trx, session);
    }

    async refresh(refreshToken: string, origin: RequestOrigin): Promise<SessionPair> {
        const invalid = Boom.unauthorized('Invalid refresh token', 'Bearer');
        if (!refreshToken.startsWith(REFRESH_PREFIX)) {
            throw invalid;
        }

        const reused = await this.knex.transaction(async (trx) => {
            const token = await RefreshToken.query(trx).findOne({ token_hash: sha256Hex(refreshToken) });
            const session = token && await Session.query(trx).findById(token.sessionId);
            const user = session && await User.query(trx).findById(session.userId);
            if (!token || !session || !user || session.revokedAt || session.expiresAt <= nowIso() || user.disabledAt) {
                throw invalid;
            }

            // One atomic claim: of two concurrent refreshes with one token, exactly one wins.
            const claimed = await RefreshToken.query(trx).patch({ usedAt: nowIso() }).where({ id: token.id }).whereNull('used_at');
            if (!claimed) {
                await this.revoke(trx, session.id, 'refresh_reuse', origin);
                return true;
            }

            return this.pair(trx, session);
        });

        if (reused === true) {
            throw Boom.unauthorized('Refresh token was already used; the session has been ended', 'Bearer');
        }

        return reused;
    }

    /** Ends one session and records it, in the caller's transaction; `by` names the session that asked, if another. */
    async revoke(trx: Knex.Transaction, sessionId: string, reason: NonNullable<Session['revokedReason']>, origin: RequestOrigin, by?: string): Promise<boolean> {
        const session = await Session.query(trx).findById(sessionId);
        const ended = await Session.query(trx).patch({ revokedAt: nowIso(), revokedReason: reason }).where({ id: sessionId }).whereNull('revoked_at');
        if (ended && session) {
            await recordSecurityEvent(trx, {
                type: 'session.revoked', userId: session.userId, actor: session.userId, credentialId: sessionId, ip: origin.ip, data: { reason, ...(by && by !== sessionId ? { by } : {}) }
            });
        }

        return ended > 0;
    }

    /** The user's live sessions, newest first (a user holds few: each sign-in makes one, and they end in 30 days). */
    async list(userId: string, currentId: string): Promise<SessionSummary[]> {
        const rows: Array<{ id: string; created_at: string; expires_at: string }> = await this.knex('sessions')
            .where({ user_id: userId }).whereNull('revoked_at').where('expires_at', '>', nowIso())
            .orderBy([{ column: 'created_at', order: 'desc' }, { column: 'id', order: 'desc' }]).select('id', 'created_at', 'expires_at');
        const ids = rows.map((row) => row.id);
        const refreshed: Array<{ session_id: string; at: string | null }> = ids.length
            ? await this.knex('refresh_tokens').whereIn('session_id', ids).groupBy('session_id').select('session_id').max({ at: 'created_at' })
            : [];
        const opened: Array<{ credential_id: string; ip: string | null; data: string }> = ids.length
            ? await this.knex('security_events').where({ user_id: userId, type: 'session.signed_in' }).whereIn('credential_id', ids).select('credential_id', 'ip', 'data')
            : [];
        return rows.map((row) => {
            const event = opened.find((candidate) => candidate.credential_id === row.id);
            const method = event ? (JSON.parse(event.data) as { method?: unknown }).method : null;
            return {
                id: row.id, current: row.id === currentId, createdAt: row.created_at, expiresAt: row.expires_at,
                lastRefreshedAt: refreshed.find((candidate) => candidate.session_id === row.id)?.at ?? null,
                ip: event?.ip ?? null, method: typeof method === 'string' ? method : null
            };
        });
    }

    /** Ends one of the user's live sessions (the caller's own included); another user's, or an ended one, is a 404. */
    async signOut(userId: string, sessionId: string, currentId: string, origin: RequestOrigin): Promise<void> {
        const ended = await this.knex.transaction(async (trx) => {
            const session = await Session.query(trx).findById(sessionId);
            if (!session || session.userId !== userId || session.revokedAt || session.expiresAt <= nowIso()) {
                return false;
            }

            return this.revoke(trx, sessionId, 'signed_out_by_user', origin, currentId);
        });
        if (!ended) {
            throw Boom.notFound('Session not found');
        }
    }

    /** Ends every live session of the user but the caller's; answers how many ended. */
    async signOutOthers(userId: string, currentId: string, origin: RequestOrigin): Promise<number> {
        return this.knex.transaction(async (trx) => {
            const live = await Session.query(trx).select('id').where({ user_id: userId }).whereNull('revoked_at').whereNot({ id: currentId });
            let ended = 0;
            for (const session of live) {
                ended += await this.revoke(trx, session.id, 'signed_out_elsewhere', origin, currentId) ? 1 : 0;
            }

            return ended;
        });
    }

    /** Ends every live session of a user but one (the caller's), recording each. */
    async revokeAllOf(trx: Knex.Transaction, userId: string, reason: NonNullable<Session['revokedReason']>, origin: RequestOrigin, except?: string): Promise<void> {
        const live = await Session.query(trx).select('id').where({ user_id: userId }).whereNull('revoked_at').whereNot({ id: except ?? '' });
        for (const session of live) {
            await this.revoke(trx, session.id, reason, origin);
        }
    }

    /** Whether the trail (within its retention) holds a sign-in of the user from this address. */
    private async signedInFrom(trx: Knex.Transaction, userId: string, ip: string): Promise<boolean> {
        return Boolean(await trx('security_events').where({ user_id: userId, type: 'session.signed_in', ip }).first('seq'));
    }

    private async pair(trx: Knex.Transaction, session: Session): Promise<SessionPair> {
        const refreshToken = REFRESH_PREFIX + randomBase62(43);
        await RefreshToken.query(trx).insert({
            id: newId('rtk'), sessionId: session.id, tokenHash: sha256Hex(refreshToken), createdAt: nowIso(), usedAt: null
        });
        const accessToken = await this.signer.sign({ sub: session.userId, sid: session.id });
        return { accessToken, refreshToken, expiresIn: ACCESS_TOKEN_TTL_SECONDS };
    }
}
