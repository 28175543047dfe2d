import * as Crypto from 'node:crypto';

import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';
import type { Knex } from 'knex';

import { planAndApply, testDataServer, type TestDataServer } from './helpers';

// Issue 21's dashboard fixtures: dashboard_usage rows and one test invoice in the API's own database, only with
// NODE_ENV=local, TEST_DATA_DASHBOARD_ENABLED and an environment naming the API's database; invoices from ready usage
// scenarios of one project and period, payment refusing them, atomic supersession, and the reset order (an invoice
// scenario before its sources).
const { describe, it, before, after } = exports.lab = Lab.script();
const { expect } = Code;

const START = '2026-01-05T00:00:00.000Z';
const key = () => Crypto.randomUUID();

describe('dashboard fixtures', () => {

    let server: TestDataServer;
    let knex: Knex;

    before(async () => {
        server = await testDataServer({ dashboard: true });
        knex = server.instance.server.app.knex;
    });

    after(async () => {
        await server?.stop();
    });

    const usage = (body: Record<string, unknown> = {}) => planAndApply(server, { environment: 'dashboard', template: 'dashboard_usage', seed: 4, start: START, days: 2, projectId: server.user.projectId, ...body });
    const plan = (body: Record<string, unknown>) => server.call('POST', '/v1/test-data/scenarios', { environment: 'dashboard', seed: 4, start: START, days: 2, ...body });
    const apply = (planned: any, idempotencyKey = key()) => server.call('POST', `/v1/test-data/scenarios/${planned.scenarioId}/apply`, { environment: 'dashboard', digest: planned.digest, idempotencyKey });
    const get = async (scenarioId: string) => (await server.call('GET', `/v1/test-data/scenarios/${scenarioId}`)).result;
    const reset = async (scenarioId: string) => server.call('POST', `/v1/test-data/scenarios/${scenarioId}/reset`, { environment: 'dashboard', revision: (await get(scenarioId)).revision, idempotencyKey: key() });
    const rows = async (scenarioId: string) => {
        const ids = (await knex('test_scenario_manifest').where({ scenario_id: scenarioId }).pluck('record_id')).map((id: string) => id.split('@')[0]);
        return (await knex('usage_hours').whereIn('resource_id', [...new Set(ids)]).orderBy('hour'))
            .map((row: any) => ({ type: row.resource_type, name: row.resource_name, hour: row.hour, plan: row.plan, instanceMs: Number(row.instance_ms), storage: Number(row.storage_gib_ms) }));
    };

    it('writes an app\'s hourly usage, the same for the same seed, and its checks pass', async () => {
        const first = await usage();
        const second = await usage();
        expect(first.applied.status).to.equal('ready');
        const written = await rows(first.planned.scenarioId);
        expect(written).to.have.length(48);
        expect(written[0]).to.equal({ type: 'app', name: 'test-app', hour: START, plan: 'standard', instanceMs: 3600_000, storage: 0 });
        expect(await rows(second.planned.scenarioId)).to.equal(written);
        const asserted = await server.call('GET', `/v1/test-data/scenarios/${first.planned.scenarioId}/assertions?checks=relationships,usage_conserved`);
        expect(asserted.result.passed).to.be.true();
        expect((await reset(first.planned.scenarioId)).statusCode).to.equal(200);
        expect((await reset(second.planned.scenarioId)).statusCode).to.equal(200);
        expect(await rows(first.planned.scenarioId)).to.equal([]);
    });

    it('writes daily usage of a worker or a database, with storage', async () => {
        const { planned } = await usage({ resourceKind: 'database', intervalMinutes: 1440, days: 3, storageGiB: 20, resourceName: 'main-db', cpuCores: 1, memoryMiB: 2048 });
        const written = await rows(planned.scenarioId);
        expect(written.map((row) => row.hour)).to.equal(['2026-01-05T00:00:00.000Z', '2026-01-06T00:00:00.000Z', '2026-01-07T00:00:00.000Z']);
        expect(written[0]).to.include({ type: 'database', name: 'main-db', plan: 'standard', instanceMs: 86_400_000, storage: 20 * 86_400_000 });
        expect((await reset(planned.scenarioId)).statusCode).to.equal(200);
    });

    it('refuses dashboard plans when any one dashboard gate fails', async () => {
        const body = { template: 'dashboard_usage', projectId: server.user.projectId };
        const config = server.config as any;
        const saved = { ...config.environments.dashboard };
        for (const [name, change] of [
            ['TEST_DATA_DASHBOARD_ENABLED', () => (config.dashboardEnabled = false)],
            ['dashboardFixtures', () => (config.environments.dashboard.dashboardFixtures = false)],
            ['the API\'s database', () => (config.environments.dashboard.database = 'hostless_test_dashboard')]
        ] as const) {
            change();
            try {
                expect((await plan(body)).statusCode, name).to.equal(403);
            }
            finally {
                config.dashboardEnabled = true;
                config.environments.dashboard = { ...saved };
            }
        }

        expect((await plan(body)).statusCode).to.equal(201);
        await knex('test_scenarios').where({ actor_id: server.user.id, status: 'planned' }).update({ status: 'reset' });
    });

    it('refuses plans outside the dashboard_usage rules', async () => {
        const base = { template: 'dashboard_usage', projectId: server.user.projectId };
        const cases: Array<[Record<string, unknown>, number]> = [
            [{ days: 8 }, 400], [{ intervalMinutes: 1440 }, 400], [{ start: new Date(Date.now() - 3600_000).toISOString() }, 400], [{ storageGiB: 1001 }, 400],
            [{ mode: 'behavioral' }, 400], [{ projectId: undefined }, 400], [{ projectId: 'prj_0000000000000000' }, 404], [{ cpuCores: 8 }, 400], [{ apps: 2 }, 400]
        ];
        for (const [body, status] of cases) {
            const res = await plan({ ...base, ...body });
            expect(res.statusCode, JSON.stringify(body)).to.equal(status);
        }
    });

    it('invoices ready usage once, as a test invoice payment refuses; supersedes it atomically; resets in order', async () => {
        const app = await usage();
        const worker = await usage({ resourceKind: 'worker', resourceName: 'jobs' });
        const invoicePlan = await plan({ template: 'dashboard_invoice', sourceScenarioId: app.planned.scenarioId });
        expect(invoicePlan.statusCode).to.equal(201);
        const idempotencyKey = key();
        const invoiced = await apply(invoicePlan.result, idempotencyKey);
        expect(invoiced.result.status).to.equal('ready');
        const [entry] = (await get(invoicePlan.result.scenarioId)).manifest.items;
        const invoice = await knex('invoices').where({ id: entry.recordId }).first();
        expect(invoice).to.include({ project_id: server.user.projectId, period_start: '2026-01-05', period_end: '2026-01-06', status: 'open' });
        expect(!!invoice.test).to.be.true();
        expect(JSON.parse(invoice.lines).map((line: any) => line.resourceName)).to.equal(['test-app']);
        expect(Number(invoice.total)).to.be.above(0);
        const pay = await server.call('POST', `/v1/billing/pay/${invoice.id}`, undefined, server.user.session);
        expect(pay.statusCode).to.equal(409);
        expect(pay.result.message).to.equal('A test invoice cannot be paid');

        // The source cannot go first; a second invoice for the period is blocked; a source of another period is refused.
        const early = await reset(app.planned.scenarioId);
        expect(early.statusCode).to.equal(409);
        expect(early.result.message).to.contain(invoicePlan.result.scenarioId);
        const blocked = await plan({ template: 'dashboard_invoice', sourceScenarioId: app.planned.scenarioId });
        expect(blocked.statusCode).to.equal(409);
        expect(blocked.result.message).to.contain('already exists');
        const elsewhere = await usage({ start: '2026-02-01T00:00:00.000Z', resourceName: 'other' });
        const mixed = await plan({ template: 'dashboard_invoice', sourceScenarioId: app.planned.scenarioId, additionalSourceScenarioIds: [elsewhere.planned.scenarioId] });
        expect(mixed.statusCode).to.equal(409);

        // The combined invoice replaces the first: same invoice id, the manifest entry moves, the old scenario is superseded.
        const combined = await plan({ template: 'dashboard_invoice', sourceScenarioId: app.planned.scenarioId, additionalSourceScenarioIds: [worker.planned.scenarioId], replacesInvoiceScenarioId: invoicePlan.result.scenarioId });
        expect(combined.statusCode).to.equal(201);
        const replaced = await apply(combined.result);
        expect(replaced.result.status).to.equal('ready');
        const old = await get(invoicePlan.result.scenarioId);
        expect(old).to.include({ status: 'superseded', superseded: true, supersededBy: combined.result.scenarioId });
        expect(old.manifest.items).to.equal([]);
        expect((await get(combined.result.scenarioId)).manifest.items.map((item: any) => item.recordId)).to.equal([invoice.id]);
        const updated = await knex('invoices').where({ id: invoice.id }).first();
        expect([...new Set(JSON.parse(updated.lines).map((line: any) => line.resourceName))].sort()).to.equal(['jobs', 'test-app']);
        expect(await knex('invoices').where({ project_id: server.user.projectId, period_start: '2026-01-05' })).to.have.length(1);

        const replay = await apply(invoicePlan.result, idempotencyKey);
        expect(replay.result).to.include({ runId: invoiced.result.runId, replayed: true, superseded: true });
        const stale = await plan({ template: 'dashboard_invoice', sourceScenarioId: app.planned.scenarioId, replacesInvoiceScenarioId: invoicePlan.result.scenarioId });
        expect(stale.statusCode).to.equal(409);

        // The superseded scenario resets without touching the invoice; the sources wait for the current invoice.
        expect((await reset(invoicePlan.result.scenarioId)).statusCode).to.equal(200);
        expect(await knex('invoices').where({ id: invoice.id }).first()).to.exist();
        expect((await reset(worker.planned.scenarioId)).statusCode).to.equal(409);
        expect((await reset(combined.result.scenarioId)).statusCode).to.equal(200);
        expect(await knex('invoices').where({ id: invoice.id }).first()).to.not.exist();
        for (const scenario of [app, worker, elsewhere]) {
            expect((await reset(scenario.planned.scenarioId)).statusCode).to.equal(200);
        }

        const gone = await plan({ template: 'dashboard_invoice', sourceScenarioId: app.planned.scenarioId });
        expect(gone.statusCode).to.equal(409);
    });

    it('blocks an invoice plan on missing usage or a real invoice for the period', async () => {
        const source = await usage({ resourceName: 'missing' });
        const manifest = await knex('test_scenario_manifest').where({ scenario_id: source.planned.scenarioId }).pluck('record_id');
        await knex('usage_hours').whereIn('resource_id', [manifest[0].split('@')[0]]).delete();
        const missing = await plan({ template: 'dashboard_invoice', sourceScenarioId: source.planned.scenarioId });
        expect(missing.statusCode).to.equal(409);
        expect(missing.result.message).to.contain('no usage left');
        expect((await reset(source.planned.scenarioId)).statusCode).to.equal(200);

        const real = await usage({ resourceName: 'real' });
        await knex('invoices').insert({
            id: 'inv_real000000000000', project_id: server.user.projectId, account_id: server.user.id, period_start: '2026-01-05', period_end: '2026-01-06', currency: 'USD',
            lines: '[]', subtotal: 0, credit_applied: 0, total: 0, status: 'paid', test: false, created_at: START, updated_at: START
        });
        const blocked = await plan({ template: 'dashboard_invoice', sourceScenarioId: real.planned.scenarioId });
        expect(blocked.statusCode).to.equal(409);
        expect(blocked.result.message).to.contain('(real)');
        await knex('invoices').where({ id: 'inv_real000000000000' }).delete();
        expect((await reset(real.planned.scenarioId)).statusCode).to.equal(200);
    });
});
