import * as Boom from '@hapi/boom';
import Hoek from '@hapi/hoek';
import type { Lifecycle, Request, ResponseObject, ResponseToolkit, RouteOptions, RouteOptionsPayload, Server } from '@hapi/hapi';
import type { Server as McpServer } from '@modelcontextprotocol/sdk/server/index.js';

import { pairHandlers, type RouteTable } from '../route-table';
import { JsonResponseTransport, rpcError, UNSUPPORTED_MEDIA_TYPE } from './json-transport';
import type { RevisionProfile } from './revision';

// MCP over streamable HTTP inside hapi, stateless: every POST gets a new SDK Server and a new transport. hapi parses
// the JSON body and owns the response (security headers, logs); the transport (json-transport.ts) gets the headers
// the protocol reads and the parsed message, and answers with plain JSON (no event stream). The caller's
// Authorization header is not handed to the SDK: tools receive the credential from the route, nothing else does.

/** Serves one JSON-RPC POST with a server built for this request alone. */
export async function serveMcp(request: Request, h: ResponseToolkit, server: McpServer, profile: RevisionProfile): Promise<ResponseObject> {
    const transport = new JsonResponseTransport(profile);
    await server.connect(transport);
    const header = (name: string) => {
        const value = request.headers[name];
        return typeof value === 'string' ? value : undefined;
    };

    // The transport answers once every request in the message has been handled: nothing is left in flight, so the
    // server and transport are dropped rather than closed (closing builds an error object per request to reject
    // pending calls there cannot be).
    const answer = await transport.handle({ accept: header('accept'), contentType: header('content-type'), protocolVersion: header('mcp-protocol-version'), mcpMethod: header('mcp-method'), mcpName: header('mcp-name') }, request.payload);
    return answer.body === null ? h.response().code(answer.status) : h.response(answer.body).type('application/json').code(answer.status);
}

/** An HTTP-level refusal on an MCP endpoint, in the JSON-RPC error shape the SDK uses for its own. */
export function rpcRefusal(h: ResponseToolkit, status: number, message: string, code = -32000): ResponseObject {
    return h.response(rpcError(code, message)).code(status);
}

export const methodNotAllowed: Lifecycle.Method = (_request, h) =>
    rpcRefusal(h, 405, 'Method not allowed: this MCP endpoint is stateless and answers POST only.').header('allow', 'POST');

/** `http://host:port` in lowercase, or null for what is not an http(s) origin. */
export function normalizeOrigin(value: string): string | null {
    try {
        const url = new URL(value);
        const bare = url.pathname === '/' && !url.search && !url.hash && !url.username && !url.password;
        return (url.protocol === 'http:' || url.protocol === 'https:') && bare ? url.origin : null;
    }
    catch {
        return null;
    }
}

export interface RebindingRules {
    allowedOrigins: readonly string[];                          // MCP_ALLOWED_ORIGINS
    allowedHosts: readonly string[] | null;                     // the Host names answered to; null: any (see loopbackHosts)
    loopbackOrigins?: boolean;                                  // also the loopback origins of the server's own port (see loopbackOrigins)
}

const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '[::1]'];

/**
 * The Host names a server bound to a loopback address answers to: the loopback names, its bind address and its
 * public URL's host. A page on another site that rebinds its own name to 127.0.0.1 still sends its own name as
 * Host, so it is refused. null (any Host) for a server bound to another address, which is reached under names of
 * the operator's choosing.
 */
export function loopbackHosts(bind: string, publicUrl: string): string[] | null {
    const loopback = bind === 'localhost' || bind === '::1' || /^127\.\d+\.\d+\.\d+$/.test(bind);
    return loopback ? [...new Set([...LOOPBACK_NAMES, bind.includes(':') ? `[${bind}]` : bind, new URL(publicUrl).hostname])] : null;
}

/**
 * Whether a server also takes the loopback origins of its own port (`http://127.0.0.1:<port>`, `http://[::1]:<port>`,
 * `http://localhost:<port>`): when it is bound to a loopback address and its public URL says `localhost`, a page
 * served by this very server may name it by any of its loopback addresses. Another port or scheme stays refused.
 */
export function loopbackOrigins(bind: string, publicUrl: string): boolean {
    return loopbackHosts(bind, publicUrl) !== null && new URL(publicUrl).hostname === 'localhost';
}

/**
 * The DNS-rebinding checks of the MCP transport rules, 403 before authentication: a Host header outside the allowed
 * names (loopback binds only), then an Origin header that is present and not allowed. Clients that are not browsers
 * send no Origin and pass that check. `*` allows every origin.
 */
export function rebindingGuard(rules: RebindingRules): Lifecycle.Method {
    const any = rules.allowedOrigins.includes('*');
    const origins = new Set(rules.allowedOrigins.map((origin) => normalizeOrigin(origin)).filter(Boolean));
    const hosts = rules.allowedHosts ? new Set(rules.allowedHosts.map((host) => host.toLowerCase())) : null;
    const hostRefusal = hosts && `Host not allowed: this server listens on a loopback address and answers to ${[...hosts].join(', ')} only; set MCP_PUBLIC_URL to the address clients use.`;
    return (request, h) => {
        if (hosts && !hosts.has(request.info.hostname.toLowerCase())) {
            return rpcRefusal(h, 403, hostRefusal!).takeover();
        }

        const origin = request.headers.origin as string | undefined;
        if (origin === undefined || any || origins.has(normalizeOrigin(origin)) || rules.loopbackOrigins && ownLoopbackOrigin(origin, request.server.info.port)) {
            return h.continue;
        }

        return rpcRefusal(h, 403, 'Origin not allowed: add it to MCP_ALLOWED_ORIGINS to call this server from that page.').takeover();
    };
}

function ownLoopbackOrigin(origin: string, port: number | string): boolean {
    const normalized = normalizeOrigin(origin);
    return normalized !== null && LOOPBACK_NAMES.some((name) => normalized === `http://${name}:${port}`);
}

export interface McpRoute {
    handler: Lifecycle.Method;
    options?: Pick<RouteOptions, 'payload' | 'ext'>;
}

/** Mounts every row of an MCP route table with its handler (see pairHandlers): public rows open, the rest behind `strategy`. */
export function mountTable(server: Server, table: RouteTable, routes: Record<string, McpRoute>, strategy: string | null): void {
    for (const [row, route] of pairHandlers(table, routes)) {
        Hoek.assert(row.auth === 'public' || strategy, 'Route', row.id, 'needs a credential but the', table.family, 'plugin has no auth strategy');
        server.route({
            method: row.method,
            path: row.path,
            options: {
                id: row.id,
                description: row.description,
                auth: row.auth === 'public' ? false : { strategy: strategy!, mode: 'required' },
                ...route.options,
                handler: route.handler
            }
        });
    }
}

/**
 * Payload options for an MCP POST: JSON up to 4 MiB (the SDK's own limit), parsed by hapi after authentication;
 * a body that cannot be read is answered in the JSON-RPC shape the SDK uses (-32700 for malformed JSON), another
 * content type with the SDK's own 415.
 */
export const MCP_PAYLOAD: RouteOptionsPayload = {
    parse: true,
    allow: 'application/json',
    maxBytes: 4 * 1024 * 1024,
    protoAction: 'error',
    failAction: (_request, h, err) => {
        const status = Boom.isBoom(err) ? err.output.statusCode : 400;
        const message = status === 400 ? 'Parse error: Invalid JSON' : status === 415 ? UNSUPPORTED_MEDIA_TYPE : (err as Boom.Boom).message;
        return rpcRefusal(h, status, message, status === 400 ? -32700 : -32000).takeover();
    }
};
