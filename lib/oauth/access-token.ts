import { randomUUID } from 'node:crypto';

import * as Jose from 'jose';

import type { Scope } from '../scopes';
import { isOAuthScope } from './scopes';

// OAuth access tokens: RS256 JWTs in the shape of RFC 9068 (header `typ: at+jwt`; iss, aud, sub, client_id, scope,
// jti, iat, exp) plus `grant_id`, the connected app behind them. `aud` names both servers of the deployment (the MCP
// resource and the API's base URL); each checks that its own URL is there. A token is only as good as its grant:
// the API looks the grant up on every request.
export const ACCESS_TOKEN_TYPE = 'at+jwt';
export const ACCESS_TOKEN_ALGORITHM = 'RS256';
export const OAUTH_ACCESS_TOKEN_TTL_SECONDS = 600;

/** The keys that verify tokens could not be read: a server problem, not a bad token. */
export class KeySourceError extends Error { }

export interface AccessTokenClaims {
    userId: string;
    clientId: string;
    grantId: string;
    scopes: readonly Scope[];
}

export interface VerifiedAccessToken extends AccessTokenClaims {
    jti: string;
}

export interface SigningKey {
    kid: string;
    privateKey: Jose.CryptoKey | Jose.KeyObject;
}

export function signAccessToken(key: SigningKey, claims: AccessTokenClaims, options: { issuer: string; audience: readonly string[] }): Promise<string> {
    return new Jose.SignJWT({ client_id: claims.clientId, scope: claims.scopes.join(' '), grant_id: claims.grantId })
        .setProtectedHeader({ alg: ACCESS_TOKEN_ALGORITHM, kid: key.kid, typ: ACCESS_TOKEN_TYPE })
        .setIssuer(options.issuer)
        .setAudience([...options.audience])
        .setSubject(claims.userId)
        .setJti(randomUUID())
        .setIssuedAt()
        .setExpirationTime(`${OAUTH_ACCESS_TOKEN_TTL_SECONDS}s`)
        .sign(key.privateKey);
}

export interface AccessTokenVerifier {
    /** The token's claims when its signature, algorithm, type, issuer, audience and lifetime hold; null otherwise. */
    verify(token: string): Promise<VerifiedAccessToken | null>;
}

const REQUIRED = ['iss', 'aud', 'sub', 'exp', 'iat', 'jti', 'client_id', 'scope', 'grant_id'];

/** `audience`: this server's own URL, which must be among the token's audiences. */
export function accessTokenVerifier(options: { keys: Jose.JWTVerifyGetKey; issuer: string; audience: string }): AccessTokenVerifier {
    return {
        async verify(token) {
            try {
                const { payload } = await Jose.jwtVerify(token, options.keys, {
                    algorithms: [ACCESS_TOKEN_ALGORITHM], issuer: options.issuer, audience: options.audience, typ: ACCESS_TOKEN_TYPE, requiredClaims: REQUIRED
                });
                const { sub, client_id: clientId, grant_id: grantId, scope, jti } = payload;
                if (typeof sub !== 'string' || typeof clientId !== 'string' || typeof grantId !== 'string' || typeof scope !== 'string' || typeof jti !== 'string') {
                    return null;
                }

                return { userId: sub, clientId, grantId, jti, scopes: scope.split(' ').filter(isOAuthScope) };
            }
            catch (err) {
                if (err instanceof KeySourceError) {
                    throw err;
                }

                return null;
            }
        }
    };
}
