import type { Manifest } from '../lib/compose';
import { testDataMounted } from '../lib/test-data/gates';
import { renderToolList } from '../lib/docs/mcp-page';
import type { ApiClient } from '../lib/mcp/api-client';
import { loopbackHosts, loopbackOrigins } from '../lib/mcp/http';
import { DocsIndex } from '../lib/docs/search';
import type { RouteTable } from '../lib/route-table';
import { logPlugin } from '../plugins/log';
import { mcpDocsPlugin } from '../plugins/mcp-docs';
import { docsTools } from '../plugins/mcp-docs/tools';
import { DOCS_DIR } from './docs';
import { mcpPlatformPlugin, platformCatalogue } from '../plugins/mcp-platform';
import type { McpConfig } from './config';
import pkg from '../package.json';

export const DOCS_MCP_PATH = '/mcp/docs';

/** The families the MCP server mounts: their tables are exactly the routes it serves. */
export const MCP_FAMILIES = [mcpPlatformPlugin, mcpDocsPlugin] as const;

export function mcpMountedTables(): RouteTable[] {
    return MCP_FAMILIES.map((family) => family.table);
}

/** The generated tool list of docs/mcp.md: every documentation tool, all 30 platform tools, offered or not, and deployments_trigger. */
export function mcpToolList(): string {
    const catalogue = platformCatalogue({ readOnly: false, allowedTools: null });
    return renderToolList(docsTools(new DocsIndex([]), ''), catalogue.all, catalogue.deploy);
}

// The MCP server: its own hapi server and port, with no database and no token of its own. Platform tools act with
// each caller's credential on this deployment's API, through `api` (HTTP to API_BASE_URL, or the API's inject()).
export function mcpManifest(config: McpConfig, api: ApiClient, write: (line: string) => void): Manifest {
    const allowedHosts = loopbackHosts(config.host, config.mcpPublicUrl);
    const ownOrigins = loopbackOrigins(config.host, config.mcpPublicUrl);
    return {
        server: {
            host: config.host,
            port: config.mcpPort,
            debug: false,
            router: { stripTrailingSlash: true },
            routes: {
                security: { hsts: config.mcpPublicUrl.startsWith('https:'), xframe: 'deny', noSniff: true, referrer: 'no-referrer' }
            }
        },
        register: {
            plugins: [
                { plugin: logPlugin, options: { write } },
                {
                    plugin: mcpPlatformPlugin,
                    options: {
                        api,
                        publicUrl: config.publicUrl,
                        mcpPublicUrl: config.mcpPublicUrl,
                        docsMcpPath: DOCS_MCP_PATH,
                        readOnly: config.mcpReadOnly,
                        allowedTools: config.mcpAllowedTools,
                        projectId: config.mcpProjectId ?? null,
                        allowedOrigins: config.mcpAllowedOrigins,
                        allowedHosts,
                        loopbackOrigins: ownOrigins,
                        version: pkg.version,
                        trustedProxies: config.trustedProxies,
                        adminTools: config.mcpAdminToolsEnabled ?? false,
                        diagnostics: { developer: config.mcpDeveloperToolsEnabled ?? false, context: config.mcpContextToolsEnabled ?? false },
                        testDataTools: testDataMounted(config.nodeEnv, config.testData)
                    }
                },
                {
                    plugin: mcpDocsPlugin,
                    options: { docsDir: DOCS_DIR, publicUrl: config.publicUrl, allowedOrigins: config.mcpAllowedOrigins, allowedHosts, loopbackOrigins: ownOrigins, version: pkg.version }
                }
            ]
        }
    };
}
