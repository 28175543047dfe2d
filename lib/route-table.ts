import * as Boom from '@hapi/boom';
import Hoek from '@hapi/hoek';
import Joi from 'joi';
import type { Lifecycle, NamedPlugin, RouteOptions, RouteOptionsPayload, RouteOptionsValidate, Server } from '@hapi/hapi';

import type { MultipartSpec } from './multipart';
import type { ResourceKind, RowLoader } from './resources/kinds';
import type { Permission, Role } from './roles';
import type { Scope } from './scopes';
import { fields, validationMessage, validationPreferences, type Whole } from './validation';

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
    form?: ReadonlyArray<ExamplePart>;                          // a multipart body, part by part (rows with body 'multipart')
    status?: number;                                            // the success status (default: 200, 201 for creates, 204 when noted)
}

/** One part of an example's multipart body: a JSON value, or a file given in base64. */
export interface ExamplePart {
    name: string;
    json?: unknown;
    filename?: string;
    contentType?: string;
    base64?: string;
}

/** What a route's body is: JSON, a urlencoded form, or multipart/form-data (uploads). */
export type BodyKind = 'json' | 'form' | 'multipart';

const BODY_TYPES: Readonly<Record<BodyKind, string>> = {
    json: 'application/json',
    form: 'application/x-www-form-urlencoded',
    multipart: 'multipart/form-data'
};

export interface RouteRow {
    id: string;
    method: Method;
    path: string;
    auth: AuthMode;
    scope?: Scope | null;
    policy?: RoutePolicy;
    description: string;
    example?: RouteExample;                                     // required to mount: the generated tests run from it
    body?: BodyKind;                                            // the content type a body may have (default json)
    secretOnce?: boolean;                                       // the answer shows a secret once: an Idempotency-Key is refused (400)
    rateLimit?: 'signIn' | 'signUp';                            // limited per client address instead of per credential (plugins/rate-limits)
}

/**
 * How the generated tests make a resource a route example names: a call to another route of the tables, made with
 * the owner's session; `value` is the path in its response body that names the fixture.
 */
export interface Fixture {
    route: string;                                              // '' for a seeded fixture
    /**
     * What no route makes (an invoice of a closed cycle, a campaign made with the CLI) is made by the tests' seeder of
     * this name (test/helpers/seeders.ts), through the family's own services; `value` is then unused.
     */
    seed?: string;
    params?: Readonly<Record<string, string>>;
    payload?: unknown;
    value: string;
    project?: boolean;                                          // the fixture is a project: the tests' viewer joins it as viewer
    until?: { field: string; equals: string };                  // a read to repeat until the field has the value (work done by jobs)
    by?: 'stranger';                                            // made by a fresh account, not the owner: `{strangerProject}` is its own project
    /**
     * The call invites the account its payload's `email` names (lib/invitations.ts): `value` is read from that
     * invitation in the account's list (`pending`), or from the answer to its acceptance, through the API (`accepted`).
     */
    invitation?: 'pending' | 'accepted';
}

export interface RouteTable {
    family: string;
    rows: readonly RouteRow[];
    kinds?: readonly ResourceKind[];                            // the resource kinds this table's paths name
    fixtures?: Readonly<Record<string, Fixture>>;               // how the generated tests make what its examples name
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
    multipart?: MultipartSpec;                                  // rows with body 'multipart': its parts, read by the access pipeline
}

export type RouteHandlers = Record<string, RouteHandler>;

/** What a typed handler's request carries: the validated params, query and payload its schemas describe. */
export interface Validated<P, Q, B> {
    Params: P;
    Query: Q;
    Payload: B;
}

export type Empty = Record<string, never>;

/**
 * A handler whose request is typed by its own schemas: `Joi.object<T, true>` checks that a schema covers exactly the
 * fields of T, and the handler receives `request.payload` as T, so no handler casts what validation produced.
 */
export function route<P extends object = Empty, Q extends object = Empty, B = null>(spec: {
    params?: Joi.ObjectSchema<P>;
    query?: Joi.ObjectSchema<Q>;
    payload?: Joi.Schema<B>;
    handler: Lifecycle.Method<Validated<P, Q, B>>;
    body?: RouteOptionsPayload;
    verify?: Lifecycle.Method;
    options?: RouteHandler['options'];
    multipart?: MultipartSpec;
}): RouteHandler {
    const validate: RouteOptionsValidate = {
        ...(spec.params ? { params: spec.params } : {}),
        ...(spec.query ? { query: spec.query } : {}),
        ...(spec.payload ? { payload: spec.payload } : {})
    };
    return {
        validate,
        handler: spec.handler as unknown as Lifecycle.Method,      // the one place the validated types meet hapi's defaults
        ...(spec.body ? { payload: spec.body } : {}),
        ...(spec.verify ? { verify: spec.verify } : {}),
        ...(spec.options ? { options: spec.options } : {}),
        ...(spec.multipart ? { multipart: spec.multipart } : {})
    };
}

/** A family plugin names the table it mounts, so the manifest knows every mounted row without starting a server. */
export interface FamilyPlugin<T> extends NamedPlugin<T> {
    table: RouteTable;
}

const paramPattern = /{(\w+)\??}/g;

export function pathParams(path: string): string[] {
    return [...path.matchAll(paramPattern)].map((match) => match[1]);
}

export function compileRow(row: RouteRow, kinds: readonly ResourceKind[]): CompiledRow {
    const mutation = row.method !== 'GET';
    const params = pathParams(row.path);
    // Kinds named by the path whose parents are named too (`{deploymentId}` under `{appName}` is an app's deployment);
    // the innermost of them is the resource, and its parents are resolved through it.
    // A kind named by a generic parameter (`/virtual-machines/{id}`) declares the prefix under which it is that kind.
    const present = (kind: ResourceKind): boolean => params.includes(kind.param) && (!kind.under || row.path.startsWith(`/v1${kind.under}/`)) &&
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

/**
 * Mounts every row of a table with its handler (see pairHandlers), after registering the table's resource kinds with
 * the access pipeline; `loaders` turn each kind's loaded row into the family's model.
 */
export function bindRoutes(server: Server, table: RouteTable, handlers: RouteHandlers, loaders: Readonly<Record<string, RowLoader>> = {}): void {
    const auth = server.plugins['hostless-auth'];
    Hoek.assert(auth, 'Register the hostless-auth plugin before the', table.family, 'plugin: its routes need the access pipeline');
    auth.register(table.kinds ?? [], loaders);

    for (const [row, route] of pairHandlers(table, handlers)) {
        Hoek.assert(row.auth !== 'webhook' || route.verify, 'Webhook route', row.id, 'needs a verify method');
        Hoek.assert(row.example, 'Route', row.id, 'has no example: the generated security tests need one before it is mounted');
        Hoek.assert(!route.multipart || row.body === 'multipart', 'Route', row.id, 'declares multipart parts but its body is not multipart');

        const compiled = compileRow(row, auth.kinds());
        const credentialed = row.auth !== 'public' && row.auth !== 'webhook';

        server.route({
            method: row.method,
            path: row.path,
            options: {
                id: row.id,
                description: row.description,
                auth: credentialed ? { strategy: auth.strategy, mode: 'required' } : false,
                plugins: { platform: compiled, ...(route.multipart ? { multipart: route.multipart } : {}) },
                ...(row.method === 'GET' ? {} : { payload: payloadOptions(row.body ?? 'json', route.multipart ? { output: 'stream', parse: false, maxBytes: route.multipart.maxBytes, ...route.payload } : route.payload) }),
                validate: validateOptions(compiled, route.validate, !!route.multipart),
                ...(route.verify ? { pre: [{ method: route.verify }] } : {}),
                ...route.options,
                handler: route.handler
            }
        });
    }
}

const noBody = Joi.object({}).allow(null);
const projectIdField = fields.projectId();
const sources = ['headers', 'params', 'query', 'payload', 'state'] as const;
type Source = typeof sources[number];
const wholes: Record<Source, Whole> = {
    headers: 'The headers', params: 'The path', query: 'The query string', payload: 'The request body', state: 'The cookies'
};

function withoutRequestOptions(schema: Joi.Schema): Joi.Schema {
    const validateAsync = schema.validateAsync.bind(schema);
    return Object.assign(schema, { validateAsync: (value: unknown) => validateAsync(value) });
}

// Validation failures name the offending field (never its value); a route that takes no body accepts only an
// empty one, and unknown keys are refused everywhere (joi's default for objects). Preferences are bound to each
// schema once here: passed as per-request options, joi would compile its message templates on every request.
// hapi passes options anyway (its context, which no schema here reads), and with any options joi merges a schema's
// bound preferences again, messages included, on every request; validated without them it merges them once and
// keeps the result. So each bound schema validates what hapi hands it without hapi's options.
function validateOptions(row: CompiledRow, validate: RouteOptionsValidate | undefined, streamed: boolean): RouteOptionsValidate {
    // A streamed multipart body (the row declares its parts) is read and validated by the access pipeline (lib/multipart.ts).
    const merged: RouteOptionsValidate = { ...(row.method === 'GET' || streamed ? {} : { payload: noBody }), ...validate };
    if (row.compiled.project === 'query') {
        const query = merged.query;
        merged.query = Joi.isSchema(query) ? (query as Joi.ObjectSchema).keys({ projectId: projectIdField }) : Joi.object({ projectId: projectIdField });
    }

    for (const source of sources) {
        const schema = merged[source];
        if (Joi.isSchema(schema)) {
            (merged as Record<string, unknown>)[source] = withoutRequestOptions(schema.prefs(validationPreferences));
        }
    }

    return {
        ...merged,
        failAction: (_request, _h, err) => {
            // hapi boomifies joi's error in place, noting which part of the request failed
            const source = (err as { output?: { payload: { validation?: { source: Source } } } }).output?.payload.validation?.source;
            throw Boom.badRequest(err instanceof Joi.ValidationError && source
                ? validationMessage(err, wholes[source], { change: row.method === 'PATCH' })
                : 'The request is not valid');
        }
    };
}

// A body of another content type is refused with 415 saying which one to send; other payload errors pass as they are.
function payloadOptions(body: BodyKind, custom: RouteOptionsPayload | undefined): RouteOptionsPayload {
    const allow = BODY_TYPES[body];
    const unsupported = `The request body must be ${allow}: send it with the header Content-Type: ${allow}`;
    return {
        allow,
        maxBytes: 1024 * 1024,
        protoAction: 'error',
        failAction: (_request, _h, err) => {
            throw Boom.isBoom(err, 415) ? Boom.unsupportedMediaType(unsupported) : err ?? Boom.badRequest('The request body could not be read');
        },
        ...custom
    };
}

/** A key-mode row, the shape of almost every spec route: `/v1` is prepended to the spec's path. */
export function keyRoute(id: string, method: Method, path: string, scope: Scope, description: string, extra: Partial<RouteRow> = {}): RouteRow {
    return { id, method, path: `/v1${path}`, auth: 'key', scope, description, ...extra };
}
