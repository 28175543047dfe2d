import Joi from 'joi';

import { access, origin } from '../../../lib/access';
import { MAX_RANGES, parseRange } from '../../../lib/address-ranges';
import { listQuery } from '../../../lib/pagination';
import { respondWithPage } from '../../../lib/list-response';
import type { RouteHandlers } from '../../../lib/route-table';
import { expandScopes, type Scope } from '../../../lib/scopes';
import { fields } from '../../../lib/validation';
import type { ApiKeysService } from '../services/api-keys';
import { MAX_OVERLAP_SECONDS, type KeyExtrasService } from '../services/key-extras';
import { publicApiKey } from '../serializer';

// Scopes as the caller writes them, `<resource>:*` shorthands included; the key holds them expanded.
const scopes = Joi.array().items(Joi.string().max(64)).min(1).max(64).unique()
    .custom((value: string[], helpers) => {
        const { scopes: expanded, unknown } = expandScopes(value);
        return unknown.length ? helpers.message({ custom: `"scopes" contains unknown scope(s): ${unknown.join(', ')}` }) : expanded;
    })
    .messages({ 'array.unique': '"scopes" must not contain duplicates' });

// An address range as the user wrote it, kept in canonical form; the 400 names the entry by its place in the list.
const range = Joi.string().max(64).custom((value: string, helpers) => {
    const checked = parseRange(value);
    return 'range' in checked ? checked.range : helpers.message({ custom: `"${helpers.state.path?.join('.').replace(/\.(\d+)$/, '[$1]') ?? 'allowedCidrs'}" ${checked.problem}` });
});

const keyParams = Joi.object({ keyId: fields.id('key').required() });

export function apiKeyRoutes(service: ApiKeysService, extras: KeyExtrasService): RouteHandlers {
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
            validate: { params: keyParams },
            handler: async (request) => publicApiKey(await service.revoke(access(request).user.id, request.params.keyId as string, origin(request)))
        },
        'apiKeys.roll': {
            validate: {
                params: keyParams,
                payload: Joi.object({ overlapSeconds: Joi.number().integer().min(0).max(MAX_OVERLAP_SECONDS).required() })
                    .messages({ 'number.max': `"overlapSeconds" must be at most ${MAX_OVERLAP_SECONDS} (30 days)` })
            },
            handler: async (request, h) => {
                const { overlapSeconds } = request.payload as { overlapSeconds: number };
                const rolled = await extras.roll(access(request).user.id, request.params.keyId as string, overlapSeconds, origin(request));
                return h.response({ token: rolled.token, apiKey: publicApiKey(rolled.apiKey), previousTokenExpiresAt: rolled.previousTokenExpiresAt }).header('cache-control', 'no-store');
            }
        },
        'apiKeys.policy': {
            validate: { params: keyParams },
            handler: async (request) => extras.policy(access(request).user.id, request.params.keyId as string)
        },
        'apiKeys.policy.update': {
            validate: {
                params: keyParams,
                payload: Joi.object({
                    allowedCidrs: Joi.array().items(range).max(MAX_RANGES).unique(),
                    overlap: Joi.valid(null).messages({ 'any.only': '"overlap" can only be set to null, which ends the overlap now' })
                }).min(1)
            },
            handler: async (request) => extras.updatePolicy(access(request).user.id, request.params.keyId as string, request.payload as { allowedCidrs?: string[]; overlap?: null }, origin(request))
        },
        'apiKeys.health': {
            validate: { query: Joi.object(listQuery) },
            handler: async (request, h) => respondWithPage(request, h, await extras.health(access(request).user.id, request.query as { limit: number; cursor?: string }), (item) => item)
        }
    };
}
