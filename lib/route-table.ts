import * as Boom from '@hapi/boom';
import Hoek from '@hapi/hoek';
import Joi from 'joi';
import type { Lifecycle, NamedPlugin, RouteOptions, RouteOptionsPayload, RouteOptionsValidate, Server } from '@hapi/hapi';

import type { ResourceKind } from './resources';
import type { Permission, Role } from './roles';
import type { Scope } from './scopes';
import { fields, validationMessages } from './validation';

// A route is a line of data: its id, method, path, auth mode, scope, policy and an example. Families bind handlers
// to their table with bindRoutes(); the access pipeline reads the compiled row from route.settings.plugins.platform.

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/**
 * key: API key, session JWT or OAuth token, with `scope` (null: any live credential, no scope).
 * session: session JWT only. admin: session JWT of a platform admin. public: no credential.
 * webhook: no credential; the handler's `verify` checks the provider's signature (401 otherwise).
 */
export type AuthMode = 'key' | 'session' | 'admin' | 'public' | 'webhook';

export interface RoutePolicy {
    project?: 'path' | 'query' | 'body';                        // where the projectId comes from (path is inferred)
    resource?: string;                                          // the named resource kind (inferred from path params)
    role?: Role;                                                // least project role (default: viewer reads, developer writes)
    collaborator?: Permission;                                  // what a collaborator needs (default: view reads, manage writes)
    collaboratorFor?: Readonly<Record<string, Permission>>;     // a weaker need when the body holds only these fields
    create?: boolean;                                           // a create: keys and OAuth tokens must send projectId
}

/** How the generated tests call a route: fixtures to make first, then the request. `{name}` strings are filled in. */
export interface RouteExample {
    setup?: readonly string[];
    params?: Readonly<Record<string, string>>;
    query?: Readonly<Record<string, string | number>>;
    payload?: unknown;
    status?: number;                                            // the success status (default: 200, 201 for creates, 204 when noted)
}

export interface RouteRow {
    id: string;
    method: Method;
    path: string;
    auth: AuthMode;
    scope?: Scope | null;
    policy?: RoutePolicy;
    description: string;
    example?: RouteExample;                                     // required to mount: the generated tests run from it
    body?: 'json' | 'form';                                     // the content type a body may have (default json)
}

export interface RouteTable {
    family: string;
    rows: readonly RouteRow[];
}

export interface CompiledPolicy {
    project: 'path' | 'query' | 'body' | null;
    resource: string | null;
    role: Role;
    collaborator: Permission;
    collaboratorFor: Readonly<Record<string, Permission>> | null;
    create: boolean;
    mutation: boolean;
}

export interface CompiledRow extends RouteRow {
    compiled: CompiledPolicy;
}

export interface RouteHandler {
    handler: Lifecycle.Method;
    validate?: RouteOptionsValidate;
    payload?: RouteOptionsPayload;
    verify?: Lifecycle.Method;                                  // webhook rows: signature check before the handler
    options?: Pick<RouteOptions, 'timeout' | 'cache' | 'response'>;
}

export type RouteHandlers = Record<string, RouteHandler>;

/** A family plugin names the table it mounts, so the manifest knows every mounted row without starting a server. */
export interface FamilyPlugin<T> extends NamedPlugin<T> {
    table: RouteTable;
}

const paramPattern = /{(\w+)\??}/g;

export function pathParams(path: string): string[] {
    return [...path.matchAll(paramPattern)].map((match) => match[1]!);
}

export function compileRow(row: RouteRow, kinds: readonly ResourceKind[]): CompiledRow {
    const mutation = row.method !== 'GET';
    const params = pathParams(row.path);
    // Kinds named by the path whose parents are named too (`{deploymentId}` under `{appName}` is an app's deployment);
    // the innermost of them is the resource, and its parents are resolved through it.
    const present = (kind: ResourceKind): boolean => params.includes(kind.param) &&
        (!kind.parent || present(kinds.find((other) => other.kind === kind.parent!.kind)!));
    const named = kinds.filter((kind) => kind.kind !== 'project' && present(kind));
    const inferred = named.find((kind) => !named.some((other) => other.parent?.kind === kind.kind));
    const resource = row.policy?.resource ?? inferred?.kind ?? null;
    // A named resource may be asked for with `?projectId=`: the pipeline answers 403 when it names another project.
    const project = row.policy?.project ?? (params.includes('projectId') ? 'path' : resource ? 'query' : null);

    Hoek.assert(row.auth !== 'key' || row.scope !== undefined, 'Route', row.id, 'uses auth mode key and must declare a scope (null for none)');
    Hoek.assert(row.auth === 'key' || row.scope === undefined, 'Route', row.id, 'declares a scope but its auth mode', row.auth, 'ignores scopes');
    Hoek.assert(!resource || kinds.some((kind) => kind.kind === resource), 'Route', row.id, 'names an unknown resource kind', resource);
    Hoek.assert(!row.policy?.create || project === 'body', 'Route', row.id, 'is a create and must take its projectId from the body');

    return {
        ...row,
        compiled: {
            project,
            resource,
            role: row.policy?.role ?? (mutation ? 'developer' : 'viewer'),
            collaborator: row.policy?.collaborator ?? (mutation ? 'manage' : 'view'),
            collaboratorFor: row.policy?.collaboratorFor ?? null,
            create: row.policy?.create ?? false,
            mutation
        }
    };
}

/** Each row of a table with its handler; a row without a handler, or a handler without a row, stops the boot. */
export function pairHandlers<H>(table: RouteTable, handlers: Readonly<Record<string, H>>): Array<[RouteRow, H]> {
    const ids = new Set(table.rows.map((row) => row.id));
    for (const id of Object.keys(handlers)) {
        Hoek.assert(ids.has(id), 'Handler', id, 'has no row in the', table.family, 'route table');
    }

    return table.rows.map((row) => {
        const handler = handlers[row.id];
        Hoek.assert(handler, 'Route', row.id, 'of the', table.family, 'table has no handler');
        return [row, handler];
    });
}

/** Mounts every row of a table with its handler (see pairHandlers). */
export function bindRoutes(server: Server, table: RouteTable, handlers: RouteHandlers): void {
    const auth = server.plugins['hostless-auth'];
    Hoek.assert(auth, 'Register the hostless-auth plugin before the', table.family, 'plugin: its routes need the access pipeline');

    for (const [row, route] of pairHandlers(table, handlers)) {
        Hoek.assert(row.auth !== 'webhook' || route.verify, 'Webhook route', row.id, 'needs a verify method');
        Hoek.assert(row.example, 'Route', row.id, 'has no example: the generated security tests need one before it is mounted');

        const compiled = compileRow(row, auth.kinds);
        const credentialed = row.auth !== 'public' && row.auth !== 'webhook';

        server.route({
            method: row.method,
            path: row.path,
            options: {
                id: row.id,
                description: row.description,
                auth: credentialed ? { strategy: auth.strategy, mode: 'required' } : false,
                plugins: { platform: compiled },
                ...(row.method === 'GET' ? {} : { payload: payloadOptions(row.body ?? 'json', route.payload) }),
                validate: validateOptions(compiled, route.validate),
                ...(route.verify ? { pre: [{ method: route.verify }] } : {}),
                ...route.options,
                handler: route.handler
            }
        });
    }
}

const noBody = Joi.object({}).allow(null);
const projectIdField = fields.projectId();
const preferences = { messages: validationMessages, errors: { wrap: { label: '"' as const } } };
const sources = ['headers', 'params', 'query', 'payload', 'state'] as const;

// Validation failures name the offending field (never its value); a route that takes no body accepts only an
// empty one, and unknown keys are refused everywhere (joi's default for objects). Preferences are bound to each
// schema once here: passed as per-request options, joi would compile its message templates on every request.
function validateOptions(row: CompiledRow, validate: RouteOptionsValidate | undefined): RouteOptionsValidate {
    const merged: RouteOptionsValidate = { ...(row.method === 'GET' ? {} : { payload: noBody }), ...validate };
    if (row.compiled.project === 'query') {
        const query = merged.query;
        merged.query = Joi.isSchema(query) ? (query as Joi.ObjectSchema).keys({ projectId: projectIdField }) : Joi.object({ projectId: projectIdField });
    }

    for (const source of sources) {
        const schema = merged[source];
        if (Joi.isSchema(schema)) {
            (merged as Record<string, unknown>)[source] = schema.prefs(preferences);
        }
    }

    return {
        ...merged,
        failAction: (_request, _h, err) => {
            const detail = (err as { details?: Array<{ message: string }> } | undefined)?.details?.[0]?.message;
            throw Boom.badRequest(detail ?? 'Invalid request input');
        }
    };
}

function payloadOptions(body: 'json' | 'form', custom: RouteOptionsPayload | undefined): RouteOptionsPayload {
    const allow = body === 'form' ? 'application/x-www-form-urlencoded' : 'application/json';
    return { allow, maxBytes: 1024 * 1024, protoAction: 'error', ...custom };
}

/** A key-mode row, the shape of almost every spec route: `/v1` is prepended to the spec's path. */
export function keyRoute(id: string, method: Method, path: string, scope: Scope, description: string, extra: Partial<RouteRow> = {}): RouteRow {
    return { id, method, path: `/v1${path}`, auth: 'key', scope, description, ...extra };
}
