// The server side of the API benchmark, run in its own process so the load generator does not share its thread.
// It mounts GET /bench/projects-without-auth: the very handler and validation of projects.list, with the access
// context fixed in advance instead of resolved from a credential, so the two URLs differ by the pipeline alone.
// Beside it runs the MCP server as `npm start` runs it: same process, reaching the API through inject().
import * as Fs from 'node:fs';
import * as Os from 'node:os';
import * as Path from 'node:path';

import type { Lifecycle, Request } from '@hapi/hapi';

import { deployment, mcpDeployment } from '../manifest';
import { loadConfig } from '../manifest/config';
import type { Access } from '../lib/access';
import { SESSION_SCOPES } from '../lib/scopes';

async function main(): Promise<void> {
    const dataDir = Fs.mkdtempSync(Path.join(Os.tmpdir(), 'hostless-bench-'));
    const config = { ...loadConfig({ DATA_DIR: dataDir, PASSWORD_HASH_COST: '1024' }), port: 0 };
    const server = await deployment({ config, log: () => { } });

    const registered = await server.inject({ method: 'POST', url: '/v1/auth/register', payload: { email: 'bench@example.test', password: 'bench password' } });
    const { user, accessToken } = registered.result as { user: { id: string; email: string }; accessToken: string };
    for (let i = 0; i < 20; ++i) {
        await server.inject({ method: 'POST', url: '/v1/projects', headers: { authorization: `Bearer ${accessToken}` }, payload: { name: `Project ${i}` } });
        await server.inject({ method: 'POST', url: '/v1/apps', headers: { authorization: `Bearer ${accessToken}` }, payload: { name: `bench-app-${i}` } });
    }

    const created = await server.inject({ method: 'POST', url: '/v1/users/me/api-keys', headers: { authorization: `Bearer ${accessToken}` }, payload: { name: 'bench', scopes: ['projects:read', 'apps:read'] } });
    const token = (created.result as { token: string }).token;

    const route = server.table().find((r) => r.settings.id === 'projects.list')!;
    const handler = route.settings.handler as Lifecycle.Method;
    const fixed: Access = { user: { id: user.id, email: user.email, isAdmin: false }, via: 'session', credentialId: 'bench', scopes: SESSION_SCOPES, pinnedProjects: null, project: null, resource: null, ids: {}, rows: {} };
    server.route({
        method: 'GET',
        path: '/bench/projects-without-auth',
        options: {
            auth: false,
            validate: route.settings.validate,
            handler: (request: Request, h) => {
                request.plugins.platform = fixed;
                return handler.call(null, request, h);
            }
        }
    });

    server.route({ method: 'GET', path: '/bench/trivial', options: { auth: false, handler: () => ({ ok: true }) } });
    server.route({ method: 'GET', path: '/bench/trivial-auth', options: { auth: { strategy: 'platform' }, handler: () => ({ ok: true }) } });
    await server.start();
    const mcp = await mcpDeployment({ config, api: server, start: true, log: () => { } });
    process.send!({ port: server.info.port, mcpPort: mcp.info.port, token });
    process.on('message', async (message) => {
        if (message === 'stop') {
            await mcp.stop();
            await server.stop();
            Fs.rmSync(dataDir, { recursive: true, force: true });
            process.exit(0);
        }
    });
}

main().catch((err) => {
    console.error(err);
    process.exit(1);
});
