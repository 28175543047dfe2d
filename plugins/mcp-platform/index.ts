import type { JSONWebKeySet } from 'jose';

import { proxyTrust } from '../../lib/client-address';
import { ADMIN_TOOLS, adminToolsOn } from '../../lib/mcp/admin-tools';
import { TEST_DATA_TOOLS, testDataToolsOn } from '../../lib/mcp/test-data-tools';
import type { ApiClient } from '../../lib/mcp/api-client';
import { MCP_PAYLOAD, methodNotAllowed, mountTable, rebindingGuard, rpcRefusal, serveMcp, type RebindingRules } from '../../lib/mcp/http';
import { platformTools, platformToolsOn, type KindTools } from '../../lib/mcp/platform-tools';
import { deployTool, deployToolOn } from '../../lib/mcp/deploy-tool';
import { DIAGNOSTIC_TOOLS, diagnosticDefinitions, diagnosticToolsOn } from '../../lib/mcp/diagnostic-tools';
import { parseSelection, selectTools, SelectionError, type Selectable, type Selection } from '../../lib/mcp/selection';
import type { CachePolicy } from '../../lib/mcp/revision';
import { buildServer, type ServerInfo, type Tool } from '../../lib/mcp/tool';
import type { FamilyPlugin } from '../../lib/route-table';
import { idPattern } from '../../lib/ids';
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
    projectId?: string | null;                                  // MCP_PROJECT_ID: the one project every call may reach
    version: string;
    kinds?: readonly KindTools[];                               // the tool catalogue (default: manifest/routes/mcp-tools.ts)
    trustedProxies?: readonly string[];                         // TRUSTED_PROXIES: whose X-Forwarded-For names the caller
    adminTools?: boolean;                                       // MCP_ADMIN_TOOLS_ENABLED: admin tools for admins' sessions
    diagnostics?: { developer: boolean; context: boolean };     // MCP_DEVELOPER_TOOLS_ENABLED, MCP_CONTEXT_TOOLS_ENABLED
    testDataTools?: boolean;                                    // the test-data gates of this process hold: test-data tools for API keys
}

export const STRATEGY = 'mcp-bearer';
export const TOOLS_HEADER = 'x-mcp-tools';
export const PROJECT_HEADER = 'x-mcp-project';

/**
 * The project a request's calls are pinned to: the operator's MCP_PROJECT_ID, narrowed by the request's
 * X-MCP-Project header; a header naming another project than the operator's reaches nothing, and is refused.
 * The API intersects the pin with the caller's membership (and an OAuth grant's projects) on every call.
 */
export function projectPin(header: unknown, operator: string | null): { pin: string | null } | { refusal: string } {
    if (header === undefined || (typeof header === 'string' && !header.trim())) {
        return { pin: operator };
    }

    const value = typeof header === 'string' ? header.trim() : '';
    if (!idPattern('prj').test(value)) {
        return { refusal: 'The X-MCP-Project header must be one project id such as prj_4f9KqzT0aBcD1eFg' };
    }

    return operator && value !== operator ? { refusal: `The X-MCP-Project header names another project than this server's MCP_PROJECT_ID: a header can only narrow what the operator allows` } : { pin: value };
}

/** The platform tools offered depend on the caller (X-MCP-Tools, the pin): only that caller may keep the list, for five minutes. */
export const PLATFORM_CACHE: CachePolicy = { ttlMs: 300_000, cacheScope: 'private' };

export const PLATFORM_INSTRUCTIONS = [
    'Hostless platform tools, acting with your own credential and its scopes.',
    'Call projects_list first, then pass projectId when listing or creating apps, sites, workers, cron jobs or databases.',
    'Apps, sites, workers and cron jobs are identified by name, not by internal id.',
    'projects_create, projects_patch and projects_delete need a user session token: API keys can only read projects.',
    'An API error comes back as a tool result with isError: true carrying the API\'s error body.',
    'A request pinned to a project (X-MCP-Project, MCP_PROJECT_ID) reaches that project only, and creates there when projectId is left out.'
].join(' ');

/**
 * The catalogue's definitions, and the operator's ceiling over the offered ones: the five tools of each kind, and
 * deployments_trigger (the `deploy` group) where the trigger routes exist. `selectable` is what selections may name.
 */
export function platformCatalogue(options: Pick<McpPlatformPluginOptions, 'readOnly' | 'allowedTools' | 'kinds' | 'diagnostics'>) {
    const rows = ROUTE_TABLES.flatMap((table) => table.rows);
    const all = platformTools(options.kinds ?? PLATFORM_TOOL_KINDS, rows);
    const deploy = deployTool(rows);
    const selectable: Selectable[] = [...all, ...(deploy ? [deploy] : []), ...DIAGNOSTIC_TOOLS];
    const allowed = parseSelection((options.allowedTools ?? []).join(','), selectable);
    const operator: Selection = { readOnly: options.readOnly || allowed.readOnly, names: allowed.names };
    return {
        all, selectable, offered: selectTools(all.filter((tool) => tool.offered), operator, null), deploy: deploy && selectTools([deploy], operator, null)[0] || null,
        diagnostics: selectTools(diagnosticDefinitions(options.diagnostics ?? { developer: false, context: false }), operator, null)
    };
}

/** The tools a request without X-MCP-Tools is offered, bound to this API. */
export function offeredTools(catalogue: ReturnType<typeof platformCatalogue>, api: ApiClient): Tool[] {
    return [...platformToolsOn(catalogue.offered, api), ...(catalogue.deploy ? [deployToolOn(catalogue.deploy, api)] : []), ...diagnosticToolsOn(api, catalogue.diagnostics)];
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
        const catalogue = platformCatalogue(options);
        const tools = offeredTools(catalogue, options.api);            // what a request without X-MCP-Tools is offered
        // Admin tools: only for a platform admin's session (the flag as introspected on this very request), when enabled.
        const admin = options.adminTools ? adminToolsOn(options.api) : [];
        // Test-data tools: only where this process's gates hold (never in production), and only for API keys.
        const testData = options.testDataTools ? testDataToolsOn(options.api) : [];
        const known = [...catalogue.selectable, ...ADMIN_TOOLS, ...(testData.length ? TEST_DATA_TOOLS : [])];
        const info: ServerInfo = { name: 'hostless', version: options.version, instructions: PLATFORM_INSTRUCTIONS };
        const profile = { info, cache: PLATFORM_CACHE };
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
        const trust = proxyTrust(options.trustedProxies ?? []);
        server.auth.scheme(STRATEGY, () => mcpAuthScheme({ api: options.api, metadataUrl: `${options.mcpPublicUrl}/.well-known/oauth-protected-resource`, accessTokens, trust }));
        server.auth.strategy(STRATEGY, STRATEGY);

        mountTable(server, mcpPlatformTable, {
            'mcp.health': { options: { ext: hostOnly }, handler: () => ({ ok: true, service: 'hostless-mcp', baseUrl: options.publicUrl, docsMcpPath: options.docsMcpPath }) },
            'mcp.resourceMetadata': { options: { ext: hostOnly }, handler: () => metadata },
            'mcp.resourceMetadata.mcp': { options: { ext: hostOnly }, handler: () => metadata },
            'mcp.platform': {
                options: { payload: MCP_PAYLOAD, ext },
                handler: (request, h) => {
                    const header = request.headers[TOOLS_HEADER] as string | undefined;
                    const { authorization, address, identity } = caller(request);
                    const base = [...tools, ...admin.length && identity.via === 'session' && identity.isAdmin ? admin : [], ...identity.via === 'key' ? testData : []];
                    let selected = base;
                    if (header?.trim()) {
                        try {
                            selected = selectTools(base, { readOnly: false, names: null }, parseSelection(header, known));
                        }
                        catch (err) {
                            if (err instanceof SelectionError) {
                                return rpcRefusal(h, 400, `The X-MCP-Tools header names an ${err.message}`);
                            }

                            throw err;
                        }
                    }

                    const pinned = projectPin(request.headers[PROJECT_HEADER], options.projectId ?? null);
                    if ('refusal' in pinned) {
                        return rpcRefusal(h, 400, pinned.refusal);
                    }

                    return serveMcp(request, h, buildServer(info, selected, { authorization, forwardedFor: address, projectPin: pinned.pin, fault: (err) => request.server.log(['error', 'mcp'], err) }), profile);
                }
            },
            'mcp.platform.get': { options: { ext }, handler: methodNotAllowed },
            'mcp.platform.delete': { options: { ext }, handler: methodNotAllowed }
        }, STRATEGY);
    }
};
