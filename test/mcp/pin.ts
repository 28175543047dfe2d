import * as Path from 'node:path';

import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';
import type { Server } from '@hapi/hapi';
import { Client as StdioClient, type Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

import { mcpDeployment } from '../../manifest';
import { caller, createKey, register, type TestUser } from '../helpers/api';
import { call, connect, LIST_TOOLS, mcpInstance, post, text, type McpInstance } from '../helpers/mcp';

// The server, not the prompt, keeps an agent inside its project: X-MCP-Project (and the operator's MCP_PROJECT_ID)
// pins every call to one project. The API intersects the pin with membership in its one reachability step: lists
// hold only that project, creates default to it, and a name in another project is the same 404 as a missing one.
const { describe, it, before, after } = exports.lab = Lab.script();
const { expect } = Code;

const root = Path.join(__dirname, '..', '..');
const stdioCommand = { command: process.execPath, args: ['-r', Path.join(root, 'scripts', 'ts-register.js'), Path.join(root, 'manifest', 'stdio.ts')], cwd: root };

describe('a project pin', () => {

    let instance: McpInstance;
    let user: TestUser;
    let key: string;
    let other: string;                                          // a second project of the same user
    const clients: Client[] = [];
    const rest = (method: string, url: string, authorization: string, payload?: object, headers: Record<string, string> = {}) =>
        instance.api.server.inject({ method, url, headers: { authorization, ...headers }, ...(payload ? { payload } : {}) });
    const open = async (headers: Record<string, string>, url = `${instance.url}/mcp`) => {
        const client = await connect(url, { authorization: key, ...headers });
        clients.push(client);
        return client;
    };

    before(async () => {
        instance = await mcpInstance();
        user = await register(instance.api.server, 'pin');
        other = (await caller(() => instance.api.server)('POST', '/v1/projects', user.session, { name: 'Other' })).result.id;
        key = (await createKey(instance.api.server, user, ['projects:read', 'apps:read', 'apps:write', 'apps:delete'])).token;
        const unpinned = await open({});
        for (const [name, projectId] of [['pin-home-a', user.projectId], ['pin-home-b', user.projectId], ['pin-away', other]] as const) {
            expect((await call(unpinned, 'apps_create', { name, projectId })).isError).to.not.be.true();
        }
    });

    after(async () => {
        await Promise.all(clients.map((client) => client.close()));
        await instance?.stop();
    });

    it('keeps lists to the pinned project, page after page', async () => {
        const pinned = await open({ 'x-mcp-project': user.projectId });
        expect((await call(pinned, 'projects_list')).structuredContent.items.map((project: any) => project.id)).to.equal([user.projectId]);
        const first = await call(pinned, 'apps_list', { limit: 1 });
        const second = await call(pinned, 'apps_list', { limit: 1, cursor: first.structuredContent.nextCursor });
        expect([...first.structuredContent.items, ...second.structuredContent.items].map((app: any) => app.name).sort()).to.equal(['pin-home-a', 'pin-home-b']);
        expect(second.structuredContent.nextCursor).to.not.exist();

        const unpinned = await open({});
        expect((await call(unpinned, 'apps_list')).structuredContent.items.map((app: any) => app.name)).to.include('pin-away');
    });

    it('answers a name or project outside the pin with the same 404 as a missing one, whatever the arguments say', async () => {
        const pinned = await open({ 'x-mcp-project': user.projectId });
        const away = await call(pinned, 'apps_get', { name: 'pin-away' });
        const missing = await call(pinned, 'apps_get', { name: 'pin-nowhere' });
        expect(away.isError).to.be.true();
        expect(text(away)).to.include('404 Not Found: App not found');
        expect(text(away).replace('pin-away', '')).to.equal(text(missing).replace('pin-nowhere', ''));
        for (const [name, args] of [['apps_list', { projectId: other }], ['projects_get', { projectId: other }], ['apps_create', { name: 'pin-sneak', projectId: other }], ['apps_delete', { name: 'pin-away' }]] as const) {
            const refused = await call(pinned, name, args);
            expect(refused.isError, name).to.be.true();
            expect(text(refused), name).to.include('404 Not Found');
        }

        expect((await rest('GET', '/v1/apps/pin-away', user.session)).statusCode).to.equal(200);
    });

    it('creates in the pinned project when no projectId is given', async () => {
        const pinned = await open({ 'x-mcp-project': other });
        const created = await call(pinned, 'apps_create', { name: 'pin-default' });
        expect(created.isError, text(created)).to.not.be.true();
        expect(created.structuredContent.projectId).to.equal(other);
    });

    it('reaches nothing in a project the caller is not a member of', async () => {
        const stranger = await register(instance.api.server, 'pin-stranger');
        const pinned = await open({ 'x-mcp-project': stranger.projectId });
        expect((await call(pinned, 'projects_list')).structuredContent.items).to.equal([]);
        expect((await call(pinned, 'apps_list')).structuredContent.items).to.equal([]);
    });

    it('refuses a malformed X-MCP-Project header', async () => {
        const answer = await post(`${instance.url}/mcp`, LIST_TOOLS, { authorization: key, 'x-mcp-project': 'all' });
        expect(answer.status).to.equal(400);
        expect(((await answer.json()) as { error: { message: string } }).error.message).to.include('X-MCP-Project header must be one project id');
    });

    it('narrows REST too with X-Project-Pin, and refuses a malformed one', async () => {
        const listed = await rest('GET', '/v1/apps', key, undefined, { 'x-project-pin': other });
        expect((listed.result as Array<{ projectId: string }>).every((app) => app.projectId === other)).to.be.true();
        expect((await rest('GET', '/v1/apps', key, undefined, { 'x-project-pin': 'prj_x' })).statusCode).to.equal(400);
    });

    it('pins stdio mode to MCP_PROJECT_ID', async () => {
        const env = { PATH: process.env.PATH ?? '', APP_TOKEN: key, API_BASE_URL: instance.api.server.info.uri, PUBLIC_URL: 'http://localhost:3000', MCP_PROJECT_ID: other };
        const client = new StdioClient({ name: 'pin-stdio', version: '0' });
        try {
            await client.connect(new StdioClientTransport({ ...stdioCommand, env, stderr: 'ignore' }));
            expect((await call(client, 'projects_list')).structuredContent.items.map((project: any) => project.id)).to.equal([other]);
            expect((await call(client, 'apps_get', { name: 'pin-home-a' })).isError).to.be.true();
        }
        finally {
            await client.close();
        }
    });

    describe('set by the operator (MCP_PROJECT_ID)', () => {

        let operator: Server;

        before(async () => {
            operator = await mcpDeployment({ config: { ...instance.config, mcpProjectId: user.projectId }, api: instance.api.server, start: true, log: () => { } });
        });

        after(async () => {
            await operator?.stop();
        });

        it('pins every call, and a header may not name another project', async () => {
            const pinned = await open({}, `${operator.info.uri}/mcp`);
            expect((await call(pinned, 'projects_list')).structuredContent.items.map((project: any) => project.id)).to.equal([user.projectId]);
            expect((await call(pinned, 'apps_get', { name: 'pin-away' })).isError).to.be.true();

            const same = await open({ 'x-mcp-project': user.projectId }, `${operator.info.uri}/mcp`);
            expect((await call(same, 'apps_get', { name: 'pin-home-a' })).isError).to.not.be.true();
            const widened = await post(`${operator.info.uri}/mcp`, LIST_TOOLS, { authorization: key, 'x-mcp-project': other });
            expect(widened.status).to.equal(400);
            expect(((await widened.json()) as { error: { message: string } }).error.message).to.include('can only narrow');
        });
    });
});
