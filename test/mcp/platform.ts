import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';

import { mcpDeployment } from '../../manifest';
import { caller, createKey, register, type TestUser } from '../helpers/api';
import { eventually } from '../helpers/apps';
import { call, connect, LIST_TOOLS, mcpInstance, post, text, toolNames, type ApiPath, type McpInstance } from '../helpers/mcp';
import { testConfig } from '../helpers/server';

// The projects tools against a running API, through the SDK's client, with the API reached both ways the MCP server
// can reach it: in-process (inject) and over HTTP. Each call acts with the caller's own credential: REST's scopes,
// JWT-only rules and reachability hold, and the API's error comes back as isError with its body.
const { describe, it, before, after } = exports.lab = Lab.script();
const { expect } = Code;

const PROJECT_TOOLS = ['projects_create', 'projects_delete', 'projects_get', 'projects_list', 'projects_patch'];
const APP_TOOLS = ['apps_create', 'apps_delete', 'apps_get', 'apps_list', 'apps_patch'];
const CRON_JOB_TOOLS = ['cron_jobs_create', 'cron_jobs_delete', 'cron_jobs_get', 'cron_jobs_list', 'cron_jobs_patch'];
const WORKER_TOOLS = ['workers_create', 'workers_delete', 'workers_get', 'workers_list', 'workers_patch'];

/** The kinds whose tools go the same way as the apps tools: each with a valid create body and a change. */
const NAMED_KINDS = [
    { kind: 'workers', path: '/v1/workers', noun: 'worker', label: 'Worker', scope: 'workers', body: { startCommand: 'node queue.js' }, patch: { startCommand: 'node consume.js' } },
    {
        kind: 'cron_jobs', path: '/v1/cron-jobs', noun: 'cron job', label: 'Cron job', scope: 'cron-jobs', body: { schedule: '0 3 * * *', timeZone: 'Europe/Berlin', startCommand: 'node report.js' },
        patch: { schedule: '30 4 * * 1-5' }
    }
] as const;
const SITE_TOOLS = ['sites_create', 'sites_delete', 'sites_get', 'sites_list', 'sites_patch'];
const DATABASE_TOOLS = ['databases_create', 'databases_delete', 'databases_get', 'databases_list', 'databases_patch'];

for (const path of ['inject', 'http'] as ApiPath[]) {

    describe(`the projects tools (API reached by ${path})`, () => {

        let instance: McpInstance;
        let user: TestUser;
        let session: Client;
        const clients: Client[] = [];
        const rest = (method: string, url: string, authorization?: string, payload?: object) => caller(() => instance.api.server)(method, url, authorization, payload);
        const open = async (authorization: string) => {
            const client = await connect(`${instance.url}/mcp`, { authorization });
            clients.push(client);
            return client;
        };

        before(async () => {
            instance = await mcpInstance({}, path);
            user = await register(instance.api.server, `mcp-${path}`);
            session = await open(user.session);
        });

        after(async () => {
            await Promise.all(clients.map((client) => client.close()));
            await instance?.stop();
        });

        it('offers the tools of the kinds whose routes are mounted, and none of the others', async () => {
            expect(await toolNames(session)).to.equal([...APP_TOOLS, ...CRON_JOB_TOOLS, ...DATABASE_TOOLS, 'deployments_trigger', ...PROJECT_TOOLS, ...SITE_TOOLS, ...WORKER_TOOLS]);
        });

        it('describes each tool with its REST route, annotations and an input schema', async () => {
            const tools = new Map((await session.listTools()).tools.map((tool) => [tool.name, tool]));
            expect(tools.get('projects_list')!.annotations).to.include({ readOnlyHint: true, idempotentHint: true });
            expect(tools.get('projects_list')!.description).to.include('Scope: projects:read.');       // the REST route is on docs/mcp.md, not in the tokens of every list
            expect(Object.keys((tools.get('projects_list')!.inputSchema as any).properties)).to.equal(['limit', 'cursor']);
            expect(tools.get('projects_create')!.annotations).to.include({ readOnlyHint: false, destructiveHint: false });
            expect((tools.get('projects_create')!.inputSchema as any).required).to.equal(['name']);
            expect(tools.get('projects_create')!.description).to.include('Needs a user session token');
            expect(tools.get('projects_delete')!.annotations).to.include({ readOnlyHint: false, destructiveHint: true, idempotentHint: true });
            expect(tools.get('projects_get')!.description).to.include('Scope: projects:read.');
        });

        it('creates a project through MCP with a session token, seen through REST', async () => {
            const created = await call(session, 'projects_create', { name: 'Made by MCP' });
            expect(created.isError).to.not.be.true();
            expect(created.structuredContent).to.include({ name: 'Made by MCP', kind: 'team', role: 'owner' });
            expect(text(created)).to.startWith('Created project Made by MCP.\n\n{');

            const seen = await rest('GET', `/v1/projects/${created.structuredContent.id}`, user.session);
            expect(seen.statusCode).to.equal(200);
            expect(seen.result).to.equal(created.structuredContent);
        });

        it('lists, gets, renames and deletes a project, each change seen through REST', async () => {
            const { id } = (await call(session, 'projects_create', { name: 'Lifecycle' })).structuredContent;

            const listed = await call(session, 'projects_list');
            expect(listed.structuredContent.items).to.contain((await rest('GET', `/v1/projects/${id}`, user.session)).result);
            expect(text(listed)).to.match(/^\d+ projects: .*Lifecycle.*\.\n\n\{"items":\[/);

            expect((await call(session, 'projects_get', { projectId: id })).structuredContent).to.include({ id, name: 'Lifecycle' });

            const renamed = await call(session, 'projects_patch', { projectId: id, name: 'Renamed' });
            expect(renamed.structuredContent).to.include({ id, name: 'Renamed' });
            expect((await rest('GET', `/v1/projects/${id}`, user.session)).result.name).to.equal('Renamed');

            const deleted = await call(session, 'projects_delete', { projectId: id });
            expect(deleted.isError).to.not.be.true();
            expect(deleted.structuredContent).to.equal({ deleted: true, projectId: id });
            expect((await rest('GET', `/v1/projects/${id}`, user.session)).statusCode).to.equal(404);
        });

        it('pages a list with limit and the nextCursor taken from the API\'s Link header', async () => {
            const owner = await register(instance.api.server, 'pager');
            for (const name of ['One', 'Two']) {
                await rest('POST', '/v1/projects', owner.session, { name });
            }

            const client = await open(owner.session);
            const first = await call(client, 'projects_list', { limit: 2 });
            expect(first.structuredContent.items.map((project: any) => project.name)).to.equal(['Two', 'One']);
            expect(first.structuredContent.nextCursor).to.be.a.string();
            expect(text(first)).to.include('more remain');
            const second = await call(client, 'projects_list', { limit: 2, cursor: first.structuredContent.nextCursor });
            expect(second.structuredContent).to.equal({ items: [(await rest('GET', `/v1/projects/${owner.projectId}`, owner.session)).result] });
        });

        it('reads projects with an API key holding projects:read, and gets the API\'s 403 as isError on a create', async () => {
            const key = await open((await createKey(instance.api.server, user, ['projects:read'])).token);
            expect((await call(key, 'projects_list')).structuredContent.items.map((project: any) => project.id)).to.include(user.projectId);

            const refused = await call(key, 'projects_create', { name: 'Not with a key' });
            expect(refused.isError).to.be.true();
            expect(text(refused)).to.startWith('projects_create was refused by the API with 403 Forbidden: This route requires a user session token (JWT)');
            expect(text(refused)).to.include('"statusCode":403');
            const names = (await rest('GET', '/v1/projects', user.session)).result.map((project: any) => project.name);
            expect(names).to.not.include('Not with a key');
        });

        it('gives a key lacking the scope isError with Missing required scope(s): projects:read', async () => {
            const key = await open((await createKey(instance.api.server, user, ['apps:read'])).token);
            for (const [name, args] of [['projects_list', {}], ['projects_get', { projectId: user.projectId }]] as const) {
                const refused = await call(key, name, args);
                expect(refused.isError).to.be.true();
                expect(text(refused)).to.include('Missing required scope(s): projects:read');
                expect(JSON.parse(text(refused).split('\n\n')[1])).to.equal({ statusCode: 403, error: 'Forbidden', message: 'Missing required scope(s): projects:read' });
            }
        });

        it('reports another user\'s project as not found, for reads and changes alike', async () => {
            const stranger = await register(instance.api.server, 'stranger');
            expect((await call(session, 'projects_list')).structuredContent.items.map((project: any) => project.id)).to.not.include(stranger.projectId);
            for (const [name, args] of [['projects_get', {}], ['projects_patch', { name: 'Mine now' }], ['projects_delete', {}]] as const) {
                const refused = await call(session, name, { ...args, projectId: stranger.projectId });
                expect(refused.isError, name).to.be.true();
                expect(text(refused), name).to.include('404 Not Found: Project not found');
            }

            expect((await rest('GET', `/v1/projects/${stranger.projectId}`, stranger.session)).result.name).to.equal('Personal');
        });

        it('refuses malformed arguments before calling the API, and passes the API\'s 400 on', async () => {
            for (const [name, args] of [['projects_get', { projectId: '../users/me' }], ['projects_create', { name: '' }], ['projects_list', { limit: 101 }], ['projects_get', { projectId: user.projectId, extra: 1 }]] as const) {
                const refused = await call(session, name, args);
                expect(refused.isError, name).to.be.true();
                expect(text(refused), name).to.include('Input validation error');
            }

            const badCursor = await call(session, 'projects_list', { cursor: 'not-a-cursor' });
            expect(badCursor.isError).to.be.true();
            expect(text(badCursor)).to.include('400 Bad Request: "cursor" is not a valid cursor');
        });

        describe('the apps tools', () => {

            it('create an app with a session (in the personal project) and with a key and projectId, each seen through REST', async () => {
                const made = await call(session, 'apps_create', { name: `mcp-${path}-session`, startCommand: 'npm start', environmentVariables: { MODE: 'mcp' } });
                expect(made.isError).to.not.be.true();
                expect(made.structuredContent).to.include({ name: `mcp-${path}-session`, projectId: user.projectId, status: 'created', startCommand: 'npm start' });
                expect(text(made)).to.startWith(`Created app mcp-${path}-session.`);
                expect((await rest('GET', `/v1/apps/mcp-${path}-session`, user.session)).result).to.equal(made.structuredContent);

                const key = await open((await createKey(instance.api.server, user, ['apps:read', 'apps:write'])).token);
                const keyed = await call(key, 'apps_create', { projectId: user.projectId, name: `mcp-${path}-key`, plan: 'standard', instances: 3 });
                expect(keyed.structuredContent).to.include({ plan: 'standard', instances: 3 });
                expect((await rest('GET', `/v1/apps/mcp-${path}-key`, user.session)).statusCode).to.equal(200);

                const noProject = await call(key, 'apps_create', { name: `mcp-${path}-nowhere` });
                expect(noProject.isError).to.be.true();
                expect(text(noProject)).to.include('400 Bad Request: "projectId" is required when using an API key or OAuth token');
            });

            it('list, narrowed by project, get, patch and delete, each seen through REST', async () => {
                const team = (await rest('POST', '/v1/projects', user.session, { name: `Apps ${path}` })).result;
                await call(session, 'apps_create', { projectId: team.id, name: `listed-${path}` });
                await call(session, 'apps_create', { projectId: team.id, name: `listed-${path}-2` });
                const listed = await call(session, 'apps_list', { projectId: team.id, limit: 1 });
                expect(listed.structuredContent.items.map((app: any) => app.name)).to.equal([`listed-${path}-2`]);
                expect(listed.structuredContent.nextCursor).to.be.a.string();
                // The text carries the same JSON as the structured content (in-process, built around the page's own text).
                expect(JSON.parse(text(listed).split('\n\n')[1])).to.equal(listed.structuredContent);
                const second = await call(session, 'apps_list', { projectId: team.id, cursor: listed.structuredContent.nextCursor });
                expect(second.structuredContent).to.equal({ items: [(await rest('GET', `/v1/apps/listed-${path}`, user.session)).result] });
                expect((await call(session, 'apps_get', { name: `listed-${path}` })).structuredContent.projectId).to.equal(team.id);

                const patched = await call(session, 'apps_patch', { name: `listed-${path}`, buildCommand: 'make', environmentVariables: { A: '1' } });
                expect(patched.structuredContent).to.include({ buildCommand: 'make' });
                expect((await rest('GET', `/v1/apps/listed-${path}/environment-variables`, user.session)).result.map((v: any) => v.name)).to.equal(['A']);

                const deleted = await call(session, 'apps_delete', { name: `listed-${path}` });
                expect(deleted.structuredContent).to.equal({ deleted: true, name: `listed-${path}` });
                expect((await rest('GET', `/v1/apps/listed-${path}`, user.session)).statusCode).to.equal(404);
            });

            it('report another user\'s app as not found, and a key without apps:write as a missing scope', async () => {
                const stranger = await register(instance.api.server, `apps-stranger-${path}`);
                await rest('POST', '/v1/apps', stranger.session, { name: `theirs-${path}` });
                for (const [name, args] of [['apps_get', {}], ['apps_patch', { plan: 'pro' }], ['apps_delete', {}]] as const) {
                    const refused = await call(session, name, { ...args, name: `theirs-${path}` });
                    expect(refused.isError, name).to.be.true();
                    expect(text(refused), name).to.include('404 Not Found: App not found');
                }

                const reader = await open((await createKey(instance.api.server, user, ['apps:read'])).token);
                const refused = await call(reader, 'apps_create', { projectId: user.projectId, name: `never-${path}` });
                expect(refused.isError).to.be.true();
                expect(JSON.parse(text(refused).split('\n\n')[1])).to.equal({ statusCode: 403, error: 'Forbidden', message: 'Missing required scope(s): apps:write' });
                expect((await rest('GET', `/v1/apps/theirs-${path}`, stranger.session)).result.plan).to.equal('starter');
            });

            it('refuse an argument the app body does not have, before calling the API', async () => {
                const refused = await call(session, 'apps_create', { name: `strict-${path}`, colour: 'blue' });
                expect(refused.isError).to.be.true();
                expect(text(refused)).to.include('Input validation error');
                expect((await rest('GET', `/v1/apps/strict-${path}`, user.session)).statusCode).to.equal(404);
            });
        });

        for (const spec of NAMED_KINDS) {
            describe(`the ${spec.kind} tools`, () => {

                const name = (tag: string) => `${spec.kind.replace('_', '')}-${path}-${tag}`;

                it(`create a ${spec.noun} with a session (in the personal project) and with a key and projectId, each seen through REST`, async () => {
                    const made = await call(session, `${spec.kind}_create`, { name: name('session'), ...spec.body, environmentVariables: { MODE: 'mcp' } });
                    expect(made.isError, text(made)).to.not.be.true();
                    expect(made.structuredContent).to.include({ name: name('session'), projectId: user.projectId, status: 'created', ...spec.body });
                    expect(text(made)).to.startWith(`Created ${spec.noun} ${name('session')}.`);
                    expect((await rest('GET', `${spec.path}/${name('session')}`, user.session)).result).to.equal(made.structuredContent);

                    const key = await open((await createKey(instance.api.server, user, [`${spec.scope}:read`, `${spec.scope}:write`])).token);
                    const keyed = await call(key, `${spec.kind}_create`, { projectId: user.projectId, name: name('key'), plan: 'standard', ...spec.body });
                    expect(keyed.structuredContent).to.include({ plan: 'standard' });
                    const noProject = await call(key, `${spec.kind}_create`, { name: name('nowhere'), ...spec.body });
                    expect(text(noProject)).to.include('400 Bad Request: "projectId" is required when using an API key or OAuth token');
                });

                it('list, narrowed by project, get, patch and delete, each seen through REST', async () => {
                    const team = (await rest('POST', '/v1/projects', user.session, { name: `${spec.kind} ${path}` })).result;
                    await call(session, `${spec.kind}_create`, { projectId: team.id, name: name('listed'), ...spec.body });
                    const listed = await call(session, `${spec.kind}_list`, { projectId: team.id });
                    expect(listed.structuredContent.items.map((item: any) => item.name)).to.equal([name('listed')]);
                    expect((await call(session, `${spec.kind}_get`, { name: name('listed') })).structuredContent.projectId).to.equal(team.id);

                    const patched = await call(session, `${spec.kind}_patch`, { name: name('listed'), ...spec.patch });
                    expect(patched.structuredContent).to.include(spec.patch);
                    expect((await rest('GET', `${spec.path}/${name('listed')}`, user.session)).result).to.include(spec.patch);

                    const deleted = await call(session, `${spec.kind}_delete`, { name: name('listed') });
                    expect(deleted.structuredContent).to.equal({ deleted: true, name: name('listed') });
                    expect((await rest('GET', `${spec.path}/${name('listed')}`, user.session)).statusCode).to.equal(404);
                });

                it(`report another user's ${spec.noun} as not found, and a key without ${spec.scope}:write as a missing scope`, async () => {
                    const stranger = await register(instance.api.server, `${spec.kind}-stranger-${path}`);
                    await rest('POST', spec.path, stranger.session, { name: name('theirs'), ...spec.body });
                    for (const [tool, args] of [['get', {}], ['patch', { plan: 'pro' }], ['delete', {}]] as const) {
                        const refused = await call(session, `${spec.kind}_${tool}`, { ...args, name: name('theirs') });
                        expect(refused.isError, tool).to.be.true();
                        expect(text(refused), tool).to.include(`404 Not Found: ${spec.label} not found`);
                    }

                    const reader = await open((await createKey(instance.api.server, user, [`${spec.scope}:read`])).token);
                    const refused = await call(reader, `${spec.kind}_create`, { projectId: user.projectId, name: name('never'), ...spec.body });
                    expect(JSON.parse(text(refused).split('\n\n')[1])).to.equal({ statusCode: 403, error: 'Forbidden', message: `Missing required scope(s): ${spec.scope}:write` });
                    expect((await rest('GET', `${spec.path}/${name('theirs')}`, stranger.session)).result.plan).to.equal('starter');
                });

                it(`refuse an argument the ${spec.noun} body does not have, before calling the API`, async () => {
                    const refused = await call(session, `${spec.kind}_create`, { name: name('strict'), ...spec.body, colour: 'blue' });
                    expect(text(refused)).to.include('Input validation error');
                    expect((await rest('GET', `${spec.path}/${name('strict')}`, user.session)).statusCode).to.equal(404);
                });
            });
        }

        describe('the cron jobs tools\' schedules', () => {

            it('require a schedule and a command before calling the API, and pass the API\'s 400 on for a bad expression or time zone', async () => {
                const missing = await call(session, 'cron_jobs_create', { name: `cron-${path}-bare`, startCommand: 'x' });
                expect(text(missing)).to.include('Input validation error');
                for (const [field, value, message] of [
                    ['schedule', '61 * * * *', '"schedule" is not a valid cron expression'],
                    ['timeZone', 'Mars/Olympus_Mons', '"timeZone" must be an IANA time zone such as Europe/Berlin or UTC']
                ] as const) {
                    const refused = await call(session, 'cron_jobs_create', { name: `cron-${path}-bad`, schedule: '0 3 * * *', startCommand: 'x', [field]: value });
                    expect(refused.isError, field).to.be.true();
                    expect(text(refused), field).to.include(`400 Bad Request: ${message}`);
                }

                expect((await rest('GET', `/v1/cron-jobs/cron-${path}-bad`, user.session)).statusCode).to.equal(404);
            });
        });

        describe('the sites tools', () => {

            it('create a site with a session (in the personal project) and with a key and projectId, each seen through REST', async () => {
                const made = await call(session, 'sites_create', { name: `mcp-${path}-site`, spa: true, environmentVariables: { PUBLIC_MODE: 'mcp' } });
                expect(made.isError).to.not.be.true();
                expect(made.structuredContent).to.include({ name: `mcp-${path}-site`, projectId: user.projectId, status: 'created', spa: true, source: 'upload' });
                expect(text(made)).to.startWith(`Created site mcp-${path}-site.`);
                expect((await rest('GET', `/v1/sites/mcp-${path}-site`, user.session)).result).to.equal(made.structuredContent);

                const key = await open((await createKey(instance.api.server, user, ['sites:read', 'sites:write'])).token);
                const keyed = await call(key, 'sites_create', { projectId: user.projectId, name: `mcp-${path}-site-key`, plan: 'standard', instances: 2 });
                expect(keyed.structuredContent).to.include({ plan: 'standard', instances: 2, spa: false });
                const noProject = await call(key, 'sites_create', { name: `mcp-${path}-site-nowhere` });
                expect(text(noProject)).to.include('400 Bad Request: "projectId" is required when using an API key or OAuth token');
                const appNamed = await call(session, 'sites_create', { name: `mcp-${path}-session` });
                expect(appNamed.isError).to.be.true();
                expect(text(appNamed)).to.include(`409 Conflict: The name mcp-${path}-session is taken`);
            });

            it('list, narrowed by project, get, patch and delete, each seen through REST', async () => {
                const team = (await rest('POST', '/v1/projects', user.session, { name: `Sites ${path}` })).result;
                await call(session, 'sites_create', { projectId: team.id, name: `listed-site-${path}` });
                const listed = await call(session, 'sites_list', { projectId: team.id });
                expect(listed.structuredContent.items.map((site: any) => site.name)).to.equal([`listed-site-${path}`]);
                expect((await call(session, 'sites_get', { name: `listed-site-${path}` })).structuredContent.projectId).to.equal(team.id);
                const patched = await call(session, 'sites_patch', { name: `listed-site-${path}`, spa: true, environmentVariables: { B: '2' } });
                expect(patched.structuredContent).to.include({ spa: true });
                expect((await rest('GET', `/v1/sites/listed-site-${path}/environment-variables`, user.session)).result.map((v: any) => v.name)).to.equal(['B']);
                const deleted = await call(session, 'sites_delete', { name: `listed-site-${path}` });
                expect(deleted.structuredContent).to.equal({ deleted: true, name: `listed-site-${path}` });
                expect((await rest('GET', `/v1/sites/listed-site-${path}`, user.session)).statusCode).to.equal(404);
            });

            it('report another user\'s site as not found, a key without sites:write as a missing scope, and refuse unknown arguments', async () => {
                const stranger = await register(instance.api.server, `sites-stranger-${path}`);
                await rest('POST', '/v1/sites', stranger.session, { name: `their-site-${path}` });
                for (const [name, args] of [['sites_get', {}], ['sites_patch', { spa: true }], ['sites_delete', {}]] as const) {
                    const refused = await call(session, name, { ...args, name: `their-site-${path}` });
                    expect(refused.isError, name).to.be.true();
                    expect(text(refused), name).to.include('404 Not Found: Site not found');
                }

                const reader = await open((await createKey(instance.api.server, user, ['sites:read'])).token);
                const refused = await call(reader, 'sites_create', { projectId: user.projectId, name: `never-site-${path}` });
                expect(JSON.parse(text(refused).split('\n\n')[1])).to.equal({ statusCode: 403, error: 'Forbidden', message: 'Missing required scope(s): sites:write' });
                const strict = await call(session, 'sites_create', { name: `strict-site-${path}`, colour: 'blue' });
                expect(text(strict)).to.include('Input validation error');
                expect((await rest('GET', `/v1/sites/strict-site-${path}`, user.session)).statusCode).to.equal(404);
                expect((await rest('GET', `/v1/sites/their-site-${path}`, stranger.session)).result.spa).to.equal(false);
            });
        });

        describe('the databases tools', () => {

            const settled = (name: string) => eventually(async () => (await rest('GET', `/v1/databases/${name}/details`, user.session)).result,
                (database: any) => database.status === 'available', `${name} to be available`);

            before(() => {
                instance.api.server.plugins['hostless-jobs'].queue.start();
            });

            it('create a database with a session (in the personal project) and with a key and projectId, each seen through REST', async () => {
                const made = await call(session, 'databases_create', { name: `db-${path}-session`, tier: 'standard' });
                expect(made.isError).to.not.be.true();
                expect(made.structuredContent).to.include({ name: `db-${path}-session`, projectId: user.projectId, status: 'provisioning', tier: 'standard', driver: 'records' });
                expect(text(made)).to.startWith(`Created database db-${path}-session.`);
                await settled(`db-${path}-session`);

                const key = await open((await createKey(instance.api.server, user, ['databases:read', 'databases:write'])).token);
                const keyed = await call(key, 'databases_create', { projectId: user.projectId, name: `db-${path}-key`, storageGiB: 5 });
                expect(keyed.structuredContent).to.include({ storageGiB: 5, tier: 'starter' });
                expect((await rest('GET', `/v1/databases/db-${path}-key/details`, user.session)).statusCode).to.equal(200);
                await settled(`db-${path}-key`);

                const noProject = await call(key, 'databases_create', { name: `db-${path}-nowhere` });
                expect(noProject.isError).to.be.true();
                expect(text(noProject)).to.include('400 Bad Request: "projectId" is required when using an API key or OAuth token');
            });

            it('list, narrowed by project, get (the details), patch and delete, each seen through REST', async () => {
                const team = (await rest('POST', '/v1/projects', user.session, { name: `Databases ${path}` })).result;
                await call(session, 'databases_create', { projectId: team.id, name: `listed-db-${path}` });
                const listed = await call(session, 'databases_list', { projectId: team.id });
                expect(listed.structuredContent.items.map((database: any) => database.name)).to.equal([`listed-db-${path}`]);
                await settled(`listed-db-${path}`);
                const got = await call(session, 'databases_get', { name: `listed-db-${path}` });
                expect(got.structuredContent).to.equal((await rest('GET', `/v1/databases/listed-db-${path}/details`, user.session)).result);
                expect(got.structuredContent).to.include({ projectId: team.id, connection: null, usedBytes: null });

                const patched = await call(session, 'databases_patch', { name: `listed-db-${path}`, tier: 'pro', storageGiB: 30 });
                expect(patched.structuredContent).to.include({ tier: 'pro', storageGiB: 30, connectionLimit: 200 });
                expect((await rest('GET', `/v1/databases/listed-db-${path}/details`, user.session)).result.tier).to.equal('pro');

                const deleted = await call(session, 'databases_delete', { name: `listed-db-${path}` });
                expect(deleted.isError).to.not.be.true();
                await eventually(async () => (await rest('GET', `/v1/databases/listed-db-${path}/details`, user.session)).statusCode, (code) => code === 404, 'the database to go');
            });

            it('report another user\'s database as not found, and a key without databases:write as a missing scope', async () => {
                const stranger = await register(instance.api.server, `db-stranger-${path}`);
                await rest('POST', '/v1/databases', stranger.session, { name: `theirs-db-${path}` });
                for (const [name, args] of [['databases_get', {}], ['databases_patch', { tier: 'pro' }], ['databases_delete', {}]] as const) {
                    const refused = await call(session, name, { ...args, name: `theirs-db-${path}` });
                    expect(refused.isError, name).to.be.true();
                    expect(text(refused), name).to.include('404 Not Found: Database not found');
                }

                const reader = await open((await createKey(instance.api.server, user, ['databases:read'])).token);
                const refused = await call(reader, 'databases_create', { projectId: user.projectId, name: `never-db-${path}` });
                expect(refused.isError).to.be.true();
                expect(JSON.parse(text(refused).split('\n\n')[1])).to.equal({ statusCode: 403, error: 'Forbidden', message: 'Missing required scope(s): databases:write' });
                expect((await rest('GET', `/v1/databases/theirs-db-${path}/details`, stranger.session)).result.tier).to.equal('starter');
            });

            it('refuse an argument the database body does not have, before calling the API, and pass the API\'s 409 on', async () => {
                const refused = await call(session, 'databases_create', { name: `strict-db-${path}`, colour: 'blue' });
                expect(refused.isError).to.be.true();
                expect(text(refused)).to.include('Input validation error');
                expect((await rest('GET', `/v1/databases/strict-db-${path}/details`, user.session)).statusCode).to.equal(404);

                const shrink = await call(session, 'databases_patch', { name: `db-${path}-key`, storageGiB: 1 });
                expect(shrink.isError).to.be.true();
                expect(text(shrink)).to.include(`409 Conflict: Storage can only grow: the database db-${path}-key has 5 GiB`);
            });
        });
    });
}

describe('the MCP server alone, with its API out of reach', () => {

    it('answers 502 naming the API address rather than a 401 that would blame the credential', async () => {
        const config = { ...testConfig('/nonexistent'), apiBaseUrl: 'http://127.0.0.1:9', mcpPublicUrl: 'http://localhost:3001' };
        const server = await mcpDeployment({ config, start: true, log: () => { } });
        try {
            const res = await post(`${server.info.uri}/mcp`, LIST_TOOLS, { authorization: 'Bearer some.token.here' });
            expect(res.status).to.equal(502);
            expect((await res.json() as any).error.message).to.equal('The platform API at http://127.0.0.1:9 could not be reached: the connection failed');
        }
        finally {
            await server.stop();
        }
    });
});
