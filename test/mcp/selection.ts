import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { parseSelection, selectTools } from '../../lib/mcp/selection';
import { PLATFORM_TOOL_KINDS } from '../../manifest/routes/mcp-tools';
import { platformCatalogue } from '../../plugins/mcp-platform';
import { register, type TestUser } from '../helpers/api';
import { call, connect, LIST_TOOLS, mcpInstance, post, text, toolNames, type McpInstance } from '../helpers/mcp';

// Tool selection: the operator's ceiling (MCP_READ_ONLY, MCP_ALLOWED_TOOLS) and a client's per-request narrowing
// with X-MCP-Tools, which never widens what the operator allowed.
const { describe, it, before, after } = exports.lab = Lab.script();
const { expect } = Code;

describe('tool selection', () => {

    describe('with no operator setting', () => {

        let instance: McpInstance;
        let user: TestUser;
        const listed = async (header?: string) => {
            const client = await connect(`${instance.url}/mcp`, { authorization: user.session, ...(header !== undefined ? { 'x-mcp-tools': header } : {}) });
            try {
                return await toolNames(client);
            }
            finally {
                await client.close();
            }
        };

        before(async () => {
            instance = await mcpInstance();
            user = await register(instance.api.server, 'selection');
        });

        after(async () => {
            await instance?.stop();
        });

        it('lets a client narrow to the read-only tools, to a group, to named tools, or to a group\'s read-only tools', async () => {
            expect(await listed('readonly')).to.equal(['apps_get', 'apps_list', 'cron_jobs_get', 'cron_jobs_list', 'databases_get', 'databases_list', 'projects_get', 'projects_list', 'sites_get', 'sites_list', 'workers_get', 'workers_list']);
            expect(await listed('projects')).to.equal(['projects_create', 'projects_delete', 'projects_get', 'projects_list', 'projects_patch']);
            expect(await listed(' projects_list , apps_create ')).to.equal(['apps_create', 'projects_list']);
            expect(await listed('apps,readonly')).to.equal(['apps_get', 'apps_list']);
            expect(await listed('')).to.have.length(31);                  // the 30 of the kinds and deployments_trigger
            expect(await listed('deploy')).to.equal(['deployments_trigger']);
        });

        it('offers no tool a narrowed request left out: calling one is isError', async () => {
            const client = await connect(`${instance.url}/mcp`, { authorization: user.session, 'x-mcp-tools': 'readonly' });
            try {
                const refused = await call(client, 'projects_create', { name: 'Nope' });
                expect(refused.isError).to.be.true();
                expect(text(refused)).to.include('Tool projects_create not found');
            }
            finally {
                await client.close();
            }
        });

        it('refuses an unknown name with 400', async () => {
            const res = await post(`${instance.url}/mcp`, LIST_TOOLS, { authorization: user.session, 'x-mcp-tools': 'projects,teleport' });
            expect(res.status).to.equal(400);
            expect((await res.json() as any).error.message as string).to.startWith('The X-MCP-Tools header names an unknown tool or group: teleport');
        });
    });

    describe('with MCP_READ_ONLY', () => {

        let instance: McpInstance;
        let user: TestUser;

        before(async () => {
            instance = await mcpInstance({ mcpReadOnly: true });
            user = await register(instance.api.server, 'readonly');
        });

        after(async () => {
            await instance?.stop();
        });

        it('offers only the tools with the read-only hint, and a client cannot widen it', async () => {
            for (const header of [undefined, 'projects', 'projects_create,projects_delete']) {
                const client = await connect(`${instance.url}/mcp`, { authorization: user.session, ...(header ? { 'x-mcp-tools': header } : {}) });
                try {
                    const names = await toolNames(client);
                    const readable = header === 'projects' ? ['projects_get', 'projects_list'] : ['apps_get', 'apps_list', 'cron_jobs_get', 'cron_jobs_list', 'databases_get', 'databases_list', 'projects_get', 'projects_list', 'sites_get', 'sites_list', 'workers_get', 'workers_list'];
                    expect(names, header).to.equal(header?.startsWith('projects_create') ? [] : readable);
                    expect((await call(client, 'projects_create', { name: 'Blocked' })).isError).to.be.true();
                }
                finally {
                    await client.close();
                }
            }
        });
    });

    describe('with MCP_ALLOWED_TOOLS', () => {

        let instance: McpInstance;
        let user: TestUser;

        before(async () => {
            instance = await mcpInstance({ mcpAllowedTools: ['projects_list', 'projects_create', 'apps'] });
            user = await register(instance.api.server, 'allowed');
        });

        after(async () => {
            await instance?.stop();
        });

        it('offers only the allowed tools of offered kinds; a client narrows within them and never beyond', async () => {
            const offered = async (header?: string) => {
                const client = await connect(`${instance.url}/mcp`, { authorization: user.session, ...(header ? { 'x-mcp-tools': header } : {}) });
                try {
                    return await toolNames(client);
                }
                finally {
                    await client.close();
                }
            };

            expect(await offered()).to.equal(['apps_create', 'apps_delete', 'apps_get', 'apps_list', 'apps_patch', 'projects_create', 'projects_list']);
            expect(await offered('readonly')).to.equal(['apps_get', 'apps_list', 'projects_list']);
            expect(await offered('projects')).to.equal(['projects_create', 'projects_list']);
            expect(await offered('projects_get,projects_delete')).to.equal([]);
        });

        it('also applies the readonly word from the allowed list', () => {
            const { offered } = platformCatalogue({ readOnly: false, allowedTools: ['projects', 'readonly'] });
            expect(offered.map((tool) => tool.name)).to.equal(['projects_list', 'projects_get']);
        });
    });

    describe('the list syntax', () => {

        it('narrows to nothing with a tool of a kind the catalogue does not offer (an embedder\'s API without its routes)', () => {
            const kinds = PLATFORM_TOOL_KINDS.map((spec) => ({ ...spec, offered: spec.kind !== 'databases' }));
            const { all, offered } = platformCatalogue({ readOnly: false, allowedTools: null, kinds });
            expect(selectTools(offered, parseSelection('databases_list', all), null)).to.equal([]);
            expect(selectTools(offered, parseSelection('databases,apps_list', all), null).map((tool) => tool.name)).to.equal(['apps_list']);
        });

        const tools = platformCatalogue({ readOnly: false, allowedTools: null }).all;

        it('knows the 30 platform tools in six groups', () => {
            expect(tools).to.have.length(30);
            expect(parseSelection('cron_jobs', tools).names).to.equal(new Set(['cron_jobs_list', 'cron_jobs_get', 'cron_jobs_create', 'cron_jobs_patch', 'cron_jobs_delete']));
        });

        it('names every unknown entry in its error', () => {
            expect(() => parseSelection('apps,ghosts,apps_fly', tools)).to.throw(/^unknown tool or group: ghosts, apps_fly \(known groups: projects, apps, sites, workers, cron_jobs, databases/);
        });

        it('intersects the operator\'s and the request\'s selections', () => {
            const operator = parseSelection('databases,apps_list', tools);
            const request = parseSelection('readonly', tools);
            expect(selectTools(tools, operator, request).map((tool) => tool.name)).to.equal(['apps_list', 'databases_list', 'databases_get']);
        });
    });
});
