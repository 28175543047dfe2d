import * as Fs from 'node:fs';
import * as Path from 'node:path';

import type { Server } from '@hapi/hapi';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

import { mcpDeployment } from '../../manifest';
import type { Config, McpConfig } from '../../manifest/config';
import { LOG_DIR, testServer, type TestServer } from './server';

// MCP tests run real servers on 127.0.0.1 (the SDK's transport cannot be driven by inject) and talk to them with the
// SDK's own client. The API is started too; the MCP server reaches it in-process, or over HTTP like a server of its own.

export type ApiPath = 'inject' | 'http';

export interface McpInstance {
    api: TestServer;
    mcp: Server;
    config: McpConfig;
    url: string;                                                // the MCP server's listening origin
    logs: string[];
    stop(): Promise<void>;
}

export const MCP_PUBLIC_URL = 'http://localhost:3001';
export const METADATA_URL = `${MCP_PUBLIC_URL}/.well-known/oauth-protected-resource`;

export async function mcpInstance(overrides: Partial<Config> = {}, path: ApiPath = 'inject'): Promise<McpInstance> {
    const api = await testServer(overrides, { start: true });
    const config: McpConfig = { ...api.config, mcpPublicUrl: MCP_PUBLIC_URL, ...(path === 'http' ? { apiBaseUrl: api.server.info.uri } : {}), ...overrides };
    const logs: string[] = [];
    let mcp: Server;
    try {
        mcp = await mcpDeployment({
            config,
            start: true,
            ...(path === 'inject' ? { api: api.server } : {}),
            log: (line) => {
                logs.push(line);
                Fs.appendFileSync(Path.join(LOG_DIR, `mcp-${process.pid}.log`), line);
            }
        });
    }
    catch (err) {
        await api.stop();
        throw err;
    }

    return {
        api,
        mcp,
        config,
        url: mcp.info.uri,
        logs,
        stop: async () => {
            await mcp.stop();
            await api.stop();
        }
    };
}

/** An SDK client connected (initialize done) to an MCP endpoint, sending these headers on every request. */
export async function connect(url: string, headers: Record<string, string> = {}): Promise<Client> {
    const client = new Client({ name: 'hostless-tests', version: '0.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
    return client;
}

export async function toolNames(client: Client): Promise<string[]> {
    return (await client.listTools()).tools.map((tool) => tool.name).sort();
}

export async function call(client: Client, name: string, args: Record<string, unknown> = {}): Promise<CallToolResult & { structuredContent?: any }> {
    return await client.callTool({ name, arguments: args }) as CallToolResult;
}

export function text(result: CallToolResult): string {
    return result.content.map((item) => item.type === 'text' ? item.text : '').join('\n');
}

export const INITIALIZE = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '0' } } };
export const LIST_TOOLS = { jsonrpc: '2.0', id: 2, method: 'tools/list' };

/** A raw JSON-RPC POST, for what the SDK client hides: statuses and headers. */
export function post(url: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
    return fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
        body: typeof body === 'string' ? body : JSON.stringify(body)
    });
}
