import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';

import { ApiUnreachableError, httpApiClient } from '../lib/mcp/api-client';
import { loadDocs } from '../lib/docs/pages';
import { DocsIndex } from '../lib/docs/search';
import { platformToolsOn } from '../lib/mcp/platform-tools';
import { buildServer } from '../lib/mcp/tool';
import { DOCS_INSTRUCTIONS } from '../plugins/mcp-docs';
import { docsTools } from '../plugins/mcp-docs/tools';
import { PLATFORM_INSTRUCTIONS, platformCatalogue } from '../plugins/mcp-platform';
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

    const identity = answer.body as { via: string; credentialId: string };
    const { offered } = platformCatalogue({ readOnly: config.mcpReadOnly, allowedTools: config.mcpAllowedTools });
    const tools = [
        ...platformToolsOn(offered, api),
        ...docsTools(new DocsIndex(loadDocs(DOCS_DIR)), config.publicUrl)
    ];
    const server = buildServer({ name: 'hostless', version: pkg.version, instructions: `${PLATFORM_INSTRUCTIONS} ${DOCS_INSTRUCTIONS}` }, tools, {
        authorization,
        fault: (err) => log(`${err instanceof Error ? err.stack : String(err)}\n`)
    });
    await server.connect(new StdioServerTransport());
    log(`Hostless MCP server on stdio: ${tools.length} tools, acting as ${identity.via} ${identity.credentialId} on ${config.apiBaseUrl}\n`);
}

async function main(): Promise<void> {
    const config = loadMcpConfig(process.env);
    await runStdio(config, loadAppToken(process.env), (line) => process.stderr.write(line));
}

main().catch((err: Error) => {
    const expected = err instanceof ConfigError || err instanceof ApiUnreachableError;
    process.stderr.write(`${expected ? err.message : err.stack ?? err.message}\n`);
    process.exit(1);
});
