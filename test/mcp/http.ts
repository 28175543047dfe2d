import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import * as Http from 'node:http';

import { loopbackHosts, loopbackOrigins } from '../../lib/mcp/http';
import { runCli } from '../../manifest/cli';
import { mcpMountedTables } from '../../manifest/mcp';
import { MCP_ROUTE_TABLES } from '../../manifest/routes/mcp';
import { caller, createKey, register, type TestUser } from '../helpers/api';
import { call, connect, INITIALIZE, LIST_TOOLS, mcpInstance, MCP_PUBLIC_URL, METADATA_URL, post, type McpInstance } from '../helpers/mcp';

// The MCP server's HTTP surface over real HTTP: health, protected-resource metadata, 405s, the Origin check, and
// the 401 challenges of POST /mcp, decided before the body is read and from the API on every request.
const { describe, it, before, after } = exports.lab = Lab.script();
const { expect } = Code;

/** A request with a Host header of its own (fetch does not let a caller set one). */
function withHost(base: string, method: 'GET' | 'POST', path: string, host: string, body?: unknown, extra: Record<string, string> = {}): Promise<{ status: number; body: string }> {
    return new Promise((resolve, reject) => {
        const headers: Record<string, string> = { host, accept: 'application/json, text/event-stream', ...extra };
        if (body !== undefined) {
            headers['content-type'] = 'application/json';
        }

        const req = Http.request(`${base}${path}`, { method, headers }, (res) => {
            let text = '';
            res.setEncoding('utf8');
            res.on('data', (chunk) => text += chunk);
            res.on('end', () => resolve({ status: res.statusCode!, body: text }));
        });
        req.on('error', reject);
        req.end(body === undefined ? undefined : JSON.stringify(body));
    });
}

const CHALLENGE = `Bearer resource_metadata="${METADATA_URL}"`;

describe('the MCP server over HTTP', () => {

    let instance: McpInstance;
    let user: TestUser;
    let key: string;

    before(async () => {
        instance = await mcpInstance();
        user = await register(instance.api.server, 'mcp-http');
        key = (await createKey(instance.api.server, user, ['projects:read'])).token;
    });

    after(async () => {
        await instance?.stop();
    });

    describe('GET /health', () => {

        it('answers ok with the API address and the docs endpoint, without a credential', async () => {
            const res = await fetch(`${instance.url}/health`);
            expect(res.status).to.equal(200);
            expect(await res.json()).to.equal({ ok: true, service: 'hostless-mcp', baseUrl: 'http://localhost:3000', docsMcpPath: '/mcp/docs' });
        });
    });

    describe('protected-resource metadata (RFC 9728)', () => {

        it('names exactly the /mcp URL as the resource and the API as the authorization server, at both addresses', async () => {
            const answers = [];
            for (const path of ['/.well-known/oauth-protected-resource', '/.well-known/oauth-protected-resource/mcp']) {
                const res = await fetch(`${instance.url}${path}`);
                expect(res.status).to.equal(200);
                expect(res.headers.get('content-type')!).to.startWith('application/json');
                answers.push(await res.json() as any);
            }

            expect(answers[0]).to.equal(answers[1]);
            expect(answers[0].resource).to.equal(`${MCP_PUBLIC_URL}/mcp`);
            expect(answers[0].authorization_servers).to.equal(['http://localhost:3000']);
            expect(answers[0].bearer_methods_supported).to.equal(['header']);
            expect(answers[0].scopes_supported).to.include('projects:read');
            expect(answers[0].scopes_supported.every((scope: string) => scope.endsWith(':read'))).to.be.true();
        });
    });

    describe('GET and DELETE', () => {

        it('answer 405 with Allow: POST on both MCP endpoints, with or without a credential', async () => {
            for (const path of ['/mcp', '/mcp/docs']) {
                for (const method of ['GET', 'DELETE']) {
                    for (const headers of [{}, { authorization: key }] as Record<string, string>[]) {
                        const res = await fetch(`${instance.url}${path}`, { method, headers });
                        expect(res.status, `${method} ${path}`).to.equal(405);
                        expect(res.headers.get('allow')).to.equal('POST');
                        expect((await res.json() as any).error.message as string).to.startWith('Method not allowed');
                    }
                }
            }
        });
    });

    describe('the Origin and Host checks', () => {

        it('refuses a present Origin that is not allowed with 403 on both endpoints, before any credential check', async () => {
            for (const path of ['/mcp', '/mcp/docs']) {
                for (const headers of [{}, { authorization: key }] as Record<string, string>[]) {
                    const res = await post(`${instance.url}${path}`, INITIALIZE, { origin: 'https://evil.example', ...headers });
                    expect(res.status, path).to.equal(403);
                    expect((await res.json() as any).error.message).to.include('Origin not allowed');
                }

                const get = await fetch(`${instance.url}${path}`, { headers: { origin: 'http://evil.example' } });
                expect(get.status).to.equal(403);
            }
        });

        it('lets an allowed Origin and a request without Origin through', async () => {
            for (const headers of [{ origin: MCP_PUBLIC_URL }, { origin: 'http://LOCALHOST:3000' }, {}] as Record<string, string>[]) {
                const res = await post(`${instance.url}/mcp/docs`, INITIALIZE, headers);
                expect(res.status).to.equal(200);
            }
        });

        it('refuses a Host header outside the loopback names and MCP_PUBLIC_URL\'s host with 403, on every route of the server', async () => {
            for (const [method, path, body] of [['POST', '/mcp', INITIALIZE], ['POST', '/mcp/docs', INITIALIZE], ['GET', '/health', undefined], ['GET', '/.well-known/oauth-protected-resource', undefined]] as const) {
                const res = await withHost(instance.url, method, path, 'evil.example:3001', body);
                expect(res.status, path).to.equal(403);
                expect(JSON.parse(res.body).error.message as string).to.startWith('Host not allowed: this server listens on a loopback address and answers to localhost, 127.0.0.1, [::1] only');
            }

            for (const host of ['localhost:3001', '127.0.0.1', '[::1]:3001', 'LOCALHOST']) {
                expect((await withHost(instance.url, 'GET', '/health', host)).status, host).to.equal(200);
            }
        });

        it('answers to MCP_PUBLIC_URL\'s host, and names the loopback binds the Host check applies to', async () => {
            const proxied = await mcpInstance({ mcpPublicUrl: 'https://mcp.example.test' });
            try {
                expect((await withHost(proxied.url, 'POST', '/mcp/docs', 'mcp.example.test', INITIALIZE)).status).to.equal(200);
                expect((await withHost(proxied.url, 'POST', '/mcp/docs', 'other.example.test', INITIALIZE)).status).to.equal(403);
            }
            finally {
                await proxied.stop();
            }

            expect(loopbackHosts('0.0.0.0', 'https://mcp.example.test')).to.be.null();
            expect(loopbackHosts('10.0.0.5', 'https://mcp.example.test')).to.be.null();
            expect(loopbackHosts('127.0.0.2', 'http://localhost:3001')).to.equal(['localhost', '127.0.0.1', '[::1]', '127.0.0.2']);
            expect(loopbackHosts('::1', 'https://mcp.example.test')).to.equal(['localhost', '127.0.0.1', '[::1]', 'mcp.example.test']);
        });

        it('takes the loopback origins of its own port on a loopback bind whose public URL says localhost, and no other', async () => {
            const port = Number(instance.mcp.info.port);
            for (const path of ['/mcp', '/mcp/docs']) {
                for (const origin of [`http://127.0.0.1:${port}`, `http://[::1]:${port}`, `http://localhost:${port}`]) {
                    const res = await post(`${instance.url}${path}`, INITIALIZE, { origin, ...(path === '/mcp' ? { authorization: key } : {}) });
                    expect(res.status, `${path} ${origin}`).to.equal(200);
                }

                for (const origin of [`http://127.0.0.1:${port + 1}`, `https://127.0.0.1:${port}`, `http://127.0.0.2:${port}`, `http://evil.example:${port}`, `http://127.0.0.1:${port}/path`]) {
                    const res = await post(`${instance.url}${path}`, INITIALIZE, { origin });
                    expect(res.status, `${path} ${origin}`).to.equal(403);
                }
            }

            const proxied = await mcpInstance({ mcpPublicUrl: 'https://mcp.example.test' });
            try {
                const res = await withHost(proxied.url, 'POST', '/mcp/docs', 'mcp.example.test', INITIALIZE, { origin: `http://127.0.0.1:${proxied.mcp.info.port}` });
                expect(res.status, 'a public URL that is not localhost').to.equal(403);
            }
            finally {
                await proxied.stop();
            }

            expect(loopbackOrigins('127.0.0.1', 'http://localhost:3001')).to.be.true();
            expect(loopbackOrigins('0.0.0.0', 'http://localhost:3001')).to.be.false();
            expect(loopbackOrigins('::1', 'https://mcp.example.test')).to.be.false();
        });

        it('allows every origin with *', async () => {
            const open = await mcpInstance({ mcpAllowedOrigins: ['*'] });
            try {
                const res = await post(`${open.url}/mcp/docs`, INITIALIZE, { origin: 'https://anything.example' });
                expect(res.status).to.equal(200);
            }
            finally {
                await open.stop();
            }
        });
    });

    describe('POST /mcp without a usable credential', () => {

        it('answers 401 with exactly the bare challenge when no Authorization is sent', async () => {
            const res = await post(`${instance.url}/mcp`, INITIALIZE);
            expect(res.status).to.equal(401);
            expect(res.headers.get('www-authenticate')).to.equal(CHALLENGE);
            expect((await res.json() as any).error.code).to.equal(-32000);
        });

        it('answers the same bare challenge to a malformed Authorization header', async () => {
            for (const authorization of ['Basic dXNlcjpwYXNz', 'Bearer', 'Bearer two tokens', 'not-a-key', '']) {
                const res = await post(`${instance.url}/mcp`, INITIALIZE, { authorization });
                expect(res.status, authorization).to.equal(401);
                expect(res.headers.get('www-authenticate'), authorization).to.equal(CHALLENGE);
            }
        });

        it('treats two Authorization headers as malformed', async () => {
            const headers = new Headers({ 'content-type': 'application/json', accept: 'application/json, text/event-stream' });
            headers.append('authorization', key);
            headers.append('authorization', key);
            const res = await fetch(`${instance.url}/mcp`, { method: 'POST', headers, body: JSON.stringify(INITIALIZE) });
            expect(res.status).to.equal(401);
            expect(res.headers.get('www-authenticate')).to.equal(CHALLENGE);
        });

        it('answers 401 before reading the body: a malformed body gets the challenge, not a parse error', async () => {
            const res = await post(`${instance.url}/mcp`, '{not json');
            expect(res.status).to.equal(401);
            expect(res.headers.get('www-authenticate')).to.equal(CHALLENGE);
        });

        it('answers 401 with error="invalid_token" to a credential the API refuses', async () => {
            for (const authorization of ['Bearer xyz', 'svk_abcdefghij_notavalidsecret', `Bearer ${user.accessToken}x`]) {
                const res = await post(`${instance.url}/mcp`, INITIALIZE, { authorization });
                expect(res.status, authorization).to.equal(401);
                expect(res.headers.get('www-authenticate')).to.match(/^Bearer error="invalid_token", error_description="[^"]+", resource_metadata="http:\/\/localhost:3001\/\.well-known\/oauth-protected-resource"$/);
            }
        });

        it('shows the SDK client the 401 on connect', async () => {
            await expect(connect(`${instance.url}/mcp`)).to.reject(/Streamable HTTP error: Error POSTing to endpoint/);
        });
    });

    describe('POST /mcp with a live credential', () => {

        it('accepts an API key bare and with Bearer, and a session token', async () => {
            for (const authorization of [key, `Bearer ${key}`, user.session]) {
                const res = await post(`${instance.url}/mcp`, LIST_TOOLS, { authorization });
                expect(res.status, authorization.slice(0, 10)).to.equal(200);
                expect(res.headers.get('mcp-session-id'), 'stateless: no session id').to.be.null();
                expect((await res.json() as any).result.tools.length as number).to.be.above(0);
            }
        });

        it('refuses a revoked key with 401 at the next request', async () => {
            const doomed = await createKey(instance.api.server, user, ['projects:read']);
            const client = await connect(`${instance.url}/mcp`, { authorization: doomed.token });
            try {
                expect((await call(client, 'projects_list')).isError).to.not.be.true();
                const revoked = await caller(() => instance.api.server)('DELETE', `/v1/users/me/api-keys/${doomed.id}`, user.session);
                expect(revoked.statusCode).to.equal(200);

                await expect(call(client, 'projects_list')).to.reject(/Streamable HTTP error/);
                const res = await post(`${instance.url}/mcp`, LIST_TOOLS, { authorization: doomed.token });
                expect(res.status).to.equal(401);
                expect(res.headers.get('www-authenticate')).to.equal(`Bearer error="invalid_token", error_description="API key has been revoked", resource_metadata="${METADATA_URL}"`);
            }
            finally {
                await client.close();
            }
        });

        it('refuses a disabled user\'s key with 401 at the next request', async () => {
            const other = await register(instance.api.server, 'mcp-disabled');
            const otherKey = (await createKey(instance.api.server, other, ['projects:read'])).token;
            expect((await post(`${instance.url}/mcp`, LIST_TOOLS, { authorization: otherKey })).status).to.equal(200);
            expect(await runCli(['user', 'disable', other.email], instance.api.config, () => { })).to.equal(0);
            const res = await post(`${instance.url}/mcp`, LIST_TOOLS, { authorization: otherKey });
            expect(res.status).to.equal(401);
            expect(res.headers.get('www-authenticate')).to.equal(`Bearer error="invalid_token", error_description="Account is disabled", resource_metadata="${METADATA_URL}"`);
        });

        it('refuses a session token with 401 once the session has logged out', async () => {
            const other = await register(instance.api.server, 'mcp-logout');
            expect((await post(`${instance.url}/mcp`, LIST_TOOLS, { authorization: other.session })).status).to.equal(200);
            expect((await caller(() => instance.api.server)('POST', '/v1/auth/logout', other.session)).statusCode).to.equal(204);
            const res = await post(`${instance.url}/mcp`, LIST_TOOLS, { authorization: other.session });
            expect(res.status).to.equal(401);
            expect(res.headers.get('www-authenticate')).to.include('error="invalid_token"');
        });
    });

    describe('POST /mcp/docs', () => {

        it('never answers 401: no credential, a malformed one and a dead one are all ignored', async () => {
            for (const headers of [{}, { authorization: 'Basic abc' }, { authorization: 'Bearer dead' }] as Record<string, string>[]) {
                const res = await post(`${instance.url}/mcp/docs`, LIST_TOOLS, headers);
                expect(res.status).to.equal(200);
                expect(res.headers.get('www-authenticate')).to.be.null();
            }
        });

        it('answers a malformed body with the JSON-RPC parse error', async () => {
            for (const body of ['{not json', '{}', 'null', '{"__proto__":{"x":1},"jsonrpc":"2.0","id":1,"method":"tools/list"}']) {
                const res = await post(`${instance.url}/mcp/docs`, body);
                expect(res.status, body).to.equal(400);
                expect((await res.json() as any).error.code, body).to.equal(-32700);
            }
        });

        it('refuses another content type with 415, a body over 4 MiB with 413 and an unsupported protocol version with 400', async () => {
            const plain = await fetch(`${instance.url}/mcp/docs`, { method: 'POST', headers: { 'content-type': 'text/plain', accept: 'application/json, text/event-stream' }, body: '{}' });
            expect(plain.status).to.equal(415);
            expect((await plain.json() as any).error.message).to.equal('Unsupported Media Type: Content-Type must be application/json');
            const large = await post(`${instance.url}/mcp/docs`, `"${'a'.repeat(4 * 1024 * 1024)}"`);
            expect(large.status).to.equal(413);
            const version = await post(`${instance.url}/mcp/docs`, LIST_TOOLS, { 'mcp-protocol-version': '1999-01-01' });
            expect(version.status).to.equal(400);
            expect((await version.json() as any).error.message as string).to.startWith('Bad Request: Unsupported protocol version: 1999-01-01');
        });

        it('answers a notification with 202 and no body, and an unknown method with the JSON-RPC error', async () => {
            const notification = await post(`${instance.url}/mcp/docs`, { jsonrpc: '2.0', method: 'notifications/initialized' });
            expect(notification.status).to.equal(202);
            expect(await notification.text()).to.equal('');
            const unknown = await post(`${instance.url}/mcp/docs`, { jsonrpc: '2.0', id: 3, method: 'nope' });
            expect(unknown.status).to.equal(200);
            expect(await unknown.json()).to.equal({ jsonrpc: '2.0', id: 3, error: { code: -32601, message: 'Method not found' } });
        });

        it('sends the security headers on MCP answers', async () => {
            const res = await post(`${instance.url}/mcp/docs`, LIST_TOOLS);
            expect(res.headers.get('x-content-type-options')).to.equal('nosniff');
            expect(res.headers.get('x-frame-options')).to.equal('DENY');
            expect(res.headers.get('content-type')!).to.startWith('application/json');
        });
    });

    describe('the route table', () => {

        it('mounts exactly the rows of the MCP route tables, no /v1 route among them', () => {
            const expected = MCP_ROUTE_TABLES.flatMap((table) => table.rows.map((row) => `${row.method} ${row.path} ${row.id}`)).sort();
            const mounted = instance.mcp.table().map((route) => `${route.method.toUpperCase()} ${route.path} ${route.settings.id}`).sort();
            expect(mounted).to.equal(expected);
            expect(mcpMountedTables()).to.equal([...MCP_ROUTE_TABLES]);
            expect(mounted.some((route) => route.includes('/v1'))).to.be.false();
        });

        it('asks a credential on POST /mcp only', () => {
            const credentialed = instance.mcp.table().filter((route) => (route.settings.auth as unknown) !== false).map((route) => `${route.method} ${route.path}`);
            expect(credentialed).to.equal(['post /mcp']);
        });
    });

    describe('the log', () => {

        it('records each MCP request with its status and credential id, and never a credential', async () => {
            await post(`${instance.url}/mcp`, LIST_TOOLS, { authorization: key });
            const lines = instance.logs.map((line) => JSON.parse(line));
            expect(lines.some((line) => line.route === 'mcp.platform' && line.status === 200 && line.via === 'key')).to.be.true();
            expect(lines.some((line) => line.route === 'mcp.platform' && line.status === 401)).to.be.true();
            expect(instance.logs.join('')).to.not.include(key);
        });
    });
});
