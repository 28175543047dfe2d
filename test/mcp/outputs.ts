import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type * as z from 'zod';

import { listing } from '../../lib/mcp/tool';
import { platformCatalogue } from '../../plugins/mcp-platform';
import { register, type TestUser } from '../helpers/api';
import { call, connect, mcpInstance, text, type McpInstance } from '../helpers/mcp';

// Every platform tool whose result has a fixed shape declares it as an outputSchema, and its results fit it: each
// result is checked against the zod schema and against the JSON Schema tools/list shows (with the SDK's own Ajv).
const { describe, it, before, after } = exports.lab = Lab.script();
const { expect } = Code;

const catalogue = platformCatalogue({ readOnly: false, allowedTools: null });
const definitions = new Map([...catalogue.offered, catalogue.deploy!].map((tool) => [tool.name, tool]));
const ajv = new AjvJsonSchemaValidator();

// A database's tier and storage change once it is provisioned (409 before), which needs the job workers: its patch is left out here.
const BODIES: Record<string, { create: Record<string, unknown>; patch: Record<string, unknown> | null }> = {
    apps: { create: {}, patch: { instances: 2 } },
    sites: { create: {}, patch: { spa: true } },
    workers: { create: { startCommand: 'node queue.js' }, patch: { startCommand: 'node consume.js' } },
    cron_jobs: { create: { schedule: '0 3 * * *', startCommand: 'node report.js' }, patch: { schedule: '30 4 * * 1-5' } },
    databases: { create: {}, patch: null }
};

describe('the platform tools\' output schemas', () => {

    let instance: McpInstance;
    let user: TestUser;
    let client: Client;
    let checked = 0;

    const fits = async (name: string, args: Record<string, unknown>) => {
        const result = await call(client, name, args);
        expect(result.isError, `${name}: ${text(result)}`).to.not.be.true();
        const definition = definitions.get(name)!;
        expect(definition.outputSchema, name).to.exist();
        (definition.outputSchema as z.ZodObject).parse(result.structuredContent);
        const verdict = ajv.getValidator(listing(definition).outputSchema!)(result.structuredContent);
        expect(verdict.valid, `${name}: ${verdict.errorMessage ?? ''}`).to.be.true();
        ++checked;
        return result.structuredContent;
    };

    before(async () => {
        instance = await mcpInstance();
        user = await register(instance.api.server, 'outputs');
        client = await connect(`${instance.url}/mcp`, { authorization: user.session });
    });

    after(async () => {
        await client?.close();
        await instance?.stop();
    });

    it('describe what projects_* return', async () => {
        const created = await fits('projects_create', { name: 'Shapes' });
        await fits('projects_get', { projectId: created.id });
        await fits('projects_patch', { projectId: created.id, name: 'Shapes two' });
        await fits('projects_list', {});
    });

    for (const [kind, body] of Object.entries(BODIES)) {
        it(`describe what ${kind}_* return`, async () => {
            const name = `shape-${kind.replace('_', '-')}`;
            await fits(`${kind}_create`, { name, projectId: user.projectId, ...body.create });
            await fits(`${kind}_get`, { name });
            if (body.patch) {
                await fits(`${kind}_patch`, { name, ...body.patch });
            }

            await fits(`${kind}_list`, { projectId: user.projectId });
        });
    }

    it('describe what deployments_trigger returns', async () => {
        await fits('deployments_trigger', { resourceType: 'app', resourceName: 'shape-apps' });
        expect(checked).to.equal(4 + 4 * Object.keys(BODIES).length - 1 + 1);
    });

    it('are the real shapes: a result missing a field does not fit', () => {
        expect(() => (definitions.get('apps_get')!.outputSchema as z.ZodObject).parse({ id: 'app_x', name: 'x' })).to.throw();
        expect(ajv.getValidator(listing(definitions.get('projects_get')!).outputSchema!)({ id: 'prj_x' }).valid).to.be.false();
    });
});
