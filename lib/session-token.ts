import * as Jose from 'jose';

// Session access tokens: HS256 JWTs with sub, sid, iat, exp, iss and the header typ `session+jwt`, so they can never
// be mistaken for OAuth access tokens (RS256, `at+jwt`). A token is only as good as its session row: the access
// pipeline checks that `sid` is live on every request.
export const SESSION_TOKEN_TYPE = 'session+jwt';
export const ACCESS_TOKEN_TTL_SECONDS = 15 * 60;

export interface SessionClaims {
    sub: string;
    sid: string;
}

export interface SessionSigner {
    sign(claims: SessionClaims): Promise<string>;
    verify(token: string): Promise<SessionClaims | null>;
}

export function sessionSigner(options: { secret: Buffer; issuer: string; ttlSeconds?: number }): SessionSigner {
    const ttl = options.ttlSeconds ?? ACCESS_TOKEN_TTL_SECONDS;
    return {
        sign: (claims) => new Jose.SignJWT({ sid: claims.sid })
            .setProtectedHeader({ alg: 'HS256', typ: SESSION_TOKEN_TYPE })
            .setSubject(claims.sub)
            .setIssuer(options.issuer)
            .setIssuedAt()
            .setExpirationTime(`${ttl}s`)
            .sign(options.secret),

        verify: async (token) => {
            try {
                const { payload } = await Jose.jwtVerify(token, options.secret, { algorithms: ['HS256'], issuer: options.issuer, typ: SESSION_TOKEN_TYPE });
                if (typeof payload.sub !== 'string' || typeof payload.sid !== 'string') {
                    return null;
                }

                return { sub: payload.sub, sid: payload.sid };
            }
            catch {
                return null;
            }
        }
    };
}
