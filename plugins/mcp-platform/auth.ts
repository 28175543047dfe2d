import type { Request, ResponseToolkit, ServerAuthSchemeObject } from '@hapi/hapi';

import { clientAddress, type ProxyTrust } from '../../lib/client-address';
import { jwtType } from '../../lib/jwt-type';
import { ApiUnreachableError, type ApiClient } from '../../lib/mcp/api-client';
import { rpcRefusal } from '../../lib/mcp/http';
import { ACCESS_TOKEN_TYPE, KeySourceError, type AccessTokenVerifier } from '../../lib/oauth/access-token';
import { isScope, type Scope } from '../../lib/scopes';

// The credential check of POST /mcp, before the body is read: a missing or malformed Authorization header gets the
// bare challenge pointing at the protected-resource metadata. An OAuth access token is verified here first (signature
// from the API's JWKS, issuer, this server's resource in `aud`, expiry, `typ`); then every credential is put to the
// API's introspection, which checks it again with the API's own audience and reads its grant, key or session. One
// either refuses gets `error="invalid_token"`. Nothing but the public keys is cached: revocation holds at the next
// request.

export interface McpIdentity {
    userId: string;
    via: 'key' | 'session' | 'oauth';
    credentialId: string;
    scopes: readonly Scope[];
    isAdmin: boolean;
}

export interface McpCaller {
    authorization: string;                                      // the caller's header, passed on to this deployment's API only
    address: string | null;                                     // the caller's address, passed on with it (API key allow-lists)
    identity: McpIdentity;
}

/** Who is calling an authenticated MCP route: the artifacts the scheme below recorded. */
export function caller(request: Request): McpCaller {
    return request.auth.artifacts as unknown as McpCaller;
}

/** The header when it is one `svk_...`, `Bearer svk_...` or `Bearer <token>`; null when missing, malformed or repeated. */
export function wellFormedAuthorization(request: Request): string | null {
    const raw = request.raw.req.rawHeaders ?? [];                 // server.inject has none: it cannot send a header twice
    let count = 0;
    for (let i = 0; i < raw.length; i += 2) {
        if (raw[i].length === 13 && raw[i].toLowerCase() === 'authorization') {
            ++count;
        }
    }

    const header = request.headers.authorization as string | undefined;
    if (count > 1 || !header) {
        return null;
    }

    const match = /^(Bearer +)?(\S+)$/i.exec(header.trim());
    return match && (match[1] || match[2].startsWith('svk_')) ? header.trim() : null;
}

const quoted = (text: string) => text.replace(/["\\]/g, '');

export interface McpAuthOptions {
    api: ApiClient;
    metadataUrl: string;                                        // the protected-resource metadata the challenge points at
    accessTokens: AccessTokenVerifier;                          // OAuth access tokens, with this server's resource in `aud`
    trust: ProxyTrust;                                          // TRUSTED_PROXIES in front of this server
}

export function mcpAuthScheme({ api, metadataUrl, accessTokens, trust }: McpAuthOptions): ServerAuthSchemeObject {
    const challenge = (h: ResponseToolkit, refusal: string | null) => {
        const attributes = refusal ? `error="invalid_token", error_description="${quoted(refusal)}", ` : '';
        const message = refusal ? `Unauthorized: ${refusal}` : 'Unauthorized: send Authorization: Bearer <token> (an API key, session token or OAuth access token)';
        return rpcRefusal(h, 401, message).header('www-authenticate', `Bearer ${attributes}resource_metadata="${metadataUrl}"`).takeover();
    };

    return {
        authenticate: async (request, h) => {
            const authorization = wellFormedAuthorization(request);
            if (!authorization) {
                return challenge(h, null);
            }

            const address = clientAddress(request, trust);
            let answer;
            try {
                const token = /^Bearer +(\S+)$/i.exec(authorization)?.[1];
                if (token && jwtType(token) === ACCESS_TOKEN_TYPE && !await accessTokens.verify(token)) {
                    return challenge(h, 'Invalid or expired access token');
                }

                answer = await api.introspect(authorization, address);
            }
            catch (err) {
                if (err instanceof ApiUnreachableError || err instanceof KeySourceError) {
                    return rpcRefusal(h, 502, err.message).takeover();
                }

                throw err;
            }

            const body = answer.body as Partial<McpIdentity & { message: string }> | null;
            if (answer.status === 401) {
                return challenge(h, typeof body?.message === 'string' ? body.message : 'The credential was refused');
            }

            if (answer.status === 403 && typeof body?.message === 'string') {
                return rpcRefusal(h, 403, body.message).takeover();    // the key's allow-list refused the caller's address
            }

            if (answer.status !== 200 || !body?.userId || !body.via || !body.credentialId) {
                return rpcRefusal(h, 502, `The platform API could not check the credential (it answered ${answer.status})`).takeover();
            }

            const identity: McpIdentity = {
                userId: body.userId,
                via: body.via,
                credentialId: body.credentialId,
                scopes: (body.scopes ?? []).filter(isScope),
                isAdmin: body.isAdmin === true
            };
            return h.authenticated({ credentials: { via: identity.via, credentialId: identity.credentialId, scopes: identity.scopes, pinnedProjects: null }, artifacts: { authorization, address, identity } satisfies McpCaller });
        }
    };
}
