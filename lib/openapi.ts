import type { RequestRoute, Server } from '@hapi/hapi';
import Joi from 'joi';
import OpenApiParser from 'joi-to-json/lib/parsers/open-api-3.1';

import type { MultipartSpec } from './multipart';
import type { BodyKind, CompiledRow } from './route-table';
import { SCOPES } from './scopes';

// The OpenAPI 3.1 document of the API, derived from what the server mounts: each route's table row (id, auth mode,
// scope, policy, description, example) and the Joi schemas hapi validates its path, query and body with, converted by
// joi-to-json. Written once in the tables, derived here: a route added to a table appears in the document.

type JsonSchema = Record<string, unknown>;

interface DescribedRule {
    name: string;
    args?: { regex?: string; options?: { invert?: boolean } };
}

interface DescribedString {
    rules?: DescribedRule[];
}

// joi-to-json writes an inverted pattern (`Joi.string().pattern(re, { invert: true })`: must NOT match) as a plain
// `pattern`, which says the opposite; such a rule becomes `not: { pattern }` here.
class Parser extends OpenApiParser {
    override _setStringFieldProperties(schema: JsonSchema, described: unknown): void {
        const defn = described as DescribedString;
        const inverted = (defn.rules ?? []).filter((rule) => rule.name === 'pattern' && rule.args?.options?.invert);
        super._setStringFieldProperties(schema, inverted.length ? { ...defn, rules: defn.rules!.filter((rule) => !inverted.includes(rule)) } : defn);
        const nots = inverted.map((rule) => ({ pattern: String(rule.args!.regex).replace(/^\//, '').replace(/\/[a-z]*$/, '') }));
        if (nots.length === 1) {
            schema.not = nots[0];
        }
        else if (nots.length) {
            schema.not = { anyOf: nots };
        }
    }
}

const parser = new Parser();

export function jsonSchema(schema: Joi.Schema): JsonSchema {
    return parser.parse(schema.describe(), {});
}

const BODY_TYPES: Readonly<Record<BodyKind, string>> = {
    json: 'application/json',
    form: 'application/x-www-form-urlencoded',
    multipart: 'multipart/form-data'
};

const ERROR_STATUSES: Readonly<Record<number, string>> = {
    400: 'A header, path parameter, query parameter or body field is not valid; the message names it (never its value).',
    401: 'No credential, or one that is not valid (unknown, expired, revoked); carries `WWW-Authenticate: Bearer`.',
    403: 'The credential lacks the scope, the auth mode, the project role or the collaborator permission the route needs.',
    404: 'The project or the named resource does not exist, or is in no project the caller can reach.',
    409: 'The change conflicts with the current state (a taken name, a limit, a missing connection), or the first request with the same `Idempotency-Key` is still being answered.',
    413: 'The body is too large.',
    415: 'The body is not of the content type the route takes.',
    422: 'The `Idempotency-Key` was used before on this route with another body.',
    429: 'Too many requests: the credential\'s limit (`RATE_LIMIT_CREDENTIAL`) or, for sign-in and sign-up, the client address\'s; `Retry-After` says in how many seconds to try again.',
    503: 'The service cannot answer now (the database is unreachable or migrations are running, for `/readyz`).'
};

const AUTH_TEXT: Readonly<Record<CompiledRow['auth'], string>> = {
    key: 'An API key, a session token or an OAuth token; API keys and OAuth tokens need the scope listed.',
    session: 'A user session token (JWT) only: API keys and OAuth tokens are refused with 403.',
    admin: 'The session token (JWT) of a platform admin only.',
    public: 'No credential.',
    webhook: 'No credential: the provider\'s signature is checked (401 otherwise).'
};

/** What the document needs to know of a route beyond its table row. */
export interface OpenApiRoute {
    row: CompiledRow;
    validate: { params?: unknown; query?: unknown; payload?: unknown; headers?: unknown };
    multipart: MultipartSpec | null;
    idempotent: boolean;                                        // takes an Idempotency-Key header
}

export interface OpenApiOptions {
    title: string;
    version: string;
    serverUrl: string;
}

/** The routes of a server that come from a table row (every mounted route does; see lib/spec-routes.ts). */
export function openApiRoutes(server: Server, idempotent: (row: CompiledRow) => boolean = () => false): OpenApiRoute[] {
    return server.table().flatMap((route: RequestRoute) => {
        const row = route.settings.plugins?.platform;
        return row ? [{ row, validate: (route.settings.validate ?? {}), multipart: route.settings.plugins?.multipart ?? null, idempotent: idempotent(row) }] : [];
    });
}

const schemaOf = (value: unknown): JsonSchema | null => Joi.isSchema(value) ? jsonSchema(value as Joi.Schema) : null;

function parameters(schema: JsonSchema | null, where: 'path' | 'query' | 'header'): JsonSchema[] {
    const properties = (schema?.properties ?? {}) as Record<string, JsonSchema>;
    const required = new Set((schema?.required ?? []) as string[]);
    return Object.entries(properties).map(([name, property]) => {
        const { description, ...rest } = property;
        return {
            name, in: where, required: where === 'path' || required.has(name),
            ...(description ? { description } : {}),
            schema: rest
        };
    });
}

function requestBody(route: OpenApiRoute): JsonSchema | null {
    const { row } = route;
    if (row.method === 'GET') {
        return null;
    }

    const type = BODY_TYPES[row.body ?? 'json'];
    if (route.multipart) {
        const { body, file } = route.multipart;
        const properties: Record<string, JsonSchema> = { [file]: { type: 'string', contentMediaType: 'application/octet-stream', description: 'The file.' } };
        if (body) {
            properties[body.part] = { ...jsonSchema(body.schema), description: 'A JSON part.' };
        }

        return { required: true, content: { [type]: { schema: { type: 'object', properties, required: [file] }, encoding: body ? { [body.part]: { contentType: 'application/json' } } : {} } } };
    }

    const schema = schemaOf(route.validate.payload);
    const empty = !schema || (schema.type === 'object' || (Array.isArray(schema.type) && schema.type.includes('object'))) && !Object.keys(schema.properties as object ?? {}).length && !schema.anyOf && !schema.oneOf;
    return empty ? null : { required: true, content: { [type]: { schema } } };
}

function successStatus(row: CompiledRow): number {
    const example = row.example?.status;
    return example && example < 300 ? example : row.method === 'POST' && row.compiled.create ? 201 : 200;
}

function responses(route: OpenApiRoute, hasInput: boolean, body: JsonSchema | null): Record<string, JsonSchema> {
    const { row } = route;
    const status = successStatus(row);
    const list = row.method === 'GET' && !!((schemaOf(route.validate.query)?.properties ?? {}) as Record<string, unknown>).cursor;
    const replayed = route.idempotent ? { 'Idempotent-Replayed': { description: '`true` when this is the stored answer of an earlier request with the same `Idempotency-Key`.', schema: { type: 'string', enum: ['true'] } } } : null;
    const ok: JsonSchema = status === 204
        ? { description: 'Done; no body.' }
        : list
            ? {
                description: 'A page of the list, as a JSON array; when more remain, the `Link` header names the next page (`rel="next"`).',
                headers: { Link: { description: '`<next page URL>; rel="next"` when more remain.', schema: { type: 'string' } } },
                content: { 'application/json': { schema: { type: 'array', items: {} } } }
            }
            : { description: row.description, ...(replayed ? { headers: replayed } : {}), content: { 'application/json': { schema: {} } } };

    const errors = new Set<number>();
    if (hasInput) {
        errors.add(400);
    }

    if (row.auth !== 'public') {
        errors.add(401);
    }

    if (row.auth === 'key' || row.auth === 'session' || row.auth === 'admin') {
        errors.add(403);
    }

    if (row.compiled.project || row.compiled.resource) {
        errors.add(404);
    }

    if (row.compiled.mutation && row.compiled.project) {
        errors.add(409);
    }

    if (body) {
        errors.add(413).add(415);
    }

    if (route.idempotent) {
        errors.add(400).add(409).add(422);
    }

    if (row.id === 'health.ready') {
        errors.add(503);
    }

    // plugins/rate-limits: per credential on every route a credential opens, per client address where the row says so.
    if (row.rateLimit || row.auth === 'key' || row.auth === 'session' || row.auth === 'admin') {
        errors.add(429);
    }

    const answer: Record<string, JsonSchema> = { [status]: ok };
    for (const code of [...errors].sort()) {
        answer[code] = {
            description: ERROR_STATUSES[code],
            ...(code === 429 ? { headers: { 'Retry-After': { description: 'Seconds until the limit\'s window starts again.', schema: { type: 'string' } } } } : {}),
            content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } }
        };
    }

    return answer;
}

function security(row: CompiledRow): JsonSchema[] {
    switch (row.auth) {
        case 'key':
            return [{ bearer: row.scope ? [row.scope] : [] }];
        case 'session':
        case 'admin':
            return [{ session: [] }];
        default:
            return [];
    }
}

function operation(route: OpenApiRoute): JsonSchema {
    const { row } = route;
    const params = parameters(schemaOf(route.validate.params), 'path');
    const query = parameters(schemaOf(route.validate.query), 'query');
    const body = requestBody(route);
    const header = route.idempotent
        ? [{
            name: 'Idempotency-Key', in: 'header', required: false,
            description: 'Sent again within 24 hours with the same body, answers the first response again; with another body, 422.',
            schema: { type: 'string', minLength: 1, maxLength: 255 }
        }]
        : [];
    const family = row.id.split('.')[0];
    return {
        operationId: row.id,
        summary: row.description,
        description: `${AUTH_TEXT[row.auth]}${row.auth === 'key' ? ` Scope: ${row.scope ?? 'none (any live credential)'}.` : ''}`,
        tags: [family],
        security: security(row),
        'x-hostless-auth': row.auth,
        ...(row.auth === 'key' ? { 'x-hostless-scope': row.scope ?? null } : {}),
        ...(params.length || query.length || header.length ? { parameters: [...params, ...query, ...header] } : {}),
        ...(body ? { requestBody: body } : {}),
        responses: responses(route, params.length + query.length > 0 || !!body, body)
    };
}

/** The OpenAPI 3.1 document of the given routes. */
export function openApiDocument(routes: readonly OpenApiRoute[], options: OpenApiOptions): JsonSchema {
    const paths: Record<string, Record<string, JsonSchema>> = {};
    for (const route of [...routes].sort((a, b) => a.row.path.localeCompare(b.row.path) || a.row.method.localeCompare(b.row.method))) {
        const path = route.row.path.replace(/{(\w+)\?}/g, '{$1}');
        (paths[path] ??= {})[route.row.method.toLowerCase()] = operation(route);
    }

    return {
        openapi: '3.1.0',
        info: {
            title: options.title,
            version: options.version,
            description: 'Generated from the route tables and the routes\' Joi schemas. `x-hostless-auth` is each route\'s auth mode and `x-hostless-scope` the scope an API key or OAuth token needs.'
        },
        servers: [{ url: options.serverUrl }],
        paths,
        components: {
            securitySchemes: {
                bearer: {
                    type: 'http', scheme: 'bearer',
                    description: `An API key (hl_...), an OAuth access token or a session token (JWT). Keys and OAuth tokens carry scopes: ${SCOPES.join(', ')}.`
                },
                session: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'A user session token from POST /v1/auth/login.' }
            },
            schemas: {
                Error: {
                    type: 'object',
                    required: ['statusCode', 'error', 'message'],
                    properties: {
                        statusCode: { type: 'integer' },
                        error: { type: 'string' },
                        message: { type: 'string', description: 'What was wrong, in a sentence.' }
                    }
                }
            }
        }
    };
}
