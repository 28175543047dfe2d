import * as Crypto from 'node:crypto';

import type { Request, ResponseToolkit } from '@hapi/hapi';

// The OAuth 2.0 side of a fake Git host: codes a test mints as if a user had approved (`approve()`), the token
// endpoint (authorization code and refresh token grants, client authenticated in the body or with HTTP Basic,
// refresh tokens rotated on use, the previous access token dropped), revocation, and the check of a bearer token.
export interface FakeOAuthOptions {
    clientId?: string;
    clientSecret?: string;
    clientAuth: 'body' | 'basic';
    expiresIn: number | null;                                   // seconds; null: tokens that never expire (GitHub OAuth apps)
    refresh: boolean;                                           // whether refresh tokens are issued
    refusal: 'github' | 'standard';                             // GitHub answers a bad code with 200 and `error`
    prefix: string;                                             // of the access tokens, e.g. gho_
}

export interface FakeOAuth {
    clientId: string;
    clientSecret: string;
    expiresIn: number | null;
    grants: Array<{ grantType: string; redirectUri: string | null }>;
    approve(login: string): string;
    valid(token: string | undefined): string | null;            // the login a live token signs in as
    revoke(token: string): boolean;
    revokeAll(): void;
    live(): string[];                                           // access tokens still valid
    tokenHandler(request: Request, h: ResponseToolkit): object;
}

const random = (bytes = 20) => Crypto.randomBytes(bytes).toString('hex');

export function fakeOAuth(options: FakeOAuthOptions): FakeOAuth {
    const clientId = options.clientId ?? `client-${random(4)}`;
    const clientSecret = options.clientSecret ?? `secret-${random(8)}`;
    const codes = new Map<string, string>();                    // code -> login
    const tokens = new Map<string, string>();                   // access token -> login
    const refreshTokens = new Map<string, { login: string; access: string }>();
    const grants: FakeOAuth['grants'] = [];

    const issue = (login: string) => {
        const access = `${options.prefix}${random()}`;
        tokens.set(access, login);
        const refresh = options.refresh ? `rt_${random()}` : null;
        if (refresh) {
            refreshTokens.set(refresh, { login, access });
        }

        return {
            access_token: access, token_type: 'bearer', scope: 'repo',
            ...(options.expiresIn !== null ? { expires_in: options.expiresIn } : {}),
            ...(refresh ? { refresh_token: refresh } : {})
        };
    };

    const refuse = (h: ResponseToolkit, error: string) => options.refusal === 'github'
        ? h.response({ error, error_description: 'The code passed is incorrect or expired.' }).code(200)
        : h.response({ error, error_description: 'The provided authorization grant is invalid.' }).code(error === 'invalid_client' ? 401 : 400);

    const fake: FakeOAuth = {
        clientId,
        clientSecret,
        get expiresIn() {
            return options.expiresIn;
        },
        set expiresIn(seconds: number | null) {                 // the lifetime of the tokens issued from now on
            options.expiresIn = seconds;
        },
        grants,
        approve: (login) => {
            const code = random(10);
            codes.set(code, login);
            return code;
        },
        valid: (token) => token ? tokens.get(token) ?? null : null,
        revoke: (token) => tokens.delete(token),
        revokeAll: () => {
            tokens.clear();
            refreshTokens.clear();
        },
        live: () => [...tokens.keys()],
        tokenHandler: (request, h) => {
            const form = (request.payload ?? {}) as Record<string, string>;
            let client = { id: form.client_id, secret: form.client_secret };
            if (options.clientAuth === 'basic') {
                const basic = /^Basic (.+)$/.exec(String(request.headers.authorization ?? ''))?.[1];
                const [id, secret] = basic ? Buffer.from(basic, 'base64').toString().split(':') : [];
                client = { id, secret };
            }

            if (client.id !== clientId || client.secret !== clientSecret) {
                return refuse(h, 'invalid_client');
            }

            grants.push({ grantType: form.grant_type ?? '', redirectUri: form.redirect_uri ?? null });
            if (form.grant_type === 'authorization_code') {
                const login = codes.get(form.code ?? '');
                if (!login) {
                    return refuse(h, options.refusal === 'github' ? 'bad_verification_code' : 'invalid_grant');
                }

                codes.delete(form.code);
                return issue(login);
            }

            if (form.grant_type === 'refresh_token' && options.refresh) {
                const held = refreshTokens.get(form.refresh_token ?? '');
                if (!held) {
                    return refuse(h, 'invalid_grant');
                }

                refreshTokens.delete(form.refresh_token);
                tokens.delete(held.access);
                return issue(held.login);
            }

            return refuse(h, 'unsupported_grant_type');
        }
    };
    return fake;
}

/** The bearer token of a request. */
export const bearer = (request: Request) => /^Bearer (.+)$/.exec(String(request.headers.authorization ?? ''))?.[1];
