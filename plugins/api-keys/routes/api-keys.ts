import Joi from 'joi';

import { access, origin } from '../../../lib/access';
import { listQuery } from '../../../lib/pagination';
import { respondWithPage } from '../../../lib/list-response';
import type { RouteHandlers } from '../../../lib/route-table';
import { expandScopes, type Scope } from '../../../lib/scopes';
import { fields } from '../../../lib/validation';
import type { ApiKeysService } from '../services/api-keys';
import { publicApiKey } from '../serializer';

// Scopes as the caller writes them, `<resource>:*` shorthands included; the key holds them expanded.
const scopes = Joi.array().items(Joi.string().max(64)).min(1).max(64).unique()
    .custom((value: string[], helpers) => {
        const { scopes: expanded, unknown } = expandScopes(value);
        return unknown.length ? helpers.message({ custom: `"scopes" contains unknown scope(s): ${unknown.join(', ')}` }) : expanded;
    })
    .messages({ 'array.unique': '"scopes" must not contain duplicates' });

export function apiKeyRoutes(service: ApiKeysService): RouteHandlers {
    return {
        'apiKeys.create': {
            validate: {
                payload: Joi.object({
                    name: fields.text(128).required(),
                    scopes: scopes.required(),
                    expiresAt: fields.dateTime().greater('now').allow(null).messages({ 'date.greater': '"expiresAt" must be in the future' })
                })
            },
            handler: async (request, h) => {
                const { token, apiKey } = await service.create(access(request).user.id, request.payload as { name: string; scopes: Scope[]; expiresAt?: Date | null }, origin(request));
                return h.response({ token, apiKey: publicApiKey(apiKey) }).code(201).header('cache-control', 'no-store');
            }
        },
        'apiKeys.list': {
            validate: { query: Joi.object(listQuery) },
            handler: async (request, h) => {
                const page = await service.list(access(request).user.id, request.query as { limit: number; cursor?: string });
                return respondWithPage(request, h, page, publicApiKey);
            }
        },
        'apiKeys.revoke': {
            validate: { params: Joi.object({ keyId: fields.id('key').required() }) },
            handler: async (request) => publicApiKey(await service.revoke(access(request).user.id, request.params.keyId as string, origin(request)))
        }
    };
}
