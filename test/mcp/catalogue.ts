import * as Boom from '@hapi/boom';
import * as Code from '@hapi/code';
import * as Hapi from '@hapi/hapi';
import * as Lab from '@hapi/lab';

import { compose } from '../../lib/compose';
import { httpApiClient, type ApiClient } from '../../lib/mcp/api-client';
import { platformToolsOn } from '../../lib/mcp/platform-tools';
import { failure } from '../../lib/mcp/tool';
import { mountedTables } from '../../manifest/api';
import { PLATFORM_TOOL_KINDS } from '../../manifest/routes/mcp-tools';
import { mcpPlatformPlugin, platformCatalogue } from '../../plugins/mcp-platform';
import { call, connect, text, toolNames } from '../helpers/mcp';

// The platform tool catalogue: 30 tools as data, mapped onto REST as api-contract.md section 12 says, offered exactly
// when the API mounts their routes. The kinds not mounted yet are exercised here against a fake REST API on
// 127.0.0.1, switched on, so turning a kind on is the one-word change in manifest/routes/mcp-tools.ts.
const { describe, it, before, after } = exports.lab = Lab.script();
const { expect } = Code;

const { all } = platformCatalogue({ readOnly: false, allowedTools: null });
const KINDS = ['projects', 'apps', 'sites', 'workers', 'cron_jobs', 'databases'];

describe('the platform tool catalogue', () => {

    it('defines the five tools of each of the six kinds', () => {
        expect(all.map((tool) => tool.name)).to.equal(KINDS.flatMap((kind) => ['list', 'get', 'create', 'patch', 'delete'].map((action) => `${kind}_${action}`)));
    });

    it('maps every tool onto the REST route of api-contract.md section 12', () => {
        const expected = (kind: string, action: string): string => {
            const base = `/v1/${kind === 'cron_jobs' ? 'cron-jobs' : kind}`;
            const param: string = ({ projects: 'projectId', apps: 'appName', sites: 'siteName', workers: 'workerName', cron_jobs: 'cronJobName', databases: 'databaseName' } as Record<string, string>)[kind];
            const one = `${base}/{${param}}`;
            const routes: Record<string, string> = {
                list: `GET ${base}`,
                get: `GET ${kind === 'databases' ? `${one}/details` : one}`,
                create: `POST ${base}`,
                patch: `PATCH ${one}`,
                delete: `DELETE ${one}`
            };
            return routes[action];
        };

        for (const tool of all) {
            expect(`${tool.row.method} ${tool.row.path}`, tool.name).to.equal(expected(tool.kind, tool.action));
        }
    });

    it('offers a kind\'s tools exactly when the API mounts all of its routes (flip `offered` when a family lands)', () => {
        const mounted = new Set(mountedTables().flatMap((table) => table.rows.map((row) => row.id)));
        for (const spec of PLATFORM_TOOL_KINDS) {
            const served = Object.values(spec.routes).every((id) => mounted.has(id));
            expect(spec.offered, `${spec.kind}: routes ${served ? '' : 'not '}mounted`).to.equal(served);
        }
    });

    it('annotates reads as read-only, deletes as destructive, and nothing else as either', () => {
        for (const tool of all) {
            expect(tool.annotations.readOnlyHint, tool.name).to.equal(tool.action === 'list' || tool.action === 'get');
            expect(tool.annotations.destructiveHint ?? false, tool.name).to.equal(tool.action === 'delete');
        }
    });

    it('takes projectId when listing and creating the named kinds, and names them by name', () => {
        const app = ['plan', 'region', 'instances', 'buildCommand', 'startCommand', 'autoDeploy', 'repository', 'environmentVariables'];
        const own: Record<string, string[]> = { apps: app, sites: [...app, 'spa'], workers: app, cron_jobs: [...app, 'schedule', 'timeZone'] };
        for (const tool of all.filter((candidate) => candidate.kind !== 'projects')) {
            const shape = tool.inputSchema.shape as Record<string, unknown>;
            const database = ['engine', 'version', 'tier', 'storageGiB'];
            const fields = tool.kind === 'databases' ? database : own[tool.kind] ?? [];
            const patched = tool.kind === 'apps' ? [...app, 'databases'] : tool.kind === 'databases' ? ['tier', 'storageGiB'] : fields;
            const expected = { list: ['projectId', 'limit', 'cursor'], get: ['name'], create: ['projectId', 'name', ...fields], patch: ['name', ...patched], delete: ['name'] }[tool.action];
            expect(Object.keys(shape), tool.name).to.equal(expected);
        }
    });
});

describe('the apps tools switched on, against a fake REST API', () => {

    const seen: Array<{ method: string; path: string; query: object; payload: unknown; authorization: string | undefined }> = [];
    let api: Hapi.Server;
    let mcp: Hapi.Server;

    before(async () => {
        api = Hapi.server({ host: '127.0.0.1', port: 0 });
        api.route({ method: 'GET', path: '/v1/auth/introspect', handler: (request) => {
            if (request.headers.authorization !== 'Bearer good-token') {
                throw Boom.unauthorized('Invalid or expired access token');
            }

            return { userId: 'usr_0000000000000001', via: 'session', credentialId: 'ses_0000000000000001', scopes: ['apps:read'], isAdmin: false };
        } });
        api.route({ method: '*', path: '/v1/apps/{name?}', handler: (request, h) => {
            seen.push({ method: request.method.toUpperCase(), path: request.path, query: { ...request.query }, payload: request.payload ?? null, authorization: request.headers.authorization as string | undefined });
            const app = { id: 'app_0000000000000001', name: request.params.name ?? 'web', projectId: 'prj_0000000000000001' };
            if (request.params.name === 'missing') {
                throw Boom.notFound('App not found');
            }

            switch (request.method) {
                case 'get': return request.params.name ? app : h.response([app]).header('link', '</v1/apps?limit=1&cursor=abc123>; rel="next"');
                case 'post': return h.response({ ...app, ...(request.payload as object) }).code(201);
                case 'patch': return { ...app, ...(request.payload as object) };
                default: return h.response().code(204);
            }
        } });
        await api.start();

        mcp = await compose({
            server: { host: '127.0.0.1', port: 0 },
            register: {
                plugins: [{
                    plugin: mcpPlatformPlugin,
                    options: {
                        api: httpApiClient(api.info.uri), publicUrl: 'http://localhost:3000', mcpPublicUrl: 'http://localhost:3001', docsMcpPath: '/mcp/docs',
                        readOnly: false, allowedTools: null, allowedOrigins: [], allowedHosts: null, version: '0.0.0',
                        kinds: PLATFORM_TOOL_KINDS.map((spec) => ({ ...spec, offered: spec.kind === 'apps' || spec.kind === 'projects' }))
                    }
                }]
            }
        });
        await mcp.start();
    });

    after(async () => {
        await mcp?.stop();
        await api?.stop();
    });

    it('offers apps_* beside projects_* once the switch is on', async () => {
        const client = await connect(`${mcp.info.uri}/mcp`, { authorization: 'Bearer good-token' });
        try {
            const offered = PLATFORM_TOOL_KINDS.filter((spec) => spec.kind === 'apps' || spec.kind === 'projects').flatMap((spec) => ['create', 'delete', 'get', 'list', 'patch'].map((action) => `${spec.kind}_${action}`));
            expect(await toolNames(client)).to.equal([...offered, 'deployments_trigger'].sort());       // the deploy group is on by default
            expect(offered).to.include(['apps_list', 'projects_list']);
        }
        finally {
            await client.close();
        }
    });

    it('sends each call to its REST route with the caller\'s own header, and returns the REST JSON', async () => {
        const client = await connect(`${mcp.info.uri}/mcp`, { authorization: 'Bearer good-token' });
        try {
            seen.length = 0;
            const listed = await call(client, 'apps_list', { projectId: 'prj_0000000000000001', limit: 1 });
            expect(listed.structuredContent).to.equal({ items: [{ id: 'app_0000000000000001', name: 'web', projectId: 'prj_0000000000000001' }], nextCursor: 'abc123' });
            expect((await call(client, 'apps_get', { name: 'web' })).structuredContent.name).to.equal('web');
            const created = await call(client, 'apps_create', { projectId: 'prj_0000000000000001', name: 'api', repository: { provider: 'github', repo: 'acme/api', branch: 'main' } });
            expect(created.structuredContent).to.include({ name: 'api', repository: { provider: 'github', repo: 'acme/api', branch: 'main' } });
            expect(text(created)).to.startWith('Created app api.');
            await call(client, 'apps_patch', { name: 'api', plan: 'standard' });
            const deleted = await call(client, 'apps_delete', { name: 'api' });
            expect(deleted.structuredContent).to.equal({ deleted: true, name: 'api' });

            expect(seen).to.equal([
                { method: 'GET', path: '/v1/apps', query: { projectId: 'prj_0000000000000001', limit: '1' }, payload: null, authorization: 'Bearer good-token' },
                { method: 'GET', path: '/v1/apps/web', query: {}, payload: null, authorization: 'Bearer good-token' },
                { method: 'POST', path: '/v1/apps', query: {}, payload: { projectId: 'prj_0000000000000001', name: 'api', repository: { provider: 'github', repo: 'acme/api', branch: 'main' } }, authorization: 'Bearer good-token' },
                { method: 'PATCH', path: '/v1/apps/api', query: {}, payload: { plan: 'standard' }, authorization: 'Bearer good-token' },
                { method: 'DELETE', path: '/v1/apps/api', query: {}, payload: null, authorization: 'Bearer good-token' }
            ]);
        }
        finally {
            await client.close();
        }
    });

    it('reports an app the API does not find as isError with the API\'s body', async () => {
        const client = await connect(`${mcp.info.uri}/mcp`, { authorization: 'Bearer good-token' });
        try {
            const missing = await call(client, 'apps_get', { name: 'missing' });
            expect(missing.isError).to.be.true();
            expect(text(missing)).to.equal('apps_get was refused by the API with 404 Not Found: App not found\n\n{"statusCode":404,"error":"Not Found","message":"App not found"}');
        }
        finally {
            await client.close();
        }
    });

    it('builds its tools once and acts with each call\'s own credential, asking nothing without one', async () => {
        const seen: string[] = [];
        const api: ApiClient = {
            baseUrl: 'http://api.invalid',
            request: async (request) => {
                seen.push(request.authorization);
                return { status: 200, body: [], link: null };
            },
            introspect: () => Promise.reject(new Error('not asked')),
            jwks: () => Promise.reject(new Error('not asked'))
        };
        const tool = platformToolsOn(all.filter((definition) => definition.name === 'apps_list'), api)[0];
        await tool.handler({}, { authorization: 'Bearer first' });
        await tool.handler({}, { authorization: 'svk_second' });
        const refused = await tool.handler({}, { authorization: null });
        expect(refused).to.equal(failure('apps_list needs a credential: platform tools act as their caller'));
        expect(seen).to.equal(['Bearer first', 'svk_second']);
    });
});
