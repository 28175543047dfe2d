import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';
import type { Server } from '@hapi/hapi';

import { mcpDeployment } from '../../manifest';
import type { McpConfig } from '../../manifest/config';
import { messages } from '../../plugins/auth/credentials';
import { caller, createKey, register } from '../helpers/api';
import { eventually } from '../helpers/apps';
import { call, connect, INITIALIZE, MCP_PUBLIC_URL, post, type ApiPath } from '../helpers/mcp';
import { testServer, type TestServer } from '../helpers/server';

// An allow-listed key behaves the same through /mcp as through REST: the MCP server passes its caller's address on
// (the request's own address in-process, X-Forwarded-For over HTTP), and the API believes it only in-process or from
// a proxy it trusts. The callers here reach the MCP server through a "proxy" on 127.0.0.1 that names them in
// X-Forwarded-For.
const { describe, it, after } = exports.lab = Lab.script();
const { expect } = Code;

const ALLOWED = '203.0.113.9';
const ELSEWHERE = '198.51.100.7';

interface Stack {
    api: TestServer;
    mcp: Server;
    url: string;
    stop(): Promise<void>;
}

async function stack(path: ApiPath, apiTrusts: string[], mcpTrusts: string[]): Promise<Stack> {
    const api = await testServer({ trustedProxies: apiTrusts }, { start: true });
    const config: McpConfig = { ...api.config, mcpPublicUrl: MCP_PUBLIC_URL, trustedProxies: mcpTrusts, ...(path === 'http' ? { apiBaseUrl: api.server.info.uri } : {}) };
    const mcp = await mcpDeployment({ config, start: true, ...(path === 'inject' ? { api: api.server } : {}), log: () => { } });
    return {
        api, mcp, url: `${mcp.info.uri}/mcp`,
        stop: async () => {
            await mcp.stop();
            await api.stop();
        }
    };
}

async function allowListedKey(api: TestServer): Promise<{ id: string; token: string; session: string }> {
    const user = await register(api.server, 'mcp-allow');
    const key = await createKey(api.server, user, ['projects:read']);
    const res = await caller(() => api.server)('PATCH', `/v1/users/me/api-keys/${key.id}/policy`, user.session, { allowedCidrs: [`${ALLOWED}/32`] });
    expect(res.statusCode).to.equal(200);
    return { ...key, session: user.session };
}

const stacks: Stack[] = [];
after(async () => {
    await Promise.all(stacks.map((s) => s.stop()));
});

for (const path of ['inject', 'http'] as ApiPath[]) {

    describe(`an allow-listed key through /mcp (API reached by ${path}, trusting the MCP server)`, () => {

        it('works from an allowed address and is refused from another, exactly as through REST', async () => {
            const s = await stack(path, ['127.0.0.1'], ['127.0.0.1']);
            stacks.push(s);
            const key = await allowListedKey(s.api);

            const client = await connect(s.url, { authorization: key.token, 'x-forwarded-for': ALLOWED });
            const listed = await call(client, 'projects_list');
            expect(listed.isError, JSON.stringify(listed)).to.not.be.true();
            expect(listed.structuredContent.items).to.have.length(1);
            await client.close();
            await eventually(async () => (await s.api.server.app.knex('api_keys').where({ id: key.id }).first('last_used_ip')).last_used_ip, (ip) => ip === ALLOWED, 'the forwarded address as the last use');

            const refused = await post(s.url, INITIALIZE, { authorization: key.token, 'x-forwarded-for': ELSEWHERE });
            expect(refused.status).to.equal(403);
            expect(((await refused.json()) as { error: { message: string } }).error.message).to.equal(messages.addressRefused(ELSEWHERE));

            const direct = await s.api.server.inject({ method: 'GET', url: '/v1/projects', remoteAddress: ELSEWHERE, headers: { authorization: key.token } });
            expect(direct.statusCode).to.equal(403);
            expect(direct.result).to.include({ message: messages.addressRefused(ELSEWHERE) });
            const allowed = await s.api.server.inject({ method: 'GET', url: '/v1/projects', remoteAddress: ALLOWED, headers: { authorization: key.token } });
            expect(allowed.statusCode).to.equal(200);
        });

        it('refuses the key when the MCP server does not trust the proxy in front of it', async () => {
            const s = await stack(path, ['127.0.0.1'], []);
            stacks.push(s);
            const key = await allowListedKey(s.api);
            const refused = await post(s.url, INITIALIZE, { authorization: key.token, 'x-forwarded-for': ALLOWED });
            expect(refused.status).to.equal(403);
            expect(((await refused.json()) as { error: { message: string } }).error.message).to.equal(messages.addressRefused('127.0.0.1'));
        });
    });
}

describe('an allow-listed key through /mcp over HTTP to an API that does not trust the MCP server', () => {

    it('is refused: the API believes a forwarded address only from a trusted proxy', async () => {
        const s = await stack('http', [], ['127.0.0.1']);
        stacks.push(s);
        const key = await allowListedKey(s.api);
        const refused = await post(s.url, INITIALIZE, { authorization: key.token, 'x-forwarded-for': ALLOWED });
        expect(refused.status).to.equal(403);
        expect(((await refused.json()) as { error: { message: string } }).error.message).to.equal(messages.addressRefused('127.0.0.1'));

        const session = await connect(s.url, { authorization: key.session, 'x-forwarded-for': ELSEWHERE });
        expect((await call(session, 'projects_list')).isError, 'sessions have no allow-list').to.not.be.true();
        await session.close();
    });
});
