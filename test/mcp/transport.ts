import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { LATEST_PROTOCOL_VERSION, SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/sdk/types.js';
import * as z from 'zod';

import { JsonResponseTransport } from '../../lib/mcp/json-transport';
import { buildServer, failure, success, type Tool } from '../../lib/mcp/tool';

// The JSON-response transport against the SDK's own WebStandardStreamableHTTPServerTransport in its stateless JSON
// mode: the same table of requests goes to a fresh SDK Server on each, and every answer (status and body) must be
// the same, refusals included. A change in the SDK's transport that this one does not follow fails here.
const { describe, it } = exports.lab = Lab.script();
const { expect } = Code;

const INFO = { name: 'transport-test', version: '1.0.0', instructions: 'Tools for comparing transports.' };
const TOOLS: Tool[] = [
    {
        name: 'echo', group: 'test', title: 'Echo', description: 'Answers with its text after a turn of the event loop.',
        inputSchema: z.strictObject({ text: z.string() }), annotations: { readOnlyHint: true },
        handler: async ({ text }) => {
            await new Promise((resolve) => setImmediate(resolve));
            return success(`echo: ${String(text)}`, { text });
        }
    },
    {
        name: 'fail', group: 'test', title: 'Fail', description: 'Answers with an error result.',
        inputSchema: z.strictObject({}), annotations: { readOnlyHint: true },
        handler: async () => failure('failed on purpose')
    }
];

const ACCEPT = 'application/json, text/event-stream';
const JSON_TYPE = 'application/json';
const request = (id: number | string, method: string, params?: unknown) => ({ jsonrpc: '2.0', id, method, ...(params !== undefined ? { params } : {}) });
const initialize = (id: number | string) => request(id, 'initialize', { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: 'test', version: '1' } });

interface Case {
    name: string;
    body: unknown;
    accept?: string;
    contentType?: string;
    protocolVersion?: string;
}

const CASES: Case[] = [
    { name: 'tools/list', body: request(1, 'tools/list') },
    { name: 'a tool call', body: request(2, 'tools/call', { name: 'echo', arguments: { text: 'hi' } }) },
    { name: 'a tool call answered with an error result', body: request(3, 'tools/call', { name: 'fail', arguments: {} }) },
    { name: 'a call of an unknown tool', body: request(4, 'tools/call', { name: 'nope', arguments: {} }) },
    { name: 'a call with invalid arguments', body: request(5, 'tools/call', { name: 'echo', arguments: { text: 7 } }) },
    { name: 'a call without params', body: request(6, 'tools/call') },
    { name: 'an unknown method', body: request(7, 'nope') },
    { name: 'ping with a string id', body: request('p-1', 'ping') },
    { name: 'initialize', body: initialize(8) },
    { name: 'initialize with an unsupported protocol version header', body: initialize(9), protocolVersion: '1999-01-01' },
    { name: 'initialize with invalid params', body: request(10, 'initialize', { protocolVersion: 5 }) },
    { name: 'initialize in a batch', body: [initialize(11), request(12, 'ping')] },
    { name: 'a batch answered in request order', body: [request('b', 'tools/call', { name: 'echo', arguments: { text: 'slow' } }), request('a', 'ping')] },
    { name: 'a batch of one request', body: [request(13, 'ping')] },
    { name: 'a batch with a request and a notification', body: [request(14, 'ping'), { jsonrpc: '2.0', method: 'notifications/initialized' }] },
    { name: 'a batch repeating an id', body: [request(15, 'ping'), request(15, 'tools/list')] },
    { name: 'an empty batch', body: [] },
    { name: 'a notification alone', body: { jsonrpc: '2.0', method: 'notifications/initialized' } },
    { name: 'a response alone', body: { jsonrpc: '2.0', id: 16, result: {} } },
    { name: 'a message without jsonrpc', body: { id: 17, method: 'ping' } },
    { name: 'a null body', body: null },
    { name: 'a string body', body: 'ping' },
    { name: 'a batch over the limit', body: Array.from({ length: 101 }, (_, i) => request(i, 'ping')) },
    { name: 'a batch holding an invalid message', body: [request(18, 'ping'), { nope: true }] },
    { name: 'an Accept without the event stream', body: request(19, 'ping'), accept: 'application/json' },
    { name: 'no Accept', body: request(20, 'ping'), accept: '' },
    { name: 'a text/plain body', body: request(21, 'ping'), contentType: 'text/plain' },
    { name: 'a content type with parameters', body: request(22, 'ping'), contentType: 'application/json; charset=utf-8' },
    { name: 'a malformed content type', body: request(23, 'ping'), contentType: 'application/json;' },
    { name: 'an unsupported protocol version header', body: request(24, 'ping'), protocolVersion: '1999-01-01' },
    ...SUPPORTED_PROTOCOL_VERSIONS.map((version, i) => ({ name: `protocol version ${version}`, body: request(25 + i, 'ping'), protocolVersion: version }))
];

async function sdkAnswer(test: Case): Promise<{ status: number; body: unknown }> {
    const server = buildServer(INFO, TOOLS);
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    await server.connect(transport);
    const headers = new Headers({ accept: test.accept ?? ACCEPT, 'content-type': test.contentType ?? JSON_TYPE });
    if (test.protocolVersion) {
        headers.set('mcp-protocol-version', test.protocolVersion);
    }

    const answer = await transport.handleRequest(new Request('http://127.0.0.1/mcp', { method: 'POST', headers }), { parsedBody: test.body });
    const text = await answer.text();
    return { status: answer.status, body: text ? JSON.parse(text) : null };
}

async function ourAnswer(test: Case): Promise<{ status: number; body: unknown }> {
    const server = buildServer(INFO, TOOLS);
    const transport = new JsonResponseTransport();
    await server.connect(transport);
    const answer = await transport.handle({ accept: test.accept ?? ACCEPT, contentType: test.contentType ?? JSON_TYPE, protocolVersion: test.protocolVersion }, test.body);
    return JSON.parse(JSON.stringify(answer));
}

describe('the JSON-response transport', () => {

    for (const test of CASES) {
        it(`answers ${test.name} as the SDK's streamable HTTP transport does`, async () => {
            const ours = await ourAnswer(test);
            expect(ours).to.equal(await sdkAnswer(test));
        });
    }

    it('covers answers of every kind: results, errors, refusals and 202', async () => {
        const statuses = new Set((await Promise.all(CASES.map(ourAnswer))).map((answer) => answer.status));
        expect([...statuses].sort()).to.equal([200, 202, 400, 406, 415]);
    });

    it('refuses to be used for a second request, as the SDK\'s stateless transport does', async () => {
        const transport = new JsonResponseTransport();
        await buildServer(INFO, TOOLS).connect(transport);
        await transport.handle({ accept: ACCEPT, contentType: JSON_TYPE }, request(1, 'ping'));
        await expect(transport.handle({ accept: ACCEPT, contentType: JSON_TYPE }, request(2, 'ping'))).to.reject('Stateless transport cannot be reused across requests. Create a new transport per request.');
    });

    it('answers a tool that throws with a failure that does not repeat the error, and hands the error to the context\'s fault', async () => {
        const faults: unknown[] = [];
        const broken: Tool = {
            name: 'broken', group: 'test', title: 'Broken', description: 'Throws.', inputSchema: z.strictObject({}), annotations: { readOnlyHint: true },
            handler: async () => {
                throw new RangeError('Maximum call stack size exceeded');
            }
        };
        const transport = new JsonResponseTransport();
        await buildServer(INFO, [broken], { authorization: null, fault: (err) => faults.push(err) }).connect(transport);
        const answer = await transport.handle({ accept: ACCEPT, contentType: JSON_TYPE }, request(1, 'tools/call', { name: 'broken', arguments: {} }));
        const result = (answer.body as { result: { isError: boolean; content: Array<{ text: string }> } }).result;
        expect(result.isError).to.be.true();
        expect(result.content[0].text).to.equal('broken failed on the server\'s side; please try again later.');
        expect(JSON.stringify(answer.body)).to.not.contain('Maximum call stack');
        expect(faults).to.have.length(1);
        expect((faults[0] as Error).message).to.equal('Maximum call stack size exceeded');
    });
});
