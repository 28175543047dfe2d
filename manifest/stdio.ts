import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';

import { adminToolsOn } from '../lib/mcp/admin-tools';
import { testDataToolsOn } from '../lib/mcp/test-data-tools';
import { testDataMounted } from '../lib/test-data/gates';
import { ApiUnreachableError, httpApiClient } from '../lib/mcp/api-client';
import { docsCorpus } from '../lib/docs/corpus';
import { applyHeapGrowth } from '../lib/heap';
import { gateTransport } from '../lib/mcp/revision';
import { buildServer } from '../lib/mcp/tool';
import { DOCS_INSTRUCTIONS } from '../plugins/mcp-docs';
import { docsTools } from '../plugins/mcp-docs/tools';
import { offeredTools, PLATFORM_CACHE, PLATFORM_INSTRUCTIONS, platformCatalogue } from '../plugins/mcp-platform';
import { ConfigError, loadAppToken, loadMcpConfig, type McpConfig } from './config';
import { DOCS_DIR } from './docs';
import pkg from '../package.json';

// stdio mode (`node dist/manifest/stdio.js`): one MCP session over standard input and output for a local client,
// acting with the credential in APP_TOKEN on the API at API_BASE_URL. Standard output carries JSON-RPC only; every other line goes to stderr.
// The token is checked once at start (a dead one stops the process with a sentence) and then by the API on every
// call, so a revocation holds at the next tool call. The process ends when standard input does and the calls in
// flight have answered.

async function runStdio(config: McpConfig, token: string, log: (line: string) => void): Promise<void> {
    const authorization = token.startsWith('svk_') ? token : `Bearer ${token}`;
    const api = httpApiClient(config.apiBaseUrl);
    const answer = await api.request({ method: 'GET', path: '/v1/auth/introspect', authorization });
    if (answer.status !== 200) {
        const message = (answer.body as { message?: string } | null)?.message ?? `status ${answer.status}`;
        throw new ConfigError(`APP_TOKEN was refused by the API at ${config.apiBaseUrl}: ${message}`);
    }

    const identity = answer.body as { via: string; credentialId: string; isAdmin?: boolean };
    const tools = [
        ...offeredTools(platformCatalogue({
            readOnly: config.mcpReadOnly, allowedTools: config.mcpAllowedTools,
            diagnostics: { developer: config.mcpDeveloperToolsEnabled ?? false, context: config.mcpContextToolsEnabled ?? false }
        }), api),
        // An admin's session gets the admin tools; the API rechecks the flag and audits every call.
        ...config.mcpAdminToolsEnabled && identity.via === 'session' && identity.isAdmin ? adminToolsOn(api) : [],
        // Test-data tools: development only (lib/test-data/gates.ts), for API keys; the API checks the rest.
        ...testDataMounted(config.nodeEnv, config.testData) && identity.via === 'key' ? testDataToolsOn(api) : [],
        ...docsTools(docsCorpus(DOCS_DIR).index, config.publicUrl)
    ];
    const info = { name: 'hostless', version: pkg.version, instructions: `${PLATFORM_INSTRUCTIONS} ${DOCS_INSTRUCTIONS}` };
    const server = buildServer(info, tools, {
        authorization,
        projectPin: config.mcpProjectId ?? null,
        fault: (err) => log(`${err instanceof Error ? err.stack : String(err)}\n`)
    });
    const transport = new StdioServerTransport();
    await server.connect(transport);
    gateTransport(transport, { info, cache: PLATFORM_CACHE });  // revision 2026-07-28 beside the 2025 handshake
    log(`Hostless MCP server on stdio: ${tools.length} tools, acting as ${identity.via} ${identity.credentialId} on ${config.apiBaseUrl}\n`);
}

async function main(): Promise<void> {
    const config = loadMcpConfig(process.env);
    applyHeapGrowth(config.heapGrowingPercent ?? 0);
    await runStdio(config, loadAppToken(process.env), (line) => process.stderr.write(line));
}

main().catch((err: Error) => {
    const expected = err instanceof ConfigError || err instanceof ApiUnreachableError;
    process.stderr.write(`${expected ? err.message : err.stack ?? err.message}\n`);
    process.exit(1);
});
