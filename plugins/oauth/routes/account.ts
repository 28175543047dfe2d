import Joi from 'joi';

import { access, origin } from '../../../lib/access';
import { respondWithPage } from '../../../lib/list-response';
import { MAX_REDIRECT_URI_LENGTH, redirectUriProblem } from '../../../lib/oauth/redirect-uri';
import { listQuery } from '../../../lib/pagination';
import type { RouteHandlers } from '../../../lib/route-table';
import { fields } from '../../../lib/validation';
import { connectedApp, publicClient } from '../serializers';
import type { AuthorizationsService } from '../services/authorizations';
import type { GrantsService } from '../services/grants';
import type { RegisteredClientsService } from '../services/registered-clients';

// The signed-in user's side (session only): the consent screen's two calls, their OAuth clients, and their connected
// AI apps.
export interface AccountDeps {
    authorizations: AuthorizationsService;
    clients: RegisteredClientsService;
    grants: GrantsService;
}

const redirectUri = Joi.string().max(MAX_REDIRECT_URI_LENGTH).custom((value: string, helpers) => {
    const problem = redirectUriProblem(value);
    return problem ? helpers.message({ custom: `Each redirect URI ${problem}` }) : value;
});

const authorizationParams = Joi.object({ authorizationId: fields.id('oaz').required() });

export function accountRoutes(deps: AccountDeps): RouteHandlers {
    return {
        'oauth.authorizations.get': {
            validate: { params: authorizationParams },
            handler: (request, h) => deps.authorizations.describe(request.params.authorizationId as string, access(request).user.id)
                .then((description) => h.response(description).header('cache-control', 'no-store'))
        },
        'oauth.authorizations.decide': {
            validate: {
                params: authorizationParams,
                payload: Joi.object({
                    decision: Joi.string().valid('allow', 'deny').required(),
                    projects: Joi.array().items(fields.projectId()).min(1).max(100).unique().allow(null)
                        .messages({ 'array.unique': '"projects" must not contain duplicates' })
                })
            },
            handler: (request, h) => deps.authorizations.decide(request.params.authorizationId as string, access(request).user.id, request.payload as { decision: 'allow' | 'deny'; projects?: string[] | null })
                .then((answer) => h.response(answer).header('cache-control', 'no-store'))
        },
        'oauthClients.list': {
            validate: { query: Joi.object(listQuery) },
            handler: async (request, h) => respondWithPage(request, h, await deps.clients.list(access(request).user.id, request.query as { limit: number; cursor?: string }), publicClient)
        },
        'oauthClients.create': {
            validate: {
                payload: Joi.object({
                    name: fields.text(128).required(),
                    redirectUris: Joi.array().items(redirectUri).min(1).max(10).unique().required()
                        .messages({ 'array.unique': '"redirectUris" must not contain duplicates' })
                })
            },
            handler: async (request, h) => {
                const { client, secret } = await deps.clients.create(access(request).user.id, request.payload as { name: string; redirectUris: string[] }, origin(request));
                return h.response({ client: publicClient(client), clientSecret: secret }).code(201).header('cache-control', 'no-store');
            }
        },
        'oauthClients.delete': {
            validate: { params: Joi.object({ clientId: fields.id('svoc').required() }) },
            handler: async (request) => publicClient(await deps.clients.remove(access(request).user.id, request.params.clientId as string, origin(request)))
        },
        'connectedApps.list': {
            validate: { query: Joi.object(listQuery) },
            handler: async (request, h) => respondWithPage(request, h, await deps.grants.list(access(request).user.id, request.query as { limit: number; cursor?: string }), connectedApp)
        },
        'connectedApps.revoke': {
            validate: { params: Joi.object({ grantId: fields.id('ogr').required() }) },
            handler: async (request) => connectedApp(await deps.grants.revokeByUser(access(request).user.id, request.params.grantId as string, origin(request)))
        }
    };
}
