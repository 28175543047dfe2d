// `node -r ./scripts/ts-register.js bench/mcp-handler.ts`: the cost of one stateless MCP POST, in process, on this
// server's transport (lib/mcp/json-transport.ts over the SDK v1 Server) against the SDK 2.x handler
// (createMcpHandler of @modelcontextprotocol/server, a web Request in, a web Response out), each building a new
// server per request as both do in production, for a tool call of each revision. Prints microseconds per request.
import { createMcpHandler, McpServer } from '@modelcontextprotocol/server';
import * as z from 'zod';

import { JsonResponseTransport } from '../lib/mcp/json-transport';
import { MODERN_REVISION } from '../lib/mcp/revision';
import { buildServer, success, type Tool } from '../lib/mcp/tool';

const INFO = { name: 'bench', version: '1.0.0', instructions: 'A bench.' };
const echo: Tool = {
    name: 'echo', group: 'bench', title: 'Echo', description: 'Answers with its text.', inputSchema: z.strictObject({ text: z.string() }), annotations: { readOnlyHint: true },
    handler: ({ text }) => Promise.resolve(success(`echo: ${String(text)}`, { text }))
};
const ACCEPT = 'application/json, text/event-stream';
const envelope = { 'io.modelcontextprotocol/protocolVersion': MODERN_REVISION, 'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '0' }, 'io.modelcontextprotocol/clientCapabilities': {} };
const cases = {
    '2025-11-25': { headers: { 'mcp-protocol-version': '2025-11-25' }, body: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo', arguments: { text: 'hi' } } } },
    [MODERN_REVISION]: { headers: { 'mcp-protocol-version': MODERN_REVISION, 'mcp-method': 'tools/call', 'mcp-name': 'echo' }, body: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo', arguments: { text: 'hi' }, _meta: envelope } } }
};

const sdk = createMcpHandler(() => {
    const server = new McpServer({ name: INFO.name, version: INFO.version }, { instructions: INFO.instructions });
    server.registerTool('echo', { title: 'Echo', description: 'Answers with its text.', inputSchema: z.strictObject({ text: z.string() }) }, ({ text }) => Promise.resolve({ content: [{ type: 'text' as const, text: `echo: ${text}` }], structuredContent: { text } }));
    return server;
}, { responseMode: 'json' });

async function ours(headers: Record<string, string>, body: unknown): Promise<unknown> {
    const transport = new JsonResponseTransport({ info: INFO, cache: { ttlMs: 0, cacheScope: 'private' } });
    await buildServer(INFO, [echo]).connect(transport);
    const answer = await transport.handle({ accept: ACCEPT, contentType: 'application/json', protocolVersion: headers['mcp-protocol-version'], mcpMethod: headers['mcp-method'], mcpName: headers['mcp-name'] }, body);
    return JSON.stringify(answer.body);
}

async function theirs(headers: Record<string, string>, body: unknown): Promise<unknown> {
    const response = await sdk.fetch(new Request('http://127.0.0.1/mcp', { method: 'POST', headers: { ...headers, accept: ACCEPT, 'content-type': 'application/json' }, body: JSON.stringify(body) }));
    return response.text();
}

async function time(run: () => Promise<unknown>, n: number): Promise<number> {
    for (let i = 0; i < 300; ++i) {
        await run();
    }

    const start = process.hrtime.bigint();
    for (let i = 0; i < n; ++i) {
        await run();
    }

    return Number(process.hrtime.bigint() - start) / 1000 / n;
}

async function main(): Promise<void> {
    const N = Number(process.env.BENCH_N ?? 3000);
    for (const [revision, { headers, body }] of Object.entries(cases)) {
        console.log(`${revision}: ours ${String(await ours(headers, body)).slice(0, 90)}`);
        console.log(`${revision}: SDK  ${String(await theirs(headers, body)).slice(0, 90)}`);
        const samples = { ours: [] as number[], sdk: [] as number[] };
        for (let round = 0; round < 3; ++round) {
            samples.ours.push(await time(() => ours(headers, body), N));
            samples.sdk.push(await time(() => theirs(headers, body), N));
        }

        const median = (values: number[]) => [...values].sort((a, b) => a - b)[1];
        console.log(`${revision}: tools/call per request: this transport ${median(samples.ours).toFixed(0)} us, SDK 2.x createMcpHandler ${median(samples.sdk).toFixed(0)} us (medians of 3 rounds of ${N})`);
    }
}

void main();
