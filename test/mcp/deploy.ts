import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';

import { createKey, register, type TestUser } from '../helpers/api';
import { call, connect, mcpInstance, text, toolNames, type McpInstance } from '../helpers/mcp';

// deployments_trigger: an agent deploys a named resource and gets the deployment id back, through the kind's own
// REST route with the caller's credential; it is in the `deploy` group and a write, so MCP_READ_ONLY drops it.
const { describe, it, before, after } = exports.lab = Lab.script();
const { expect } = Code;

describe('deployments_trigger', () => {

    let instance: McpInstance;
    let user: TestUser;
    const clients: Client[] = [];
    const open = async (authorization: string, headers: Record<string, string> = {}, url = `${instance.url}/mcp`) => {
        const client = await connect(url, { authorization, ...headers });
        clients.push(client);
        return client;
    };

    before(async () => {
        instance = await mcpInstance();
        user = await register(instance.api.server, 'deploy');
    });

    after(async () => {
        await Promise.all(clients.map((client) => client.close()));
        await instance?.stop();
    });

    it('starts a deployment of a named resource and returns it, as REST sees it', async () => {
        const key = (await createKey(instance.api.server, user, ['apps:read', 'apps:write', 'deployments:read', 'deployments:write'])).token;
        const client = await open(key);
        expect((await call(client, 'apps_create', { name: 'deploy-me', projectId: user.projectId })).isError).to.not.be.true();
        const started = await call(client, 'deployments_trigger', { resourceType: 'app', resourceName: 'deploy-me' });
        expect(started.isError, text(started)).to.not.be.true();
        expect(started.structuredContent).to.include({ projectId: user.projectId, trigger: 'manual' });
        expect(text(started)).to.startWith(`Deployment ${started.structuredContent.id} of app deploy-me started (`);
        const seen = await instance.api.server.inject({ method: 'GET', url: `/v1/apps/deploy-me/deployments/${started.structuredContent.id}`, headers: { authorization: key } });
        expect(seen.statusCode).to.equal(200);
        expect((seen.result as { id: string }).id).to.equal(started.structuredContent.id);
    });

    it('passes the API\'s refusals on: a missing scope, a name that does not exist', async () => {
        const readOnlyKey = (await createKey(instance.api.server, user, ['apps:read'])).token;
        const refused = await call(await open(readOnlyKey), 'deployments_trigger', { resourceType: 'app', resourceName: 'deploy-me' });
        expect(refused.isError).to.be.true();
        expect(text(refused)).to.include('403 Forbidden: Missing required scope(s): deployments:write');

        const missing = await call(await open(user.session), 'deployments_trigger', { resourceType: 'worker', resourceName: 'no-such-worker' });
        expect(text(missing)).to.include('404 Not Found: Worker not found');
        const malformed = await call(await open(user.session), 'deployments_trigger', { resourceType: 'database', resourceName: 'x' });
        expect(text(malformed)).to.include('Input validation error');
    });

    it('is in the deploy group, selectable alone, and off under MCP_READ_ONLY', async () => {
        expect(await toolNames(await open(user.session))).to.include('deployments_trigger');
        expect(await toolNames(await open(user.session, { 'x-mcp-tools': 'deploy' }))).to.equal(['deployments_trigger']);
        expect(await toolNames(await open(user.session, { 'x-mcp-tools': 'readonly' }))).to.not.include('deployments_trigger');

        const readOnly = await mcpInstance({ mcpReadOnly: true });
        try {
            const other = await register(readOnly.api.server, 'deploy-ro');
            const client = await connect(`${readOnly.url}/mcp`, { authorization: other.session });
            clients.push(client);
            expect(await toolNames(client)).to.not.include('deployments_trigger');
            expect((await call(client, 'deployments_trigger', { resourceType: 'app', resourceName: 'x' })).isError).to.be.true();
        }
        finally {
            await readOnly.stop();
        }
    });
});
