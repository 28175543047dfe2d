import * as Boom from '@hapi/boom';
import type { Knex } from 'knex';

import { randomBase62 } from '../../../lib/base62';
import { sha256Hex } from '../../../lib/crypto';
import { newId } from '../../../lib/ids';
import { isLoopbackUrl } from '../../../lib/oauth/redirect-uri';
import { OAUTH_SCOPES, parseScopeParameter } from '../../../lib/oauth/scopes';
import { SCOPE_DESCRIPTIONS } from '../../../lib/scopes';
import { isoIn, nowIso } from '../../../lib/time';
import { RegisteredClient } from '../models/client';
import { Authorization } from '../models/authorization';
import type { OAuthErrorCode } from '../protocol';
import { UnknownClientError, type ClientRegistry } from './clients';

// The authorization endpoint and the consent screen's two calls. GET /v1/oauth/authorize checks the whole request:
// a bad client or redirect URI is shown to the user (never redirected to), anything else goes back to the client as
// `error`, `state` and `iss` (RFC 9207). A good request is kept as a pending authorization and the browser goes to the
// consent screen, where the signed-in user allows (with every project or a chosen few) or denies it. Allowing issues
// a single-use code bound to the client, redirect URI, PKCE challenge and resource.
export const AUTHORIZATION_TTL_MS = 10 * 60 * 1000;
export const CODE_TTL_MS = 2 * 60 * 1000;
const CODE_PREFIX = 'svoa_';
const MAX_STATE = 2048;
const KEEP_MS = 24 * 3600 * 1000;                               // authorizations are deleted a day after their request

export interface AuthorizationSettings {
    issuer: string;
    resource: string;                                           // the MCP server's resource URL: the only audience one may ask for
    consentPath: string;                                        // the consent screen, on the dashboard
}

export type AuthorizeOutcome = { redirect: string } | { refusal: string };

function withParams(uri: string, params: Record<string, string | null | undefined>): string {
    const url = new URL(uri);
    for (const [name, value] of Object.entries(params)) {
        if (value !== null && value !== undefined) {
            url.searchParams.append(name, value);
        }
    }

    return url.href;
}

export class AuthorizationsService {
    constructor(private readonly knex: Knex, private readonly clients: ClientRegistry, private readonly settings: AuthorizationSettings) { }

    async start(query: Readonly<Record<string, unknown>>): Promise<AuthorizeOutcome> {
        const one = (name: string) => typeof query[name] === 'string' && query[name] !== '' ? query[name] : undefined;
        const clientId = one('client_id');
        if (!clientId) {
            return { refusal: 'The request names no application (client_id is missing or repeated).' };
        }

        let client;
        try {
            client = await this.clients.forAuthorization(clientId);
        }
        catch (err) {
            if (err instanceof UnknownClientError) {
                return { refusal: err.message };
            }

            throw err;
        }

        const redirectUri = one('redirect_uri');
        if (!redirectUri || !client.redirectAllowed(redirectUri)) {
            return { refusal: `The redirect address is ${redirectUri ? 'not registered for' : 'missing from the request of'} ${client.name}, so the answer cannot be sent back to it.` };
        }

        const state = one('state');
        const fail = (error: OAuthErrorCode, description: string): AuthorizeOutcome =>
            ({ redirect: withParams(redirectUri, { error, error_description: description, state: state && state.length <= MAX_STATE ? state : null, iss: this.settings.issuer }) });
        const repeated = Object.keys(query).find((name) => Array.isArray(query[name]));
        if (repeated) {
            return fail('invalid_request', `The parameter "${repeated.slice(0, 64)}" must be sent once`);
        }

        if (state && state.length > MAX_STATE) {
            return fail('invalid_request', `"state" must be at most ${MAX_STATE} characters`);
        }

        const responseType = one('response_type');
        if (responseType !== 'code') {
            return responseType ? fail('unsupported_response_type', 'Only response_type=code is supported') : fail('invalid_request', 'The parameter "response_type" is required');
        }

        const challenge = one('code_challenge');
        if (!challenge) {
            return fail('invalid_request', 'PKCE is required: send code_challenge with code_challenge_method=S256');
        }

        if (one('code_challenge_method') !== 'S256') {
            return fail('invalid_request', 'Only the S256 code challenge method is supported (transform algorithm not supported)');
        }

        if (!/^[A-Za-z0-9_-]{43}$/.test(challenge)) {
            return fail('invalid_request', 'code_challenge must be the 43-character base64url SHA-256 of the code verifier');
        }

        const scope = parseScopeParameter(one('scope'));                 // none asked: every connector scope
        if ('refused' in scope) {
            return fail('invalid_scope', `Connectors are granted read-only scopes; these cannot be granted: ${scope.refused.join(' ').slice(0, 300)}`);
        }

        const resource = one('resource') ?? this.settings.resource;
        if (resource !== this.settings.resource) {
            return fail('invalid_target', `The only resource served is ${this.settings.resource}`);
        }

        const now = nowIso();
        await Authorization.query(this.knex).where('created_at', '<', new Date(Date.now() - KEEP_MS).toISOString()).delete();
        const authorization = await Authorization.query(this.knex).insertAndFetch({
            id: newId('oaz'), clientId: client.id, clientName: client.name, clientKind: client.kind, clientHost: client.host, redirectUri,
            scopes: scope.scopes ?? [...OAUTH_SCOPES], resource, state: state ?? null, codeChallenge: challenge, expiresAt: isoIn(AUTHORIZATION_TTL_MS), decidedAt: null,
            userId: null, projects: null, codeHash: null, codeExpiresAt: null, codeUsedAt: null, grantId: null, createdAt: now
        });
        return { redirect: `${this.settings.consentPath}?authorization=${authorization.id}` };
    }

    /** What the consent screen shows the user. */
    async describe(id: string, userId: string) {
        const authorization = await this.pending(this.knex, id, userId);
        const redirect = new URL(authorization.redirectUri);
        return {
            id: authorization.id,
            client: { id: authorization.clientId, name: authorization.clientName, kind: authorization.clientKind, host: authorization.clientHost },
            redirectUri: authorization.redirectUri,
            redirectHost: redirect.host,
            loopbackRedirect: isLoopbackUrl(redirect),
            scopes: authorization.scopes.map((scope) => ({ scope, description: SCOPE_DESCRIPTIONS[scope] })),
            expiresAt: authorization.expiresAt
        };
    }

    /** The user's answer: where the browser goes next, with a code or with `error=access_denied`. */
    async decide(id: string, userId: string, input: { decision: 'allow' | 'deny'; projects?: string[] | null }): Promise<{ redirectTo: string }> {
        const projects = input.decision === 'allow' ? input.projects ?? null : null;
        if (projects) {
            const member = await this.knex('memberships').where({ user_id: userId }).whereIn('project_id', projects).pluck('project_id');
            if (member.length !== projects.length) {
                throw Boom.badRequest('"projects" may only name projects you are a member of');
            }
        }

        const code = CODE_PREFIX + randomBase62(43);
        const authorization = await this.knex.transaction(async (trx) => {
            const pending = await this.pending(trx, id, userId);
            const now = nowIso();
            const allowed = input.decision === 'allow';
            // One atomic claim: a consent form posted twice answers once.
            const claimed = await Authorization.query(trx).patch({
                decidedAt: now, userId, projects,
                ...(allowed ? { codeHash: sha256Hex(code), codeExpiresAt: isoIn(CODE_TTL_MS) } : {})
            }).where({ id }).whereNull('decided_at');
            if (!claimed) {
                throw answered();
            }

            return pending;
        });

        const common = { state: authorization.state, iss: this.settings.issuer };
        return {
            redirectTo: input.decision === 'allow'
                ? withParams(authorization.redirectUri, { code, ...common })
                : withParams(authorization.redirectUri, { error: 'access_denied', error_description: 'The user denied the request', ...common })
        };
    }

    private async pending(db: Knex | Knex.Transaction, id: string, userId: string): Promise<Authorization> {
        const authorization = await Authorization.query(db).findById(id);
        if (!authorization || authorization.expiresAt <= nowIso()) {
            throw Boom.notFound('This authorization request does not exist or has expired; start again from the app');
        }

        if (authorization.decidedAt) {
            throw answered();
        }

        if (authorization.clientKind === 'registered') {
            const client = await RegisteredClient.query(db).findById(authorization.clientId);
            if (!client) {
                throw Boom.notFound('This authorization request does not exist or has expired; start again from the app');
            }

            if (client.userId !== userId) {
                throw Boom.forbidden('This OAuth client belongs to another account: only the account that registered it can connect it');
            }
        }

        return authorization;
    }
}

const answered = () => Boom.conflict('This authorization request has already been answered; start again from the app');
