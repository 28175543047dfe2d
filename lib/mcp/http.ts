import Hoek from '@hapi/hoek';
import type { Lifecycle, Request, ResponseObject, ResponseToolkit, RouteOptions, Server } from '@hapi/hapi';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';

import type { RouteTable } from '../route-table';

// MCP over streamable HTTP inside hapi, stateless: every POST gets a new McpServer and a new transport, and the SDK
// reads the body and writes the response itself (hapi's inject() cannot drive it; tests use real HTTP).

/** Serves one JSON-RPC POST with a server built for this request alone. */
export async function serveMcp(request: Request, h: ResponseToolkit, server: McpServer): Promise<symbol> {
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    const res = request.raw.res;
    res.on('close', () => {
        void transport.close();
        void server.close();
    });

    await server.connect(transport);
    await transport.handleRequest(request.raw.req, res);
    return h.abandon;
}

/** An HTTP-level refusal on an MCP endpoint, in the JSON-RPC error shape the SDK uses for its own. */
export function rpcRefusal(h: ResponseToolkit, status: number, message: string): ResponseObject {
    return h.response({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }).code(status);
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

/**
 * Refuses a request whose Origin header is present and not allowed (DNS rebinding, MCP transport security): 403
 * before authentication. Clients that are not browsers send no Origin and pass. `*` allows every origin.
 */
export function originGuard(allowed: readonly string[]): Lifecycle.Method {
    const any = allowed.includes('*');
    const origins = new Set(allowed.map((origin) => normalizeOrigin(origin)).filter(Boolean));
    return (request, h) => {
        const origin = request.headers.origin as string | undefined;
        if (origin === undefined || any || origins.has(normalizeOrigin(origin))) {
            return h.continue;
        }

        return rpcRefusal(h, 403, 'Origin not allowed: add it to MCP_ALLOWED_ORIGINS to call this server from that page.').takeover();
    };
}

export interface McpRoute {
    handler: Lifecycle.Method;
    options?: Pick<RouteOptions, 'payload' | 'ext'>;
}

/** Mounts every row of an MCP route table; a row without a handler, or a handler without a row, stops the boot. */
export function mountTable(server: Server, table: RouteTable, routes: Record<string, McpRoute>, strategy: string | null): void {
    const ids = new Set(table.rows.map((row) => row.id));
    for (const id of Object.keys(routes)) {
        Hoek.assert(ids.has(id), 'Handler', id, 'has no row in the', table.family, 'route table');
    }

    for (const row of table.rows) {
        const route = routes[row.id];
        Hoek.assert(route, 'Route', row.id, 'of the', table.family, 'table has no handler');
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

/** Payload options for an MCP POST: hapi leaves the body unread, so the SDK parses it (and answers parse errors). */
export const MCP_PAYLOAD = { parse: false, output: 'stream' } as const;
