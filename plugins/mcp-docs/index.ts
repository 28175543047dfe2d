import { docsCorpus } from '../../lib/docs/corpus';
import type { DocsIndex } from '../../lib/docs/search';
import { MCP_PAYLOAD, methodNotAllowed, mountTable, rebindingGuard, serveMcp, type RebindingRules } from '../../lib/mcp/http';
import type { CachePolicy } from '../../lib/mcp/revision';
import { buildServer, type ServerInfo } from '../../lib/mcp/tool';
import type { FamilyPlugin } from '../../lib/route-table';
import { mcpDocsTable } from '../../manifest/routes/mcp';
import { docsTools } from './tools';

// POST /mcp/docs: the public documentation tools over the docs folder, read and indexed once at start. No
// credential is asked for and none is used: an Authorization header sent here is ignored, never refused.
export interface McpDocsPluginOptions extends RebindingRules {
    docsDir: string;                                            // the markdown folder (the project's docs/)
    publicUrl: string;                                          // the API's origin: its /docs site shows the pages
    version: string;
}

declare module '@hapi/hapi' {
    interface PluginProperties {
        'hostless-mcp-docs': { index: DocsIndex };
    }
}

/** The docs tools are the same for every caller and change only with a release: any cache may keep their list an hour. */
export const DOCS_CACHE: CachePolicy = { ttlMs: 3_600_000, cacheScope: 'public' };

export const DOCS_INSTRUCTIONS = 'Documentation of Hostless, a self-hostable hosting platform. Find pages with docs_search (or search), read them with docs_get_page (or fetch), list them all with docs_list.';

export const mcpDocsPlugin: FamilyPlugin<McpDocsPluginOptions> = {
    name: 'hostless-mcp-docs',
    table: mcpDocsTable,
    register(server, options) {
        const { index } = docsCorpus(options.docsDir);
        const tools = docsTools(index, options.publicUrl);
        const info: ServerInfo = { name: 'hostless-docs', version: options.version, instructions: DOCS_INSTRUCTIONS };
        const ext = { onPreAuth: { method: rebindingGuard(options) } };
        const profile = { info, cache: DOCS_CACHE };

        server.expose('index', index);
        mountTable(server, mcpDocsTable, {
            'mcp.docs': { options: { payload: MCP_PAYLOAD, ext }, handler: (request, h) => serveMcp(request, h, buildServer(info, tools, { authorization: null, fault: (err) => request.server.log(['error', 'mcp'], err) }), profile) },
            'mcp.docs.get': { options: { ext }, handler: methodNotAllowed },
            'mcp.docs.delete': { options: { ext }, handler: methodNotAllowed }
        }, null);
    }
};
