import * as Boom from '@hapi/boom';
import type { AuthCredentials } from '@hapi/hapi';
import type { Knex } from 'knex';

import { parseApiKey } from '../../lib/api-key-token';
import { digestsEqual, sha256 } from '../../lib/crypto';
import type { FastReader } from '../../lib/db/fast-reader';
import { jwtType } from '../../lib/jwt-type';
import { ACCESS_TOKEN_TYPE, type AccessTokenVerifier } from '../../lib/oauth/access-token';
import { SESSION_SCOPES, type Scope } from '../../lib/scopes';
import { SESSION_TOKEN_TYPE, type SessionSigner } from '../../lib/session-token';

// Turns an Authorization header into credentials, deciding from the database on every request: nothing here is
// cached, so a revocation holds at the next request on every process.

interface KeyRow {
    id: string;
    user_id: string;
    secret_hash: string;
    scopes: string;
    expires_at: string | null;
    last_used_at: string | null;
    revoked_at: string | null;
    email: string;
    admin_since: string | null;
    disabled_at: string | null;
}

interface SessionRow {
    id: string;
    user_id: string;
    expires_at: string;
    revoked_at: string | null;
    email: string;
    admin_since: string | null;
    disabled_at: string | null;
}

interface GrantRow {
    id: string;
    user_id: string;
    client_id: string;
    scopes: string;
    projects: string | null;
    last_used_at: string | null;
    revoked_at: string | null;
    email: string;
    admin_since: string | null;
    disabled_at: string | null;
}

const KEY_SQL = 'SELECT k.id, k.user_id, k.secret_hash, k.scopes, k.expires_at, k.last_used_at, k.revoked_at, u.email, u.admin_since, u.disabled_at FROM api_keys k JOIN users u ON u.id = k.user_id WHERE k.prefix = ?';
const SESSION_SQL = 'SELECT s.id, s.user_id, s.expires_at, s.revoked_at, u.email, u.admin_since, u.disabled_at FROM sessions s JOIN users u ON u.id = s.user_id WHERE s.id = ?';
const GRANT_SQL = 'SELECT g.id, g.user_id, g.client_id, g.scopes, g.projects, g.last_used_at, g.revoked_at, u.email, u.admin_since, u.disabled_at FROM oauth_grants g JOIN users u ON u.id = g.user_id WHERE g.id = ?';
const DUMMY_HASH = Buffer.alloc(32);
const TOUCH_INTERVAL_MS = 60_000;

export const messages = {
    missing: 'Missing authentication',
    malformed: 'Invalid authorization header',
    invalidKey: 'Invalid API key',
    expiredKey: 'API key has expired',
    revokedKey: 'API key has been revoked',
    invalidToken: 'Invalid or expired access token',
    endedSession: 'Session has ended',
    revokedGrant: 'The app\'s access has been revoked',
    disabled: 'Account is disabled'
};

export function unauthorized(message: string): Boom.Boom {
    return Boom.unauthorized(message, 'Bearer');
}

export interface CredentialStoreOptions {
    knex: Knex;
    reader: FastReader;
    signer: SessionSigner;
    accessTokens: AccessTokenVerifier;                          // OAuth access tokens, with the API's own URL in `aud`
    onError: (err: unknown) => void;
}

export class CredentialStore {
    private readonly touching = new Map<string, Promise<unknown>>();    // a lastUsedAt write in flight, by key or grant id

    constructor(private readonly options: CredentialStoreOptions) { }

    async authenticate(header: string | undefined): Promise<AuthCredentials> {
        if (!header) {
            throw unauthorized(messages.missing);
        }

        const bearer = /^Bearer +(\S+)$/i.exec(header);
        const token = bearer ? bearer[1]! : header.trim();
        if (token.startsWith('svk_')) {
            return this.apiKey(token);
        }

        const type = bearer ? jwtType(token) : null;
        if (type === SESSION_TOKEN_TYPE) {
            return this.session(token);
        }

        if (type === ACCESS_TOKEN_TYPE) {
            return this.oauth(token);
        }

        throw unauthorized(bearer ? messages.invalidToken : messages.malformed);
    }

    private async apiKey(token: string): Promise<AuthCredentials> {
        const parsed = parseApiKey(token);
        if (!parsed) {
            throw unauthorized(messages.invalidKey);
        }

        const row = await this.options.reader.get<KeyRow>(KEY_SQL, [parsed.prefix]);
        const presented = sha256(parsed.secret);
        const expected = row ? Buffer.from(row.secret_hash, 'hex') : DUMMY_HASH;
        if (!digestsEqual(presented, expected) || !row) {
            throw unauthorized(messages.invalidKey);
        }

        if (row.revoked_at) {
            throw unauthorized(messages.revokedKey);
        }

        const now = Date.now();
        if (row.expires_at && Date.parse(row.expires_at) <= now) {
            throw unauthorized(messages.expiredKey);
        }

        if (row.disabled_at) {
            throw unauthorized(messages.disabled);
        }

        this.touch('api_keys', row, now);
        return {
            user: { id: row.user_id, email: row.email, isAdmin: !!row.admin_since },
            via: 'key',
            credentialId: row.id,
            scopes: JSON.parse(row.scopes) as Scope[],
            pinnedProjects: null
        };
    }

    private async session(token: string): Promise<AuthCredentials> {
        const claims = await this.options.signer.verify(token);
        if (!claims) {
            throw unauthorized(messages.invalidToken);
        }

        const row = await this.options.reader.get<SessionRow>(SESSION_SQL, [claims.sid]);
        if (!row || row.user_id !== claims.sub || row.revoked_at || Date.parse(row.expires_at) <= Date.now()) {
            throw unauthorized(messages.endedSession);
        }

        if (row.disabled_at) {
            throw unauthorized(messages.disabled);
        }

        return {
            user: { id: row.user_id, email: row.email, isAdmin: !!row.admin_since },
            via: 'session',
            credentialId: row.id,
            scopes: SESSION_SCOPES,
            pinnedProjects: null
        };
    }

    // An OAuth access token: its signature, issuer, audience, type and lifetime, then its grant, read on every request.
    // It acts within the scopes of both, and only in the projects the grant is pinned to.
    private async oauth(token: string): Promise<AuthCredentials> {
        const claims = await this.options.accessTokens.verify(token);
        if (!claims) {
            throw unauthorized(messages.invalidToken);
        }

        const row = await this.options.reader.get<GrantRow>(GRANT_SQL, [claims.grantId]);
        if (!row || row.revoked_at || row.user_id !== claims.userId || row.client_id !== claims.clientId) {
            throw unauthorized(messages.revokedGrant);
        }

        if (row.disabled_at) {
            throw unauthorized(messages.disabled);
        }

        this.touch('oauth_grants', row, Date.now());
        const granted = JSON.parse(row.scopes) as Scope[];
        return {
            user: { id: row.user_id, email: row.email, isAdmin: !!row.admin_since },
            via: 'oauth',
            credentialId: row.id,
            scopes: claims.scopes.filter((scope) => granted.includes(scope)),
            pinnedProjects: row.projects ? JSON.parse(row.projects) as string[] : null
        };
    }

    // lastUsedAt is written at most once a minute per key or grant, after the response path: a write per request costs a
    // quarter of the throughput, an fsync per request two thirds (toolcheck.md). Until the write lands, reads still see
    // the old value: the uses meanwhile join the write in flight instead of each queueing one of their own.
    private touch(table: 'api_keys' | 'oauth_grants', row: { id: string; last_used_at: string | null }, now: number): void {
        if (this.touching.has(row.id) || (row.last_used_at && Date.parse(row.last_used_at) > now - TOUCH_INTERVAL_MS)) {
            return;
        }

        const staleBefore = new Date(now - TOUCH_INTERVAL_MS).toISOString();
        const write = new Promise<void>((resolve) => setImmediate(resolve))
            .then(() => this.options.knex(table)
                .where('id', row.id)
                .andWhere((q) => q.whereNull('last_used_at').orWhere('last_used_at', '<=', staleBefore))
                .update({ last_used_at: new Date(now).toISOString() }))
            .catch(this.options.onError)
            .finally(() => this.touching.delete(row.id));

        this.touching.set(row.id, write);
    }

    /** Waits for deferred writes, so a stopping server loses none. */
    async drain(): Promise<void> {
        await Promise.all([...this.touching.values()]);
    }
}
