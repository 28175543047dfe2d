import * as Boom from '@hapi/boom';
import type { AuthCredentials } from '@hapi/hapi';

import { inRanges } from '../../lib/address-ranges';
import { parseApiKey } from '../../lib/api-key-token';
import { hexDigestsEqual, sha256Hex } from '../../lib/crypto';
import type { FastReader, Lookup } from '../../lib/db/fast-reader';
import { jwtType } from '../../lib/jwt-type';
import { ACCESS_TOKEN_TYPE, type AccessTokenVerifier } from '../../lib/oauth/access-token';
import { SESSION_SCOPES, type Scope } from '../../lib/scopes';
import { SESSION_TOKEN_TYPE, type SessionSigner } from '../../lib/session-token';
import { KeyUses, type UsedKey } from './key-uses';

// Turns an Authorization header into credentials, deciding from the database on every request: nothing here is
// cached, so a revocation holds at the next request on every process.

// A key's row as KEY's values, in its order: read without building an object (the check runs on every request).
type KeyTuple = [
    id: string, user_id: string, secret_hash: string, previous_secret_hash: string | null, previous_expires_at: string | null,
    allowed_cidrs: string | null, scopes: string, expires_at: string | null, last_used_at: string | null, revoked_at: string | null,
    email: string, admin_since: string | null, disabled_at: string | null
];

type SessionTuple = [user_id: string, expires_at: string, revoked_at: string | null, email: string, admin_since: string | null, disabled_at: string | null];

type GrantTuple = [
    user_id: string, client_id: string, scopes: string, projects: string | null, last_used_at: string | null, revoked_at: string | null,
    email: string, admin_since: string | null, disabled_at: string | null
];

// Every column read here costs every request (five more columns cost more than the allow-list check): what only the
// writes after the response need (the key's name, the days of its scopes, its addresses) they read themselves.
// Each is read with the lookups of the same turn (lib/db/lookup-batch.ts), never kept.
const KEY: Lookup = {
    key: 'k.prefix',
    columns: 'k.id, k.user_id, k.secret_hash, k.previous_secret_hash, k.previous_expires_at, k.allowed_cidrs, k.scopes, k.expires_at, k.last_used_at, k.revoked_at, u.email, u.admin_since, u.disabled_at',
    from: 'api_keys k JOIN users u ON u.id = k.user_id'
};
const SESSION: Lookup = { key: 's.id', columns: 's.user_id, s.expires_at, s.revoked_at, u.email, u.admin_since, u.disabled_at', from: 'sessions s JOIN users u ON u.id = s.user_id' };
const GRANT: Lookup = {
    key: 'g.id',
    columns: 'g.user_id, g.client_id, g.scopes, g.projects, g.last_used_at, g.revoked_at, u.email, u.admin_since, u.disabled_at',
    from: 'oauth_grants g JOIN users u ON u.id = g.user_id'
};
const DUMMY_HASH = '0'.repeat(64);                               // compared when no key has the prefix: the same work either way

export const messages = {
    missing: 'Missing authentication',
    malformed: 'Invalid authorization header',
    invalidKey: 'Invalid API key',
    expiredKey: 'API key has expired',
    revokedKey: 'API key has been revoked',
    rolledKey: 'This token was replaced when the API key was rolled, and its overlap has ended: use the new token',
    addressRefused: (ip: string | null) => `This API key is not allowed from ${ip ?? 'an unknown address'}: the address is outside the key's allow-list`,
    invalidToken: 'Invalid or expired access token',
    endedSession: 'Session has ended',
    revokedGrant: 'The app\'s access has been revoked',
    disabled: 'Account is disabled'
};

// A credential's scopes, parsed once per distinct text (few keys' scope lists differ): how to read the text is kept,
// never whether a credential is valid. The lists handed out are frozen, so no request can change another's.
const parsedScopes = new Map<string, readonly Scope[]>();
const MAX_PARSED_SCOPES = 1000;

function parseScopes(text: string): readonly Scope[] {
    let scopes = parsedScopes.get(text);
    if (!scopes) {
        if (parsedScopes.size >= MAX_PARSED_SCOPES) {
            parsedScopes.clear();
        }

        scopes = Object.freeze(JSON.parse(text) as Scope[]);
        parsedScopes.set(text, scopes);
    }

    return scopes;
}

export function unauthorized(message: string): Boom.Boom {
    return Boom.unauthorized(message, 'Bearer');
}

export interface CredentialStoreOptions {
    reader: FastReader;
    signer: SessionSigner;
    accessTokens: AccessTokenVerifier;                          // OAuth access tokens, with the API's own URL in `aud`
    uses: KeyUses;                                              // what a use leaves behind, written after the response path
    clock: () => number;
}

/** What the request adds to its credential: where it comes from, and the scope its route needs (key routes). */
export interface RequestContext {
    ip: string | null;
    scope?: string | null;
}

const NO_CONTEXT: RequestContext = { ip: null };

export class CredentialStore {
    constructor(private readonly options: CredentialStoreOptions) { }

    async authenticate(header: string | undefined, context: RequestContext = NO_CONTEXT): Promise<AuthCredentials> {
        if (!header) {
            throw unauthorized(messages.missing);
        }

        const bearer = /^Bearer +(\S+)$/i.exec(header);
        const token = bearer ? bearer[1] : header.trim();
        if (token.startsWith('svk_')) {
            return this.apiKey(token, context);
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

    // The secret is compared with the current digest and, during a roll's overlap, with the one it replaced: both in
    // constant time. The allow-list is checked in memory on the row already read.
    private async apiKey(token: string, context: RequestContext): Promise<AuthCredentials> {
        const parsed = parseApiKey(token);
        if (!parsed) {
            throw unauthorized(messages.invalidKey);
        }

        const readAt = this.options.uses.epoch;
        const tuple = await this.options.reader.lookup<KeyTuple>(KEY, parsed.prefix);
        const presented = sha256Hex(parsed.secret);
        const current = hexDigestsEqual(presented, tuple ? tuple[2] : DUMMY_HASH);
        const previous = !current && !!tuple?.[3] && hexDigestsEqual(presented, tuple[3]);
        if (!tuple || (!current && !previous)) {
            throw unauthorized(messages.invalidKey);
        }

        const [id, userId, , , previousExpiresAt, allowedCidrs, scopeText, expiresAt, lastUsedAt, revokedAt, email, adminSince, disabledAt] = tuple;
        if (revokedAt) {
            throw unauthorized(messages.revokedKey);
        }

        const now = this.options.clock();
        if (expiresAt && Date.parse(expiresAt) <= now) {
            throw unauthorized(messages.expiredKey);
        }

        if (previous && !(previousExpiresAt && Date.parse(previousExpiresAt) > now)) {
            throw unauthorized(messages.rolledKey);
        }

        if (disabledAt) {
            throw unauthorized(messages.disabled);
        }

        const row: UsedKey = { id, user_id: userId, last_used_at: lastUsedAt, previous_expires_at: previousExpiresAt };
        if (allowedCidrs && !inRanges(allowedCidrs, context.ip)) {
            this.options.uses.refused(row, parsed.prefix, context.ip, now);
            throw Boom.forbidden(messages.addressRefused(context.ip));
        }

        const scopes = parseScopes(scopeText);
        if (previous) {
            this.options.uses.previousSecretUsed(row, parsed.prefix, context.ip, now);
        }

        this.options.uses.used('api_keys', row, now, readAt, { row, prefix: parsed.prefix, ip: context.ip, scope: context.scope && scopes.includes(context.scope as Scope) ? context.scope : null });
        return {
            user: { id: userId, email, isAdmin: !!adminSince },
            via: 'key',
            credentialId: id,
            scopes,
            pinnedProjects: null
        };
    }

    private async session(token: string): Promise<AuthCredentials> {
        const claims = await this.options.signer.verify(token);
        if (!claims) {
            throw unauthorized(messages.invalidToken);
        }

        const row = await this.options.reader.lookup<SessionTuple>(SESSION, claims.sid);
        if (!row) {
            throw unauthorized(messages.endedSession);
        }

        const [userId, expiresAt, revokedAt, email, adminSince, disabledAt] = row;
        if (userId !== claims.sub || revokedAt || Date.parse(expiresAt) <= Date.now()) {
            throw unauthorized(messages.endedSession);
        }

        if (disabledAt) {
            throw unauthorized(messages.disabled);
        }

        return {
            user: { id: userId, email, isAdmin: !!adminSince },
            via: 'session',
            credentialId: claims.sid,
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

        const readAt = this.options.uses.epoch;
        const row = await this.options.reader.lookup<GrantTuple>(GRANT, claims.grantId);
        if (!row) {
            throw unauthorized(messages.revokedGrant);
        }

        const [userId, clientId, scopeText, projects, lastUsedAt, revokedAt, email, adminSince, disabledAt] = row;
        if (revokedAt || userId !== claims.userId || clientId !== claims.clientId) {
            throw unauthorized(messages.revokedGrant);
        }

        if (disabledAt) {
            throw unauthorized(messages.disabled);
        }

        this.options.uses.used('oauth_grants', { id: claims.grantId, last_used_at: lastUsedAt }, this.options.clock(), readAt);
        const granted = parseScopes(scopeText);
        return {
            user: { id: userId, email, isAdmin: !!adminSince },
            via: 'oauth',
            credentialId: claims.grantId,
            scopes: claims.scopes.filter((scope) => granted.includes(scope)),
            pinnedProjects: projects ? JSON.parse(projects) as string[] : null
        };
    }

    /** Waits for deferred writes, so a stopping server loses none. */
    async drain(): Promise<void> {
        await this.options.uses.drain();
    }
}
