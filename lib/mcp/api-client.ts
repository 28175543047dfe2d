import { isJsonContentType } from '@modelcontextprotocol/sdk/shared/mediaType.js';

import { JSON_TEXT_PAGES } from '../list-response';

// How the MCP server reaches this deployment's REST API: over HTTP to API_BASE_URL, or in-process through the API
// server's inject() when both share a process. One interface, so every caller is blind to which. The caller's
// Authorization header goes to that API and nowhere else: paths are relative to it and redirects are not followed.
// The caller's address travels with it: as X-Forwarded-For over HTTP (believed only when the API lists this server
// in TRUSTED_PROXIES), as the request's own address in-process (inject is this process's own word).

export interface ApiRequest {
    method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
    path: string;                                               // `/v1/...`, path parameters already encoded
    query?: Readonly<Record<string, string | number | undefined>>;
    body?: unknown;
    authorization: string;
    forwardedFor?: string | null;                               // the MCP caller's address, for the key's allow-list
    projectPin?: string | null;                                 // X-Project-Pin: the one project this call may reach
}

export interface ApiResponse {
    status: number;
    body: unknown;                                              // parsed JSON, or null for an empty body
    link: string | null;                                        // the Link header of a list page
    json?: string;                                              // the JSON text body was parsed from, when the client read one
}

export interface ApiClient {
    readonly baseUrl: string;
    request(request: ApiRequest): Promise<ApiResponse>;
    introspect(authorization: string, forwardedFor?: string | null): Promise<ApiResponse>;   // GET /v1/auth/introspect
    jwks(): Promise<ApiResponse>;                               // GET /.well-known/jwks.json: the keys of OAuth access tokens
}

export const JWKS_PATH = '/.well-known/jwks.json';

/** Where the API could not be asked at all (refused connection, timeout): distinct from any answer it gave. */
export class ApiUnreachableError extends Error { }

const TIMEOUT_MS = 15_000;

// Asks the API's list routes for a page as its JSON text (hapi copies the object into each request's plugins).
const TEXT_PAGES = { [JSON_TEXT_PAGES]: true };

export function relativeUrl(request: Pick<ApiRequest, 'path' | 'query'>): string {
    if (!request.path.startsWith('/v1/')) {
        throw new Error(`API paths start with /v1/: ${request.path}`);
    }

    const search = new URLSearchParams();
    for (const [name, value] of Object.entries(request.query ?? {})) {
        if (value !== undefined) {
            search.set(name, String(value));
        }
    }

    const query = search.toString();
    return query ? `${request.path}?${query}` : request.path;
}

/** A body and, when it was JSON, the text it was read from. */
function parseText(text: string, status: number): Pick<ApiResponse, 'body' | 'json'> {
    if (!text) {
        return { body: null };
    }

    try {
        return { body: JSON.parse(text), json: text };
    }
    catch {
        return { body: { statusCode: status, error: 'Unexpected response', message: 'The API answered with a body that is not JSON' } };
    }
}

export function httpApiClient(baseUrl: string): ApiClient {
    const origin = new URL(baseUrl);
    const send = async (method: string, relative: string, headers: Record<string, string>, body?: unknown): Promise<ApiResponse> => {
        const url = new URL(`${origin.pathname.replace(/\/$/, '')}${relative}`, origin);
        let response: Response;
        try {
            response = await fetch(url, {
                method,
                headers: { accept: 'application/json', ...headers, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
                ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
                redirect: 'manual',
                signal: AbortSignal.timeout(TIMEOUT_MS)
            });
        }
        catch (err) {
            const reason = (err as Error).name === 'TimeoutError' ? `no answer within ${TIMEOUT_MS / 1000} s` : 'the connection failed';
            throw new ApiUnreachableError(`The platform API at ${baseUrl} could not be reached: ${reason}`);
        }

        return { status: response.status, link: response.headers.get('link'), ...parseText(await response.text(), response.status) };
    };

    return {
        baseUrl,
        request: (request) => send(request.method, relativeUrl(request), {
            authorization: request.authorization, ...(request.forwardedFor ? { 'x-forwarded-for': request.forwardedFor } : {}),
            ...(request.projectPin ? { 'x-project-pin': request.projectPin } : {})
        }, request.body),
        introspect(authorization, forwardedFor) {
            return this.request({ method: 'GET', path: '/v1/auth/introspect', authorization, forwardedFor: forwardedFor ?? null });
        },
        jwks: () => send('GET', JWKS_PATH, {})
    };
}

/** What injectApiClient needs of a hapi server. */
export interface Injectable {
    inject(options: { method: string; url: string; headers: Record<string, string>; payload?: string; validate?: boolean; remoteAddress?: string; plugins?: Record<string, unknown> }): Promise<{ statusCode: number; payload: string; headers: Record<string, unknown>; result?: unknown }>;
}

/**
 * The API in this process. `introspect`, when given, is the auth plugin's own credential check: the answer of
 * GET /v1/auth/introspect without a request through hapi, which the MCP server asks on every request.
 */
export function injectApiClient(server: Injectable, baseUrl: string, introspect?: (authorization: string, ip: string | null) => Promise<{ status: number; body: unknown }>): ApiClient {
    return {
        baseUrl,
        async introspect(authorization, forwardedFor) {
            return introspect
                ? { ...await introspect(authorization, forwardedFor ?? null), link: null }
                : this.request({ method: 'GET', path: '/v1/auth/introspect', authorization, forwardedFor: forwardedFor ?? null });
        },
        async jwks() {
            const response = await server.inject({ method: 'GET', url: JWKS_PATH, headers: { accept: 'application/json' }, validate: false });
            return { status: response.statusCode, link: null, ...parseText(response.payload, response.statusCode) };
        },
        async request(request) {
            const headers: Record<string, string> = { accept: 'application/json', authorization: request.authorization, ...(request.projectPin ? { 'x-project-pin': request.projectPin } : {}) };
            if (request.body !== undefined) {
                headers['content-type'] = 'application/json';
            }

            // The options are built here and known to be valid: shot's schema check of them is skipped (validate). A list
            // page comes as the JSON text the database keeps (lib/list-response.ts), parsed here once.
            const response = await server.inject({
                method: request.method,
                url: relativeUrl(request),
                headers,
                validate: false,
                plugins: TEXT_PAGES,
                ...(request.forwardedFor ? { remoteAddress: request.forwardedFor } : {}),
                ...(request.body !== undefined ? { payload: JSON.stringify(request.body) } : {})
            });
            const link = response.headers.link;
            const answer = { status: response.statusCode, link: typeof link === 'string' ? link : null };
            const { result } = response;
            const contentType = response.headers['content-type'];
            if (typeof result === 'string' || result === undefined || result === null || !isJsonContentType(typeof contentType === 'string' ? contentType : null)) {
                return { ...answer, ...parseText(response.payload, response.statusCode) };
            }

            // hapi keeps the value it serialized into that JSON: no need to parse the payload back.
            return { ...answer, body: result, json: response.payload };
        }
    };
}
