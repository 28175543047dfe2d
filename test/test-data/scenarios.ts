import * as Crypto from 'node:crypto';

import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';
import type { Knex } from 'knex';

import { dialect } from '../../lib/db/knex';
import { openDisposable } from '../../lib/test-data/databases';
import { mountedTables } from '../../manifest/api';
import { createKey, register } from '../helpers/api';
import { testServer } from '../helpers/server';
import { dropDisposable, manifestOf, PLACEHOLDER, planAndApply, testDataServer, type TestDataServer } from './helpers';

// Issue 21's Done-when for generic scenarios: each gate failing on its own, each template's happy path with the same
// seed giving the same records twice, idempotent replays, the limits, behavioral advances, lease expiry, older
// generator versions, and reset with its refusal rules.
const { describe, it, before, after } = exports.lab = Lab.script();
const { expect } = Code;

const START = '2026-01-05T00:00:00.000Z';
const key = () => Crypto.randomUUID();

async function records(server: TestDataServer, scenarioId: string): Promise<any[]> {
    const knex = await openDisposable(server.instance.config.database, server.instance.config.dataDir, `hostless_test_${server.env}`);
    try {
        const rows = await knex('test_records').where({ scenario_id: scenarioId }).orderBy('id');
        // The same records: ids and references differ only by the scenario's id.
        return rows.map((row: any) => ({ ...row, id: row.id.slice(scenarioId.length), ref_id: row.ref_id?.slice(scenarioId.length) ?? null, scenario_id: null }));
    }
    finally {
        await knex.destroy();
    }
}

async function refuseInserts(knex: Knex): Promise<() => Promise<void>> {
    if (dialect(knex) === 'postgres') {
        await knex.raw(`CREATE FUNCTION test_refuse() RETURNS trigger AS $$ BEGIN RAISE EXCEPTION 'refused by the test'; END; $$ LANGUAGE plpgsql`);
        await knex.raw('CREATE TRIGGER test_refuse BEFORE INSERT ON test_records FOR EACH ROW EXECUTE FUNCTION test_refuse()');
        return async () => {
            await knex.raw('DROP TRIGGER test_refuse ON test_records');
            await knex.raw('DROP FUNCTION test_refuse()');
        };
    }

    await knex.raw(`CREATE TRIGGER test_refuse BEFORE INSERT ON test_records BEGIN SELECT RAISE(ABORT, 'refused by the test'); END`);
    return () => knex.raw('DROP TRIGGER test_refuse');
}

describe('test-data gates', () => {

    let server: TestDataServer;

    before(async () => {
        server = await testDataServer();
    });

    after(async () => {
        await server?.stop();
    });

    for (const [name, overrides] of [
        ['NODE_ENV test', { nodeEnv: 'test' }],
        ['NODE_ENV production', { nodeEnv: 'production', production: true }],
        ['NODE_ENV staging', { nodeEnv: 'staging' }],
        ['MCP_TEST_DATA_ENABLED off', { nodeEnv: 'development', testData: { enabled: false, userIds: [PLACEHOLDER], environments: { dev: { database: 'hostless_test_dev' } }, dashboardEnabled: false } }],
        ['an empty allow-list', { nodeEnv: 'development', testData: { enabled: true, userIds: [], environments: { dev: { database: 'hostless_test_dev' } }, dashboardEnabled: false } }]
    ] as const) {
        it(`mounts no test-data route with ${name}`, async () => {
            const instance = await testServer(overrides);
            try {
                expect(mountedTables(instance.config).map((table) => table.family)).to.not.include('test-data');
                const user = await register(instance.server, 'gate');
                const { token } = await createKey(instance.server, user, ['test-data:read']);
                const res = await instance.server.inject({ method: 'GET', url: '/v1/test-data/capabilities', headers: { authorization: token } });
                expect(res.statusCode).to.equal(404);
            }
            finally {
                await instance.stop();
            }
        });
    }

    it('mounts the routes when every process gate holds, and answers capabilities to an allow-listed key', async () => {
        expect(mountedTables(server.instance.config).map((table) => table.family)).to.include('test-data');
        const res = await server.call('GET', '/v1/test-data/capabilities');
        expect(res.statusCode).to.equal(200);
        expect(res.result.templates.map((template: any) => template.name)).to.equal(['usage_history', 'deployment_history', 'account_lifecycle', 'credit_exhaustion', 'payment_recovery', 'notification_eligibility', 'dashboard_usage', 'dashboard_invoice']);
        expect(res.result.limits).to.include({ maxDays: 31, maxRecords: 10_000, maxUsageSteps: 10_000, maxOpenScenarios: 10 });
        expect(res.result.environments).to.equal([server.env]);
    });

    it('refuses a session, even an admin\'s', async () => {
        await server.instance.server.app.knex('users').where({ id: server.user.id }).update({ admin_since: new Date().toISOString() });
        const res = await server.call('GET', '/v1/test-data/capabilities', undefined, server.user.session);
        expect(res.statusCode).to.equal(403);
        await server.instance.server.app.knex('users').where({ id: server.user.id }).update({ admin_since: null });
    });

    it('refuses a key without the needed scope', async () => {
        const { token } = await createKey(server.instance.server, server.user, ['test-data:read']);
        const res = await server.call('POST', '/v1/test-data/scenarios', { environment: server.env, template: 'usage_history', seed: 1 }, token);
        expect(res.statusCode).to.equal(403);
        expect((await server.call('GET', '/v1/test-data/capabilities', undefined, token)).statusCode).to.equal(200);
    });

    it('refuses a key of a user outside the allow-list, admin or not', async () => {
        const other = await register(server.instance.server, 'outsider');
        await server.instance.server.app.knex('users').where({ id: other.id }).update({ admin_since: new Date().toISOString() });
        const { token } = await createKey(server.instance.server, other, ['test-data:read']);
        const res = await server.call('GET', '/v1/test-data/capabilities', undefined, token);
        expect(res.statusCode).to.equal(403);
        expect(res.result.message).to.contain('MCP_TEST_DATA_USER_IDS');
    });

    it('refuses unknown and production environments, and one whose database is not its disposable one', async () => {
        (server.config.environments as any).production = { database: 'hostless_test_production' };
        (server.config.environments as any).wrong = { database: 'hostless' };
        try {
            for (const environment of ['nowhere', 'production', 'wrong']) {
                const res = await server.call('POST', '/v1/test-data/scenarios', { environment, template: 'usage_history', seed: 1 });
                expect(res.statusCode, environment).to.equal(403);
            }
        }
        finally {
            delete (server.config.environments as any).production;
            delete (server.config.environments as any).wrong;
        }
    });

    it('refuses dashboard templates outside NODE_ENV=local with the dashboard switch and a fixtures environment', async () => {
        (server.config.environments as any).dashboard = { database: 'hostless', dashboardFixtures: true };
        try {
            const res = await server.call('POST', '/v1/test-data/scenarios', { environment: 'dashboard', template: 'dashboard_usage', seed: 1, projectId: server.user.projectId, start: START, days: 1 });
            expect(res.statusCode).to.equal(403);
            expect(res.result.message).to.contain('NODE_ENV=local');
        }
        finally {
            delete (server.config.environments as any).dashboard;
        }
    });
});

describe('test-data scenarios', () => {

    let server: TestDataServer;

    before(async () => {
        server = await testDataServer();
    });

    after(async () => {
        await server?.stop();
    });

    const reset = async (scenarioId: string) => {
        const current = await server.call('GET', `/v1/test-data/scenarios/${scenarioId}`);
        return server.call('POST', `/v1/test-data/scenarios/${scenarioId}/reset`, { environment: server.env, revision: current.result.revision, idempotencyKey: key() });
    };

    const templates: Array<[string, Record<string, unknown>, string[], string?]> = [
        ['usage_history', { apps: 2, databases: 1, days: 2, pattern: 'diurnal' }, ['relationships', 'usage_conserved']],
        ['deployment_history', { apps: 2, days: 3, appName: 'web' }, ['relationships']],
        ['account_lifecycle', { days: 5, credit: 1 }, ['relationships', 'credit_nonnegative', 'notifications_delivered']],
        ['credit_exhaustion', { days: 7, credit: 0.5 }, ['relationships', 'credit_nonnegative', 'credit_exhausted', 'notifications_delivered']],
        ['payment_recovery', { days: 5, paymentClearsOnDay: 3, notificationFailureDay: 2 }, ['relationships', 'payment_state', 'notifications_delivered'], 'paid'],
        ['notification_eligibility', { days: 3, notificationFailureDay: 2 }, ['relationships', 'notifications_delivered']]
    ];

    for (const [template, overrides, checks, expectedState] of templates) {
        it(`applies ${template} to the same records for the same seed, and its checks pass`, async () => {
            const first = await planAndApply(server, { template, seed: 7, start: START, ...overrides });
            const second = await planAndApply(server, { template, seed: 7, start: START, ...overrides });
            expect(first.applied.status).to.equal('ready');
            expect(second.applied.status).to.equal('ready');
            expect(first.planned.digest).to.equal(second.planned.digest);
            const a = await records(server, first.planned.scenarioId);
            expect(a.length).to.equal(first.planned.records);
            expect(a.length).to.be.above(3);
            expect(await records(server, second.planned.scenarioId)).to.equal(a);
            const other = await planAndApply(server, { template, seed: 8, start: START, ...overrides });
            expect(await records(server, other.planned.scenarioId)).to.not.equal(a);

            const asserted = await server.call('GET', `/v1/test-data/scenarios/${first.planned.scenarioId}/assertions?checks=${checks.join(',')}${expectedState ? `&expectedState=${expectedState}` : ''}`);
            expect(asserted.statusCode).to.equal(200);
            expect(asserted.result.results.map((result: any) => `${result.check}:${result.outcome}`)).to.equal(checks.map((check) => `${check}:pass`));
            expect(asserted.result.passed).to.be.true();
            for (const scenario of [first, second, other]) {
                expect((await reset(scenario.planned.scenarioId)).statusCode).to.equal(200);
            }
        });
    }

    it('fails an assertion that does not hold', async () => {
        const { planned } = await planAndApply(server, { template: 'payment_recovery', seed: 3, start: START, days: 3 });
        const paid = await server.call('GET', `/v1/test-data/scenarios/${planned.scenarioId}/assertions?checks=payment_state&expectedState=paid`);
        expect(paid.result.results[0]).to.include({ outcome: 'fail', detail: 'the invoice is payment_failed, not paid' });
        expect(paid.result.passed).to.be.false();
        const exhausted = await server.call('GET', `/v1/test-data/scenarios/${planned.scenarioId}/assertions?checks=credit_exhausted`);
        expect(exhausted.result.results[0].outcome).to.equal('unsupported');
        expect((await server.call('GET', `/v1/test-data/scenarios/${planned.scenarioId}/assertions?checks=payment_state`)).statusCode).to.equal(400);
        await reset(planned.scenarioId);
    });

    it('replays an apply by its idempotency key, and refuses another key, a wrong digest and a key of another request', async () => {
        const idempotencyKey = key();
        const { planned, applied } = await planAndApply(server, { template: 'deployment_history', seed: 1, start: START, days: 1 }, idempotencyKey);
        const url = `/v1/test-data/scenarios/${planned.scenarioId}/apply`;
        const replay = await server.call('POST', url, { environment: server.env, digest: planned.digest, idempotencyKey });
        expect(replay.statusCode).to.equal(200);
        expect(replay.result).to.include({ runId: applied.runId, replayed: true, superseded: false, status: 'ready' });
        expect((await manifestOf(server, planned.scenarioId)).length).to.equal(planned.records);

        expect((await server.call('POST', url, { environment: server.env, digest: planned.digest, idempotencyKey: key() })).statusCode).to.equal(409);
        const other = await server.call('POST', '/v1/test-data/scenarios', { environment: server.env, template: 'deployment_history', seed: 2, start: START, days: 1 });
        const wrong = await server.call('POST', `/v1/test-data/scenarios/${other.result.scenarioId}/apply`, { environment: server.env, digest: '0'.repeat(64), idempotencyKey: key() });
        expect(wrong.statusCode).to.equal(409);
        expect(wrong.result.message).to.contain('digest');
        const reused = await server.call('POST', `/v1/test-data/scenarios/${other.result.scenarioId}/apply`, { environment: server.env, digest: other.result.digest, idempotencyKey });
        expect(reused.statusCode).to.equal(409);
        await reset(planned.scenarioId);
        await reset(other.result.scenarioId);
    });

    it('keeps the limits: days, records, usage steps, unsupported overrides and ten open scenarios', async () => {
        const plan = (body: Record<string, unknown>) => server.call('POST', '/v1/test-data/scenarios', { environment: server.env, seed: 1, start: START, ...body });
        expect((await plan({ template: 'usage_history', days: 32 })).statusCode).to.equal(400);
        const big = await plan({ template: 'usage_history', apps: 20, databases: 10, days: 31, intervalMinutes: 15 });
        expect(big.statusCode).to.equal(400);
        expect(big.result.message).to.contain('10000');
        const fits = await plan({ template: 'usage_history', apps: 2, days: 31, intervalMinutes: 15 });
        expect(fits.result).to.include({ records: 6017, usageSteps: 6014 });
        await reset(fits.result.scenarioId);
        const unsupported = await plan({ template: 'deployment_history', credit: 5, pattern: 'spiky' });
        expect(unsupported.statusCode).to.equal(400);
        expect(unsupported.result.message).to.equal('"credit", "pattern" are not supported by template deployment_history');
        expect((await plan({ template: 'payment_recovery', days: 3, paymentClearsOnDay: 4 })).statusCode).to.equal(400);

        const made = [];
        for (let i = 0; i < 10; ++i) {
            const res = await plan({ template: 'deployment_history', days: 1 });
            expect(res.statusCode).to.equal(201);
            made.push(res.result.scenarioId);
        }

        const eleventh = await plan({ template: 'deployment_history', days: 1 });
        expect(eleventh.statusCode).to.equal(409);
        await reset(made[0]);
        expect((await plan({ template: 'deployment_history', days: 1 })).statusCode).to.equal(201);
        await server.instance.server.app.knex('test_scenarios').where({ actor_id: server.user.id }).update({ status: 'reset' });
    });

    it('advances a behavioral scenario without changing what it wrote', async () => {
        const { planned, applied } = await planAndApply(server, { template: 'usage_history', mode: 'behavioral', seed: 5, start: START, days: 3 });
        expect(applied.scenario.logicalTime).to.equal(START);
        const url = `/v1/test-data/scenarios/${planned.scenarioId}/advance`;
        const before = await records(server, planned.scenarioId);
        expect(before.map((record) => record.collection)).to.equal(['account', 'resource']);

        const idempotencyKey = key();
        const advanced = await server.call('POST', url, { environment: server.env, revision: applied.scenario.revision, idempotencyKey, hours: 30 });
        expect(advanced.statusCode).to.equal(200);
        expect(advanced.result.scenario.logicalTime).to.equal('2026-01-06T06:00:00.000Z');
        const after1 = await records(server, planned.scenarioId);
        expect(after1.filter((record) => record.collection === 'usage_sample')).to.have.length(30);
        expect(after1.filter((record) => record.collection === 'usage_day')).to.have.length(1);

        const replay = await server.call('POST', url, { environment: server.env, revision: applied.scenario.revision, idempotencyKey, hours: 30 });
        expect(replay.result).to.include({ runId: advanced.result.runId, replayed: true });
        expect((await server.call('POST', url, { environment: server.env, revision: applied.scenario.revision, idempotencyKey: key(), hours: 1 })).statusCode).to.equal(409);

        const end = await server.call('POST', url, { environment: server.env, revision: advanced.result.scenario.revision, idempotencyKey: key(), to: '2026-01-08T00:00:00.000Z' });
        expect(end.statusCode).to.equal(200);
        const after2 = await records(server, planned.scenarioId);
        expect(after2.filter((record) => after1.some((old) => old.id === record.id))).to.equal(after1);
        const historical = await planAndApply(server, { template: 'usage_history', seed: 5, start: START, days: 3 });
        expect(await records(server, historical.planned.scenarioId)).to.equal(after2);
        const beyond = await server.call('POST', url, { environment: server.env, revision: end.result.scenario.revision, idempotencyKey: key(), hours: 1 });
        expect(beyond.statusCode).to.equal(400);
        const notBehavioral = await server.call('POST', `/v1/test-data/scenarios/${historical.planned.scenarioId}/advance`, { environment: server.env, revision: 1, idempotencyKey: key() });
        expect(notBehavioral.statusCode).to.equal(409);
        await reset(planned.scenarioId);
        await reset(historical.planned.scenarioId);
    });

    it('reports a run whose execution lease expired as failed', async () => {
        const planned = await server.call('POST', '/v1/test-data/scenarios', { environment: server.env, template: 'deployment_history', seed: 1, start: START, days: 1 });
        const knex = server.instance.server.app.knex;
        await knex('test_scenarios').where({ id: planned.result.scenarioId }).update({ status: 'running' });
        await knex('test_scenario_runs').insert({
            id: 'tsr_0000000000000001', scenario_id: planned.result.scenarioId, actor_id: server.user.id, environment: server.env, action: 'apply', idempotency_key: key(),
            status: 'running', lease_until: new Date(Date.now() - 1000).toISOString(), created_at: new Date().toISOString()
        });
        const got = await server.call('GET', `/v1/test-data/scenarios/${planned.result.scenarioId}`);
        expect(got.result.status).to.equal('failed');
        expect(got.result.lastRun).to.include({ runId: 'tsr_0000000000000001', status: 'failed', failureCode: 'lease_expired' });
        expect((await reset(planned.result.scenarioId)).statusCode).to.equal(200);
    });

    it('ends failed with a safe code when the write fails, keeping the manifest for the reset', async () => {
        const disposable = await openDisposable(server.instance.config.database, server.instance.config.dataDir, `hostless_test_${server.env}`);
        const restore = await refuseInserts(disposable);
        try {
            const { planned, applied } = await planAndApply(server, { template: 'deployment_history', seed: 9, start: START, days: 2 });
            expect(applied).to.include({ status: 'failed', failureCode: 'write_failed' });
            expect(applied.scenario.status).to.equal('failed');
            expect((await manifestOf(server, planned.scenarioId)).length).to.equal(planned.records);
            await restore();
            expect((await reset(planned.scenarioId)).result.scenario.status).to.equal('reset');
        }
        finally {
            await disposable.destroy();
        }
    });

    it('keeps an older generator version inspectable and resettable, not applicable', async () => {
        const planned = await server.call('POST', '/v1/test-data/scenarios', { environment: server.env, template: 'deployment_history', seed: 1, start: START, days: 1 });
        await server.instance.server.app.knex('test_scenarios').where({ id: planned.result.scenarioId }).update({ generator_version: 0 });
        const applied = await server.call('POST', `/v1/test-data/scenarios/${planned.result.scenarioId}/apply`, { environment: server.env, digest: planned.result.digest, idempotencyKey: key() });
        expect(applied.statusCode).to.equal(409);
        expect(applied.result.message).to.contain('generator version 0');
        const got = await server.call('GET', `/v1/test-data/scenarios/${planned.result.scenarioId}`);
        expect(got.result).to.include({ generatorVersion: 0, currentGenerator: false });
        expect((await reset(planned.result.scenarioId)).statusCode).to.equal(200);
    });

    it('refuses to apply a plan whose policy snapshot changed since', async () => {
        const planned = await server.call('POST', '/v1/test-data/scenarios', { environment: server.env, template: 'deployment_history', seed: 1, start: START, days: 1 });
        const entry = server.config.environments[server.env] as any;
        entry.dashboardFixtures = false;
        try {
            const applied = await server.call('POST', `/v1/test-data/scenarios/${planned.result.scenarioId}/apply`, { environment: server.env, digest: planned.result.digest, idempotencyKey: key() });
            expect(applied.statusCode).to.equal(409);
            expect(applied.result.message).to.contain('policy');
        }
        finally {
            delete entry.dashboardFixtures;
        }

        expect((await reset(planned.result.scenarioId)).statusCode).to.equal(200);
    });

    it('resets through the manifest, refusing a stale revision, outside references and unregistered tables', async () => {
        const { planned } = await planAndApply(server, { template: 'account_lifecycle', seed: 2, start: START, days: 3 });
        const url = `/v1/test-data/scenarios/${planned.scenarioId}/reset`;
        expect((await server.call('POST', url, { environment: server.env, revision: 0, idempotencyKey: key() })).statusCode).to.equal(409);

        const disposable = await openDisposable(server.instance.config.database, server.instance.config.dataDir, `hostless_test_${server.env}`);
        try {
            await disposable('test_records').insert({ id: 'outside.1', scenario_id: 'tsc_outside000000000', collection: 'resource', ref_id: `${planned.scenarioId}.account-0`, at: START, body: '{}' });
            const referenced = await server.call('POST', url, { environment: server.env, revision: 1, idempotencyKey: key() });
            expect(referenced.statusCode).to.equal(409);
            expect(referenced.result.message).to.contain('outside.1');
            await disposable('test_records').where({ id: 'outside.1' }).delete();

            await disposable.schema.createTable('stray', (t) => t.string('x'));
            await disposable('stray').insert({ x: 'y' });
            const stray = await server.call('POST', url, { environment: server.env, revision: 1, idempotencyKey: key() });
            expect(stray.statusCode).to.equal(409);
            expect(stray.result.message).to.contain('stray');
            await disposable.schema.dropTable('stray');

            const idempotencyKey = key();
            const done = await server.call('POST', url, { environment: server.env, revision: 1, idempotencyKey });
            expect(done.statusCode).to.equal(200);
            expect(done.result.scenario).to.include({ status: 'reset', revision: 2 });
            expect(await disposable('test_records').where({ scenario_id: planned.scenarioId })).to.equal([]);
            expect((await server.call('POST', url, { environment: server.env, revision: 1, idempotencyKey })).result).to.include({ runId: done.result.runId, replayed: true });
            expect((await server.call('POST', url, { environment: server.env, revision: 2, idempotencyKey: key() })).statusCode).to.equal(409);
        }
        finally {
            await disposable.destroy();
        }
    });

    it('shows a scenario to its own actor only', async () => {
        const planned = await server.call('POST', '/v1/test-data/scenarios', { environment: server.env, template: 'deployment_history', seed: 1, start: START, days: 1 });
        const other = await register(server.instance.server, 'second');
        (server.config.userIds as string[]).push(other.id);
        const { token } = await createKey(server.instance.server, other, ['test-data:read']);
        expect((await server.call('GET', `/v1/test-data/scenarios/${planned.result.scenarioId}`, undefined, token)).statusCode).to.equal(404);
        expect((await server.call('GET', '/v1/test-data/scenarios/nope', undefined, token)).statusCode).to.equal(400);
        await reset(planned.result.scenarioId);
    });
});

describe('test-data disposable databases', () => {

    it('creates the disposable database beside the primary and drops it cleanly', async () => {
        const server = await testDataServer();
        try {
            const { applied } = await planAndApply(server, { template: 'deployment_history', seed: 1, start: START, days: 1 });
            expect(applied.status).to.equal('ready');
        }
        finally {
            await server.stop();
        }

        await dropDisposable(`hostless_test_${server.env}`);
    });
});
