import * as Crypto from 'node:crypto';

import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';

import { TEST_DATA_TOOLS } from '../../lib/mcp/test-data-tools';
import type { TestDataConfig } from '../../lib/test-data/gates';
import { createKey, register } from '../helpers/api';
import { call, connect, mcpInstance, toolNames, type McpInstance } from '../helpers/mcp';
import { dropDisposable, PLACEHOLDER } from './helpers';

// The seven test-data tools through the SDK's client: offered to an allow-listed API key where the gates hold, never
// to a session, and absent from tools/list in a production boot; a whole plan/apply/assert/reset session through them.
const { describe, it, before, after } = exports.lab = Lab.script();
const { expect } = Code;

const NAMES = TEST_DATA_TOOLS.map((tool) => tool.name).sort();

describe('test-data MCP tools', () => {

    const env = `t${Crypto.randomBytes(5).toString('hex')}`;
    const config: TestDataConfig = { enabled: true, userIds: [PLACEHOLDER], environments: { [env]: { database: `hostless_test_${env}` } }, dashboardEnabled: false };
    let instance: McpInstance;
    const clients: Client[] = [];

    before(async () => {
        instance = await mcpInstance({ nodeEnv: 'development', testData: config });
    });

    after(async () => {
        for (const client of clients) {
            await client.close();
        }

        await instance?.stop();
        await dropDisposable(`hostless_test_${env}`);
    });

    it('offers the seven tools to an API key and runs a plan, apply, assert and reset session', async () => {
        const user = await register(instance.api.server, 'mcp-testdata');
        (config.userIds as string[]).push(user.id);
        const { token } = await createKey(instance.api.server, user, ['test-data:read', 'test-data:write', 'test-data:delete']);
        const client = await connect(`${instance.url}/mcp`, { authorization: token });
        clients.push(client);
        const names = await toolNames(client);
        expect(names.filter((name) => name.startsWith('test_'))).to.equal(NAMES);

        const capabilities = await call(client, 'test_data_capabilities');
        expect(capabilities.isError).to.not.be.true();
        expect(capabilities.structuredContent.environments).to.equal([env]);

        const planned = await call(client, 'test_scenario_plan', { environment: env, template: 'credit_exhaustion', seed: 11, start: '2026-03-01T00:00:00.000Z', days: 6, credit: 0.5 });
        expect(planned.isError).to.not.be.true();
        const { scenarioId, digest } = planned.structuredContent;
        const applied = await call(client, 'test_scenario_apply', { scenarioId, digest, environment: env, idempotencyKey: 'first-apply' });
        expect(applied.structuredContent.status).to.equal('ready');
        const asserted = await call(client, 'test_scenario_assert', { scenarioId, checks: ['credit_nonnegative', 'credit_exhausted', 'relationships'] });
        expect(asserted.structuredContent.passed).to.be.true();
        const got = await call(client, 'test_scenario_get', { scenarioId, limit: 5 });
        expect(got.structuredContent.manifest.items).to.have.length(5);
        const reset = await call(client, 'test_scenario_reset', { scenarioId, environment: env, revision: got.structuredContent.revision, idempotencyKey: 'first-reset' });
        expect(reset.structuredContent.scenario.status).to.equal('reset');
        const refused = await call(client, 'test_scenario_advance', { scenarioId, environment: env, revision: 0, idempotencyKey: 'x' });
        expect(refused.isError).to.be.true();
    });

    it('offers none of them to a session', async () => {
        const user = await register(instance.api.server, 'mcp-session');
        (config.userIds as string[]).push(user.id);
        const client = await connect(`${instance.url}/mcp`, { authorization: user.session });
        clients.push(client);
        expect((await toolNames(client)).filter((name) => name.startsWith('test_'))).to.equal([]);
    });
});

describe('test-data MCP tools in a production boot', () => {

    it('are absent from tools/list, and their routes do not exist', async () => {
        const config: TestDataConfig = { enabled: true, userIds: [PLACEHOLDER], environments: { dev: { database: 'hostless_test_dev' } }, dashboardEnabled: true };
        const instance = await mcpInstance({ nodeEnv: 'production', production: true, testData: config });
        try {
            const user = await register(instance.api.server, 'mcp-production');
            (config.userIds as string[]).push(user.id);
            const { token } = await createKey(instance.api.server, user, ['test-data:read', 'test-data:write', 'test-data:delete']);
            const client = await connect(`${instance.url}/mcp`, { authorization: token });
            try {
                expect((await toolNames(client)).filter((name) => name.startsWith('test_'))).to.equal([]);
                const direct = await instance.api.server.inject({ method: 'GET', url: '/v1/test-data/capabilities', headers: { authorization: token } });
                expect(direct.statusCode).to.equal(404);
            }
            finally {
                await client.close();
            }
        }
        finally {
            await instance.stop();
        }
    });
});
