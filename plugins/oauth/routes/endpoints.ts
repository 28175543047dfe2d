import * as Boom from '@hapi/boom';
import type { Lifecycle, Request } from '@hapi/hapi';
import Joi from 'joi';

import { origin } from '../../../lib/access';
import { OAUTH_SCOPES } from '../../../lib/oauth/scopes';
import type { SigningKeys } from '../../../lib/oauth/signing-keys';
import type { RouteHandlers } from '../../../lib/route-table';
import { errorResponse, noStore, OAuthError, presentedClient, required, singleParams, type Params } from '../protocol';
import { refusalPage } from '../refusal-page';
import type { AuthorizationsService } from '../services/authorizations';
import type { ClientRegistry, OAuthClient } from '../services/clients';
import type { TokensService } from '../services/tokens';

// The public endpoints of the authorization server: discovery (RFC 8414, the JWKS), authorize, token and revoke.
export interface EndpointDeps {
    issuer: string;
    keys: SigningKeys;
    clients: ClientRegistry;
    authorizations: AuthorizationsService;
    tokens: TokensService;
}

const AUTH_METHODS = ['client_secret_basic', 'client_secret_post', 'none'];

export function authorizationServerMetadata(issuer: string, documents: boolean) {
    return {
        issuer,
        authorization_endpoint: `${issuer}/v1/oauth/authorize`,
        token_endpoint: `${issuer}/v1/oauth/token`,
        revocation_endpoint: `${issuer}/v1/oauth/revoke`,
        jwks_uri: `${issuer}/.well-known/jwks.json`,
        response_types_supported: ['code'],
        response_modes_supported: ['query'],
        grant_types_supported: ['authorization_code', 'refresh_token'],
        code_challenge_methods_supported: ['S256'],
        token_endpoint_auth_methods_supported: AUTH_METHODS,
        revocation_endpoint_auth_methods_supported: AUTH_METHODS,
        scopes_supported: OAUTH_SCOPES,
        authorization_response_iss_parameter_supported: true,
        client_id_metadata_document_supported: documents,
        service_documentation: `${issuer}/docs/oauth`
    };
}

const anyParams = Joi.object().unknown(true).allow(null);
const formPayload = { defaultContentType: 'application/x-www-form-urlencoded', maxBytes: 16 * 1024 };

/** A form endpoint: its parameters and client, or an answer in the protocol's error shape. */
function formEndpoint(deps: EndpointDeps, act: (request: Request, params: Params, client: OAuthClient) => Promise<object | null>): Lifecycle.Method {
    return async (request, h) => {
        const usedBasic = /^Basic\b/i.test((request.headers.authorization as string | undefined ?? '').trim());
        try {
            const params = singleParams(request.payload);
            const client = await deps.clients.authenticate(presentedClient(request, params));
            const body = await act(request, params, client);
            return noStore(body ? h.response(body) : h.response().code(200));
        }
        catch (err) {
            if (err instanceof OAuthError) {
                return errorResponse(h, err, usedBasic);
            }

            throw err;
        }
    };
}

export function endpointRoutes(deps: EndpointDeps): RouteHandlers {
    const metadata = authorizationServerMetadata(deps.issuer, deps.clients.acceptsDocuments);
    return {
        'oauth.metadata': { handler: () => metadata },
        'oauth.jwks': { handler: async (_request, h) => h.response(await deps.keys.publicJwks()).header('cache-control', 'public, max-age=60') },
        'oauth.authorize': {
            validate: { query: anyParams },
            handler: async (request, h) => {
                const outcome = await deps.authorizations.start(request.query);
                return 'redirect' in outcome ? noStore(h.redirect(outcome.redirect)) : refusalPage(h, outcome.refusal);
            }
        },
        'oauth.token': {
            validate: { payload: anyParams },
            payload: formPayload,
            handler: formEndpoint(deps, async (request, params, client) => {
                switch (params.grant_type) {
                    case 'authorization_code': return deps.tokens.exchangeCode(client, params, origin(request));
                    case 'refresh_token': return deps.tokens.refresh(client, params, origin(request));
                    case undefined: throw new OAuthError('invalid_request', 'The parameter "grant_type" is required');
                    default: throw new OAuthError('unsupported_grant_type', 'The grant types are authorization_code and refresh_token');
                }
            })
        },
        'oauth.token.get': {
            handler: () => {
                throw Boom.methodNotAllowed('Token requests are POST requests with a form body', null, ['POST']);
            }
        },
        'oauth.revoke': {
            validate: { payload: anyParams },
            payload: formPayload,
            handler: formEndpoint(deps, async (request, params, client) => {
                await deps.tokens.revoke(client, required(params, 'token'), origin(request));
                return null;
            })
        }
    };
}
