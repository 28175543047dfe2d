import * as Path from 'node:path';

import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';

import { LEGACY_REVISIONS, META_CAPABILITIES, META_SERVER_INFO, META_VERSION, MODERN_REVISION } from '../../lib/mcp/revision';
import pkg from '../../package.json';
import { DOCS_INSTRUCTIONS } from '../../plugins/mcp-docs';
import { createKey, register, type TestUser } from '../helpers/api';
import { mcpInstance, post, type McpInstance } from '../helpers/mcp';

// Every supported revision with the SDK's own 2.x client: the 2025 revisions through `initialize` (the client's
// legacy mode, pinned to each), 2026-07-28 through `server/discover` and a `_meta` envelope on each request (the
// client's pinned and auto modes), on /mcp/docs, /mcp and stdio. Then a raw-HTTP table of the new revision's
// headers and errors, which the client never sends wrong.
const { describe, it, before, after } = exports.lab = Lab.script();
const { expect } = Code;

const root = Path.join(__dirname, '..', '..');
const stdioCommand = { command: process.execPath, args: ['-r', Path.join(root, 'scripts', 'ts-register.js'), Path.join(root, 'manifest', 'stdio.ts')], cwd: root };

type Mode = { legacy: string } | { modern: 'pin' | 'auto' };
const MODES: Mode[] = [...LEGACY_REVISIONS.map((legacy) => ({ legacy })), { modern: 'pin' as const }, { modern: 'auto' as const }];
const label = (mode: Mode) => 'legacy' in mode ? `${mode.legacy} (initialize)` : `${MODERN_REVISION} (server/discover, ${mode.modern})`;

function newClient(mode: Mode): Client {
    return 'legacy' in mode
        ? new Client({ name: 'revisions-test', version: '0' }, { supportedProtocolVersions: [mode.legacy] })
        : new Client({ name: 'revisions-test', version: '0' }, { versionNegotiation: { mode: mode.modern === 'pin' ? { pin: MODERN_REVISION } : 'auto' } });
}

async function session(mode: Mode, url: string, headers: Record<string, string> = {}): Promise<Client> {
    const client = newClient(mode);
    await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
    return client;
}

/** What each session must show: the negotiated revision, and for the new one the discovery and cache hints. */
async function checkSession(client: Client, mode: Mode, cache: { ttlMs: number; cacheScope: string }, serverName: string): Promise<string[]> {
    const listed = await client.listTools() as Awaited<ReturnType<Client['listTools']>> & { ttlMs?: number; cacheScope?: string };
    if ('legacy' in mode) {
        expect(client.getNegotiatedProtocolVersion()).to.equal(mode.legacy);
        expect(client.getProtocolEra()).to.equal('legacy');
        expect(listed.ttlMs).to.not.exist();
    }
    else {
        expect(client.getNegotiatedProtocolVersion()).to.equal(MODERN_REVISION);
        expect(client.getProtocolEra()).to.equal('modern');
        const discovered = client.getDiscoverResult()!;
        expect(discovered.supportedVersions).to.equal([MODERN_REVISION]);
        expect(discovered.capabilities).to.equal({ tools: {} });
        expect(discovered.instructions).to.be.a.string();
        expect((discovered._meta as Record<string, unknown>)[META_SERVER_INFO]).to.include({ name: serverName });
        expect({ ttlMs: listed.ttlMs, cacheScope: listed.cacheScope }).to.equal(cache);
    }

    return listed.tools.map((tool) => tool.name);
}

describe('the protocol revisions', () => {

    let instance: McpInstance;
    let user: TestUser;
    let key: string;

    before(async () => {
        instance = await mcpInstance();
        user = await register(instance.api.server, 'revisions');
        key = (await createKey(instance.api.server, user, ['projects:read', 'apps:read'])).token;
    });

    after(async () => {
        await instance?.stop();
    });

    describe('with the SDK client on /mcp/docs', () => {

        const lists: string[][] = [];
        for (const mode of MODES) {
            it(`speaks ${label(mode)}`, async () => {
                const client = await session(mode, `${instance.url}/mcp/docs`);
                try {
                    lists.push(await checkSession(client, mode, { ttlMs: 3_600_000, cacheScope: 'public' }, 'hostless-docs'));
                    const result = await client.callTool({ name: 'docs_get_page', arguments: { path: 'mcp' } });
                    expect(result.isError).to.not.be.true();
                    expect((result.structuredContent as { path: string }).path).to.equal('mcp');
                }
                finally {
                    await client.close();
                }
            });
        }

        it('lists the same tools in the same order on every revision', () => {
            expect(lists).to.have.length(MODES.length);
            lists.forEach((list) => expect(list).to.equal(lists[0]));
        });
    });

    describe('with the SDK client on /mcp', () => {

        const lists: string[][] = [];
        for (const mode of MODES) {
            it(`speaks ${label(mode)} with the caller's key`, async () => {
                const client = await session(mode, `${instance.url}/mcp`, { authorization: key });
                try {
                    lists.push(await checkSession(client, mode, { ttlMs: 300_000, cacheScope: 'private' }, 'hostless'));
                    const result = await client.callTool({ name: 'projects_list', arguments: {} });
                    expect(result.isError).to.not.be.true();
                    expect((result.structuredContent as { items: Array<{ id: string }> }).items.map((project) => project.id)).to.equal([user.projectId]);
                }
                finally {
                    await client.close();
                }
            });
        }

        it('lists the same tools in the same order on every revision', () => {
            expect(lists).to.have.length(MODES.length);
            lists.forEach((list) => expect(list).to.equal(lists[0]));
        });

        it('still asks every revision for a credential, discovery included', async () => {
            const client = newClient({ modern: 'pin' });
            await expect(client.connect(new StreamableHTTPClientTransport(new URL(`${instance.url}/mcp`)))).to.reject();
            const answer = await post(`${instance.url}/mcp`, modern(1, 'server/discover'), modernHeaders('server/discover'));
            expect(answer.status).to.equal(401);
        });
    });

    describe('with the SDK client on stdio', () => {

        for (const mode of [...LEGACY_REVISIONS.map((legacy) => ({ legacy })), { modern: 'pin' as const }] as Mode[]) {
            it(`speaks ${label(mode)}`, async () => {
                const env = { PATH: process.env.PATH ?? '', APP_TOKEN: key, API_BASE_URL: instance.api.server.info.uri, PUBLIC_URL: 'http://localhost:3000' };
                const client = newClient(mode);
                try {
                    await client.connect(new StdioClientTransport({ ...stdioCommand, env, stderr: 'ignore' }));
                    const names = await checkSession(client, mode, { ttlMs: 300_000, cacheScope: 'private' }, 'hostless');
                    expect(names).to.include(['projects_list', 'docs_search']);
                    const result = await client.callTool({ name: 'projects_list', arguments: {} });
                    expect((result.structuredContent as { items: Array<{ id: string }> }).items.map((project) => project.id)).to.equal([user.projectId]);
                }
                finally {
                    await client.close();
                }
            });
        }
    });

    describe('over raw HTTP', () => {

        interface Row {
            name: string;
            body: unknown;
            headers?: Record<string, string | undefined>;
            status: number;
            check: (body: any) => void;
        }

        const call = () => modern(3, 'tools/call', { name: 'docs_list', arguments: {} });
        const ROWS: Row[] = [
            {
                name: 'server/discover answers the versions, capabilities, identity and cache hints', body: modern(1, 'server/discover'), status: 200,
                check: (body) => expect(body.result).to.equal({
                    resultType: 'complete', supportedVersions: [MODERN_REVISION], capabilities: { tools: {} }, instructions: DOCS_INSTRUCTIONS,
                    ttlMs: 3_600_000, cacheScope: 'public', _meta: { [META_SERVER_INFO]: { name: 'hostless-docs', version: pkg.version } }
                })
            },
            {
                name: 'tools/list carries resultType, ttlMs and cacheScope', body: modern(2, 'tools/list'), status: 200,
                check: (body) => expect(body.result).to.include({ resultType: 'complete', ttlMs: 3_600_000, cacheScope: 'public' })
            },
            { name: 'tools/call carries resultType', body: call(), status: 200, check: (body) => expect(body.result).to.include({ resultType: 'complete' }) },
            { name: 'Mcp-Name may come Base64-encoded', body: call(), headers: { 'mcp-name': `=?base64?${Buffer.from('docs_list').toString('base64')}?=` }, status: 200, check: (body) => expect(body.result.resultType).to.equal('complete') },
            { name: 'a tool call without Mcp-Name is a HeaderMismatch', body: call(), headers: { 'mcp-name': undefined }, status: 400, check: headerMismatch(/Mcp-Name header is absent/) },
            { name: 'an Mcp-Name naming another tool is a HeaderMismatch', body: call(), headers: { 'mcp-name': 'docs_search' }, status: 400, check: headerMismatch(/names docs_search/) },
            { name: 'an Mcp-Method naming another method is a HeaderMismatch', body: modern(4, 'tools/list'), headers: { 'mcp-method': 'tools/call' }, status: 400, check: headerMismatch(/Mcp-Method/) },
            { name: 'a request without Mcp-Method is a HeaderMismatch', body: modern(5, 'tools/list'), headers: { 'mcp-method': undefined }, status: 400, check: headerMismatch(/Mcp-Method header is absent/) },
            { name: 'a request without MCP-Protocol-Version is a HeaderMismatch', body: modern(6, 'tools/list'), headers: { 'mcp-protocol-version': undefined }, status: 400, check: headerMismatch(/MCP-Protocol-Version header is absent/) },
            { name: 'a header version other than the body\'s is a HeaderMismatch', body: modern(7, 'tools/list'), headers: { 'mcp-protocol-version': '2026-12-01' }, status: 400, check: headerMismatch(/MCP-Protocol-Version header names 2026-12-01/) },
            { name: 'a later version is refused with the supported list', body: modern(8, 'tools/list', {}, '2027-01-01'), headers: { 'mcp-protocol-version': '2027-01-01' }, status: 400, check: unsupported('2027-01-01') },
            { name: 'a 2025 version in _meta is refused with the supported list', body: modern(9, 'tools/list', {}, '2025-11-25'), headers: { 'mcp-protocol-version': '2025-11-25' }, status: 400, check: unsupported('2025-11-25') },
            { name: 'ping is gone', body: modern(10, 'ping'), status: 200, check: (body) => expect(body.error.code).to.equal(-32601) },
            { name: 'logging/setLevel is gone', body: modern(11, 'logging/setLevel', { level: 'info' }), status: 200, check: (body) => expect(body.error.code).to.equal(-32601) },
            {
                name: 'the new version header without the envelope is invalid params', body: { jsonrpc: '2.0', id: 12, method: 'tools/list' }, status: 400,
                check: (body) => expect(body.error).to.include({ code: -32602 })
            },
            {
                name: 'initialize with the new version header is a HeaderMismatch',
                body: { jsonrpc: '2.0', id: 13, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '0' } } },
                headers: { 'mcp-method': 'initialize' }, status: 400, check: headerMismatch(/initialize/)
            },
            { name: 'an envelope without client capabilities is invalid params', body: withoutCapabilities(modern(14, 'tools/list')), status: 400, check: (body) => expect(body.error.code).to.equal(-32602) },
            { name: 'a batch may not hold a request of the new revision', body: [modern(15, 'tools/list')], status: 400, check: (body) => expect(body.error.code).to.equal(-32600) },
            { name: 'a notification of the new revision is accepted', body: { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1, _meta: envelope(MODERN_REVISION) } }, headers: { 'mcp-method': 'notifications/cancelled' }, status: 202, check: (body) => expect(body).to.equal('') },
            { name: 'an Accept without the event stream is refused as for every revision', body: modern(16, 'tools/list'), headers: { accept: 'application/json' }, status: 406, check: (body) => expect(body.error.code).to.equal(-32000) }
        ];

        for (const row of ROWS) {
            it(row.name, async () => {
                const method = Array.isArray(row.body) ? 'tools/list' : (row.body as { method: string }).method;
                const name = (row.body as { params?: { name?: string } }).params?.name;
                const headers = Object.entries({ ...modernHeaders(method, name), ...row.headers }).filter(([, value]) => value !== undefined) as Array<[string, string]>;
                const answer = await post(`${instance.url}/mcp/docs`, row.body, Object.fromEntries(headers));
                const text = await answer.text();
                expect(answer.status, text).to.equal(row.status);
                row.check(text ? JSON.parse(text) : '');
            });
        }

        it('marks the platform list private to its caller', async () => {
            const answer = await post(`${instance.url}/mcp`, modern(1, 'tools/list'), { ...modernHeaders('tools/list'), authorization: key });
            expect(answer.status).to.equal(200);
            expect((await answer.json() as { result: Record<string, unknown> }).result).to.include({ resultType: 'complete', ttlMs: 300_000, cacheScope: 'private' });
        });
    });
});

function envelope(version: string): Record<string, unknown> {
    return { [META_VERSION]: version, 'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '0' }, [META_CAPABILITIES]: {} };
}

function modern(id: number, method: string, params: Record<string, unknown> = {}, version = MODERN_REVISION) {
    return { jsonrpc: '2.0', id, method, params: { ...params, _meta: envelope(version) } };
}

function modernHeaders(method: string, name?: string): Record<string, string> {
    return { 'mcp-protocol-version': MODERN_REVISION, 'mcp-method': method, ...(name ? { 'mcp-name': name } : {}) };
}

function withoutCapabilities(message: ReturnType<typeof modern>) {
    const meta: Record<string, unknown> = { ...message.params._meta };
    delete meta[META_CAPABILITIES];
    return { ...message, params: { _meta: meta } };
}

function headerMismatch(message: RegExp) {
    return (body: any) => {
        expect(body.error.code).to.equal(-32020);
        expect(body.error.message).to.match(message);
    };
}

function unsupported(requested: string) {
    return (body: any) => {
        expect(body.error.code).to.equal(-32022);
        expect(body.error.data).to.equal({ supported: [MODERN_REVISION], requested });
    };
}
