// The server side of the API benchmark, run in its own process so the load generator does not share its thread.
// It mounts GET /bench/projects-without-auth: the very handler and validation of projects.list, with the access
// context fixed in advance instead of resolved from a credential, so the two URLs differ by the pipeline alone.
// GET /bench/projects-jwt is the same again behind @hapi/jwt with a stateless token (the API key's yardstick).
// Beside it runs the MCP server as `npm start` runs it: same process, reaching the API through inject().
import * as Crypto from 'node:crypto';
import * as Fs from 'node:fs';
import * as Os from 'node:os';
import * as Path from 'node:path';

import type { Lifecycle, Request } from '@hapi/hapi';
import * as Jwt from '@hapi/jwt';

import { deployment, mcpDeployment } from '../manifest';
import type { Access } from '../lib/access';
import { SESSION_SCOPES } from '../lib/scopes';
import { BENCH_RATE_LIMIT, benchConfig, serve } from './serve';

async function main(): Promise<void> {
    const dataDir = Fs.mkdtempSync(Path.join(Os.tmpdir(), 'hostless-bench-'));
    const config = benchConfig({ DATA_DIR: dataDir, PASSWORD_HASH_COST: '1024', RATE_LIMIT_CREDENTIAL: BENCH_RATE_LIMIT });
    const server = await deployment({ config, log: () => { }, plugins: [{ plugin: { name: '@hapi/jwt', register: Jwt.plugin.register } }] });

    const registered = await server.inject({ method: 'POST', url: '/v1/auth/register', payload: { email: 'bench@example.test', password: 'bench password' } });
    const { user, accessToken } = registered.result as { user: { id: string; email: string }; accessToken: string };
    for (let i = 0; i < 20; ++i) {
        await server.inject({ method: 'POST', url: '/v1/projects', headers: { authorization: `Bearer ${accessToken}` }, payload: { name: `Project ${i}` } });
        await server.inject({ method: 'POST', url: '/v1/apps', headers: { authorization: `Bearer ${accessToken}` }, payload: { name: `bench-app-${i}` } });
    }

    const created = await server.inject({ method: 'POST', url: '/v1/users/me/api-keys', headers: { authorization: `Bearer ${accessToken}` }, payload: { name: 'bench', scopes: ['projects:read', 'apps:read'] } });
    const token = (created.result as { token: string }).token;
    // The same key with an address allow-list (loopback and two other ranges): checked in memory on the row already read.
    const listed = await server.inject({ method: 'POST', url: '/v1/users/me/api-keys', headers: { authorization: `Bearer ${accessToken}` }, payload: { name: 'bench allow-listed', scopes: ['projects:read', 'apps:read'] } });
    const { token: listedToken, apiKey } = listed.result as { token: string; apiKey: { id: string } };
    await server.inject({ method: 'PATCH', url: `/v1/users/me/api-keys/${apiKey.id}/policy`, headers: { authorization: `Bearer ${accessToken}` }, payload: { allowedCidrs: ['203.0.113.0/24', '2001:db8::/32', '127.0.0.0/8'] } });

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

    // The same handler behind @hapi/jwt with a stateless HS256 token: signature, expiry and audience checked, nothing read.
    const jwtSecret = Crypto.randomBytes(32).toString('hex');
    server.auth.strategy('bench-jwt', 'jwt', {
        keys: { key: jwtSecret, algorithms: ['HS256'] },
        verify: { aud: 'hostless-bench', iss: false, sub: false, nbf: true, exp: true },
        validate: (artifacts: { decoded: { payload: { sub: string; email: string } } }) => ({ isValid: true, credentials: { user: { id: artifacts.decoded.payload.sub, email: artifacts.decoded.payload.email } } })
    });
    const jwt = Jwt.token.generate({ aud: 'hostless-bench', sub: user.id, email: user.email }, { key: jwtSecret, algorithm: 'HS256' }, { ttlSec: 3600 });
    server.route({
        method: 'GET',
        path: '/bench/projects-jwt',
        options: {
            auth: { strategy: 'bench-jwt' },
            validate: route.settings.validate,
            handler: (request: Request, h) => {
                const { id, email } = request.auth.credentials.user as { id: string; email: string };
                request.plugins.platform = { ...fixed, user: { id, email, isAdmin: false }, credentialId: 'jwt' };
                return handler.call(null, request, h);
            }
        }
    });

    server.route({ method: 'GET', path: '/bench/trivial', options: { auth: false, handler: () => ({ ok: true }) } });
    server.route({ method: 'GET', path: '/bench/trivial-auth', options: { auth: { strategy: 'platform' }, handler: () => ({ ok: true }) } });
    await server.start();
    const mcp = await mcpDeployment({ config, api: server, start: true, log: () => { } });
    serve({ port: server.info.port, mcpPort: mcp.info.port, token, listedToken, jwt: `Bearer ${jwt}` }, async () => {
        await mcp.stop();
        await server.stop();
        Fs.rmSync(dataDir, { recursive: true, force: true });
    });
}

main().catch((err) => {
    console.error(err);
    process.exit(1);
});
