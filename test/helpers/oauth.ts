import * as Crypto from 'node:crypto';

import type { Server, ServerInjectResponse } from '@hapi/hapi';
import * as Jose from 'jose';

import { SigningKeys } from '../../lib/oauth/signing-keys';
import type { TestUser } from './api';

// The OAuth flow through the API's own routes, as a client and a user would drive it: authorize, answer on the
// consent screen's calls, redeem the code, refresh. Tests of one step take the others from here.
export const REDIRECT_URI = 'https://connector.example/callback';
export const MCP_RESOURCE = 'http://localhost:3001/mcp';       // testConfig's MCP_PUBLIC_URL + /mcp
export const ISSUER = 'http://localhost:3000';                  // testConfig's PUBLIC_URL

export interface Pkce {
    verifier: string;
    challenge: string;
}

export function pkce(): Pkce {
    const verifier = Crypto.randomBytes(32).toString('base64url');
    return { verifier, challenge: Crypto.createHash('sha256').update(verifier).digest('base64url') };
}

export interface Client {
    id: string;
    secret: string;
}

export async function registerClient(server: Server, user: TestUser, redirectUris: string[] = [REDIRECT_URI], name = 'Test connector'): Promise<Client> {
    const res = await server.inject({ method: 'POST', url: '/v1/users/me/oauth-clients', headers: { authorization: user.session }, payload: { name, redirectUris } });
    if (res.statusCode !== 201) {
        throw new Error(`client registration failed: ${res.statusCode} ${res.payload}`);
    }

    return { id: (res.result as any).client.id, secret: (res.result as any).clientSecret };
}

export function basic(id: string, secret: string): string {
    return `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`;
}

/** GET /v1/oauth/authorize with these parameters (a value of null leaves the parameter out). */
export function authorize(server: Server, params: Record<string, string | null>): Promise<ServerInjectResponse<any>> {
    const query = new URLSearchParams(Object.entries(params).filter((entry): entry is [string, string] => entry[1] !== null));
    return server.inject({ method: 'GET', url: `/v1/oauth/authorize?${query}` });
}

export function authorizeParams(client: string, code: Pkce, extra: Record<string, string | null> = {}): Record<string, string | null> {
    return { response_type: 'code', client_id: client, redirect_uri: REDIRECT_URI, code_challenge: code.challenge, code_challenge_method: 'S256', state: 'st-123', ...extra };
}

/** The pending authorization's id from the consent screen address the authorize endpoint sent the browser to. */
export function authorizationOf(res: ServerInjectResponse<any>): string {
    const location = String(res.headers.location ?? '');
    const match = /^\/oauth\/authorize\?authorization=(oaz_[0-9A-Za-z]{16})$/.exec(location);
    if (res.statusCode !== 302 || !match) {
        throw new Error(`expected the consent screen, got ${res.statusCode} ${location} ${res.payload}`);
    }

    return match[1];
}

/** The user's answer through the consent screen's API call; the URL the browser goes to next. */
export async function decide(server: Server, user: TestUser, authorization: string, decision: 'allow' | 'deny', projects?: string[] | null): Promise<ServerInjectResponse<any>> {
    return server.inject({
        method: 'POST', url: `/v1/oauth/authorizations/${authorization}`, headers: { authorization: user.session },
        payload: { decision, ...(projects !== undefined ? { projects } : {}) }
    });
}

export function tokenRequest(server: Server, form: Record<string, string>, authorization?: string, path = '/v1/oauth/token'): Promise<ServerInjectResponse<any>> {
    return server.inject({
        method: 'POST', url: path, payload: new URLSearchParams(form).toString(),
        headers: { 'content-type': 'application/x-www-form-urlencoded', ...(authorization ? { authorization } : {}) }
    });
}

export interface Connection {
    client: Client;
    accessToken: string;
    refreshToken: string;
    grantId: string;
    code: string;
    verifier: string;
}

/** The whole flow for a user's own client: authorize, allow (with every project or the given ones), redeem the code. */
export async function connectApp(server: Server, user: TestUser, options: { client?: Client; projects?: string[] | null; scope?: string } = {}): Promise<Connection> {
    const client = options.client ?? await registerClient(server, user);
    const code = pkce();
    const authorization = authorizationOf(await authorize(server, authorizeParams(client.id, code, options.scope ? { scope: options.scope } : {})));
    const answer = await decide(server, user, authorization, 'allow', options.projects);
    const issued = new URL(answer.result.redirectTo).searchParams.get('code')!;
    const res = await tokenRequest(server, { grant_type: 'authorization_code', code: issued, redirect_uri: REDIRECT_URI, code_verifier: code.verifier }, basic(client.id, client.secret));
    if (res.statusCode !== 200) {
        throw new Error(`code exchange failed: ${res.statusCode} ${res.payload}`);
    }

    return {
        client, accessToken: res.result.access_token, refreshToken: res.result.refresh_token, code: issued, verifier: code.verifier,
        grantId: Jose.decodeJwt(res.result.access_token).grant_id as string
    };
}

/** A token signed with the server's own current key, from a real token's claims with some changed (for refusals). */
export async function forge(server: Server, real: string, change: { header?: Record<string, unknown>; claims?: Record<string, unknown> } = {}): Promise<string> {
    const key = await new SigningKeys(server.app.knex, server.app.config.encryptionKey).current();
    const claims = { ...Jose.decodeJwt(real), ...change.claims };
    return new Jose.SignJWT(claims).setProtectedHeader({ alg: 'RS256', kid: key.kid, typ: 'at+jwt', ...change.header }).sign(key.privateKey);
}
