import type { JSONWebKeySet } from 'jose';

import type { ApiClient } from '../../lib/mcp/api-client';
import { MCP_PAYLOAD, methodNotAllowed, mountTable, rebindingGuard, rpcRefusal, serveMcp, type RebindingRules } from '../../lib/mcp/http';
import { platformTools, platformToolsOn, type KindTools } from '../../lib/mcp/platform-tools';
import { parseSelection, selectTools, SelectionError, type Selection } from '../../lib/mcp/selection';
import { buildServer, type ServerInfo } from '../../lib/mcp/tool';
import type { FamilyPlugin } from '../../lib/route-table';
import { accessTokenVerifier } from '../../lib/oauth/access-token';
import { JwksCache } from '../../lib/oauth/jwks-cache';
import { OAUTH_SCOPES } from '../../lib/oauth/scopes';
import { ROUTE_TABLES } from '../../manifest/routes';
import { mcpPlatformTable } from '../../manifest/routes/mcp';
import { PLATFORM_TOOL_KINDS } from '../../manifest/routes/mcp-tools';
import { caller, mcpAuthScheme } from './auth';

// POST /mcp: the platform tools, acting with the caller's own credential on this deployment's REST API; plus the
// server's health and its OAuth protected-resource metadata (RFC 9728). Holds no database and no token of its own.
export interface McpPlatformPluginOptions extends RebindingRules {
    api: ApiClient;                                             // this deployment's API, over HTTP or in-process
    publicUrl: string;                                          // the API's public origin: the authorization server
    mcpPublicUrl: string;                                       // this server's public origin; the resource is `<it>/mcp`
    docsMcpPath: string;
    readOnly: boolean;                                          // MCP_READ_ONLY
    allowedTools: readonly string[] | null;                     // MCP_ALLOWED_TOOLS (tools, groups, `readonly`); null: all
    version: string;
    kinds?: readonly KindTools[];                               // the tool catalogue (default: manifest/routes/mcp-tools.ts)
}

export const STRATEGY = 'mcp-bearer';
export const TOOLS_HEADER = 'x-mcp-tools';

export const PLATFORM_INSTRUCTIONS = [
    'Hostless platform tools, acting with your own credential and its scopes.',
    'Call projects_list first, then pass projectId when listing or creating apps, sites, workers, cron jobs or databases.',
    'Apps, sites, workers and cron jobs are identified by name, not by internal id.',
    'projects_create, projects_patch and projects_delete need a user session token: API keys can only read projects.',
    'An API error comes back as a tool result with isError: true carrying the API\'s error body.'
].join(' ');

/** The catalogue's definitions, and the operator's ceiling over the offered ones. */
export function platformCatalogue(options: Pick<McpPlatformPluginOptions, 'readOnly' | 'allowedTools' | 'kinds'>) {
    const all = platformTools(options.kinds ?? PLATFORM_TOOL_KINDS, ROUTE_TABLES.flatMap((table) => table.rows));
    const allowed = parseSelection((options.allowedTools ?? []).join(','), all);
    const operator: Selection = { readOnly: options.readOnly || allowed.readOnly, names: allowed.names };
    return { all, offered: selectTools(all.filter((tool) => tool.offered), operator, null) };
}

export function protectedResourceMetadata(publicUrl: string, mcpPublicUrl: string) {
    return {
        resource: `${mcpPublicUrl}/mcp`,
        authorization_servers: [publicUrl],
        bearer_methods_supported: ['header'],
        scopes_supported: OAUTH_SCOPES,
        resource_name: 'Hostless MCP server',
        resource_documentation: `${publicUrl}/docs/mcp`
    };
}

export const mcpPlatformPlugin: FamilyPlugin<McpPlatformPluginOptions> = {
    name: 'hostless-mcp-platform',
    table: mcpPlatformTable,
    register(server, options) {
        const { all, offered } = platformCatalogue(options);
        const tools = platformToolsOn(offered, options.api);          // what a request without X-MCP-Tools is offered
        const info: ServerInfo = { name: 'hostless', version: options.version, instructions: PLATFORM_INSTRUCTIONS };
        const metadata = protectedResourceMetadata(options.publicUrl, options.mcpPublicUrl);
        const ext = { onPreAuth: { method: rebindingGuard(options) } };
        const hostOnly = { onPreAuth: { method: rebindingGuard({ allowedOrigins: ['*'], allowedHosts: options.allowedHosts }) } };

        const keys = new JwksCache(async () => {
            const answer = await options.api.jwks();
            if (answer.status !== 200) {
                throw new Error(`the API answered ${answer.status} for its JWKS`);
            }

            return answer.body as JSONWebKeySet;
        });
        const accessTokens = accessTokenVerifier({ keys: keys.getKey, issuer: options.publicUrl, audience: `${options.mcpPublicUrl}/mcp` });
        server.auth.scheme(STRATEGY, () => mcpAuthScheme({ api: options.api, metadataUrl: `${options.mcpPublicUrl}/.well-known/oauth-protected-resource`, accessTokens }));
        server.auth.strategy(STRATEGY, STRATEGY);

        mountTable(server, mcpPlatformTable, {
            'mcp.health': { options: { ext: hostOnly }, handler: () => ({ ok: true, service: 'hostless-mcp', baseUrl: options.publicUrl, docsMcpPath: options.docsMcpPath }) },
            'mcp.resourceMetadata': { options: { ext: hostOnly }, handler: () => metadata },
            'mcp.resourceMetadata.mcp': { options: { ext: hostOnly }, handler: () => metadata },
            'mcp.platform': {
                options: { payload: MCP_PAYLOAD, ext },
                handler: (request, h) => {
                    const header = request.headers[TOOLS_HEADER];
                    let selected = tools;
                    if (header !== undefined && String(header).trim()) {
                        try {
                            selected = selectTools(tools, { readOnly: false, names: null }, parseSelection(String(header), all));
                        }
                        catch (err) {
                            if (err instanceof SelectionError) {
                                return rpcRefusal(h, 400, `The X-MCP-Tools header names an ${err.message}`);
                            }

                            throw err;
                        }
                    }

                    return serveMcp(request, h, buildServer(info, selected, { authorization: caller(request).authorization, fault: (err) => request.server.log(['error', 'mcp'], err) }));
                }
            },
            'mcp.platform.get': { options: { ext }, handler: methodNotAllowed },
            'mcp.platform.delete': { options: { ext }, handler: methodNotAllowed }
        }, STRATEGY);
    }
};
