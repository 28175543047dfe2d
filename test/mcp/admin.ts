import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Knex } from 'knex';

import { dialect } from '../../lib/db/knex';
import { ADMIN_TOOLS } from '../../lib/mcp/admin-tools';
import { createKey, login, register, type TestUser } from '../helpers/api';
import { call, connect, mcpInstance, text, toolNames, type McpInstance } from '../helpers/mcp';
import { connectApp } from '../helpers/oauth';
import { SCOPES } from '../../lib/scopes';
import { newId } from '../../lib/ids';

// The Done-when of issue 20 through the SDK's client against a running MCP server and API: admin tools are offered
// to and answered for a platform admin's session only; every call leaves exactly one access-audit record; a database
// that refuses the audit write denies the call with none of its data; a revoked admin flag holds at the next call.
const { describe, it, before, after } = exports.lab = Lab.script();
const { expect } = Code;

const ADMIN_NAMES = ADMIN_TOOLS.map((tool) => tool.name).sort();

async function auditCount(knex: Knex): Promise<number> {
    const row = await knex('admin_access_audit').count({ n: '*' }).first() as { n: number | string };
    return Number(row.n);
}

/** Makes the audit table refuse inserts in the database itself (a trigger that raises). */
async function refuseAuditWrites(knex: Knex): Promise<() => Promise<void>> {
    if (dialect(knex) === 'postgres') {
        await knex.raw(`CREATE FUNCTION test_refuse_audit() RETURNS trigger AS $$ BEGIN RAISE EXCEPTION 'audit refused by the test'; END; $$ LANGUAGE plpgsql`);
        await knex.raw('CREATE TRIGGER test_refuse_audit BEFORE INSERT ON admin_access_audit FOR EACH ROW EXECUTE FUNCTION test_refuse_audit()');
        return async () => {
            await knex.raw('DROP TRIGGER test_refuse_audit ON admin_access_audit');
            await knex.raw('DROP FUNCTION test_refuse_audit()');
        };
    }

    await knex.raw(`CREATE TRIGGER test_refuse_audit BEFORE INSERT ON admin_access_audit BEGIN SELECT RAISE(ABORT, 'audit refused by the test'); END`);
    return async () => {
        await knex.raw('DROP TRIGGER test_refuse_audit');
    };
}

describe('admin tools', () => {

    let instance: McpInstance;
    let knex: Knex;
    let admin: TestUser;
    let member: TestUser;
    const clients: Client[] = [];
    const open = async (authorization: string) => {
        const client = await connect(`${instance.url}/mcp`, { authorization });
        clients.push(client);
        return client;
    };
    const makeAdmin = (user: TestUser, on: boolean) => knex('users').where('id', user.id).update({ admin_since: on ? new Date().toISOString() : null });

    before(async () => {
        instance = await mcpInstance();
        knex = instance.api.server.app.knex;
        admin = await register(instance.api.server, 'admin');
        member = await register(instance.api.server, 'member');
        await makeAdmin(admin, true);
    });

    after(async () => {
        await Promise.all(clients.map((client) => client.close()));
        await instance?.stop();
    });

    it('offers none to a non-admin session, an admin\'s API key or an admin\'s OAuth token, and refuses each by name', async () => {
        const key = await createKey(instance.api.server, admin, SCOPES);
        const oauth = await connectApp(instance.api.server, admin);
        const callers = { 'non-admin session': member.session, 'admin API key': key.token, 'admin OAuth token': `Bearer ${oauth.accessToken}` };
        const before = await auditCount(knex);
        for (const [label, authorization] of Object.entries(callers)) {
            const client = await open(authorization);
            const names = await toolNames(client);
            expect(names.filter((name) => name.startsWith('admin_')), label).to.equal([]);
            for (const name of ADMIN_NAMES) {
                const result = await call(client, name, { userId: admin.id });
                expect(result.isError, `${label} ${name}`).to.be.true();
                expect(text(result), `${label} ${name}`).to.equal(`Tool ${name} not found`);
                expect(text(result)).to.not.include(admin.email);
            }
        }

        expect(await auditCount(knex)).to.equal(before);
    });

    it('refuses the admin routes themselves to a key and a non-admin session', async () => {
        const key = await createKey(instance.api.server, admin, SCOPES);
        for (const authorization of [key.token, member.session]) {
            const res = await instance.api.server.inject({ method: 'GET', url: `/v1/admin/accounts/${admin.id}`, headers: { authorization } });
            expect(res.statusCode).to.equal(403);
        }
    });

    it('answers an admin\'s session, one audit record per call, arguments and outcome recorded', async () => {
        const client = await open(admin.session);
        expect((await toolNames(client)).filter((name) => name.startsWith('admin_'))).to.equal(ADMIN_NAMES);

        const before = await auditCount(knex);
        const result = await call(client, 'admin_account_get', { userId: member.id });
        expect(result.isError).to.not.be.true();
        expect(result.structuredContent.account.email).to.equal(member.email);
        expect(result.structuredContent.account.isAdmin).to.be.false();
        expect(JSON.stringify(result)).to.not.include('password');
        expect(await auditCount(knex)).to.equal(before + 1);

        const missing = await call(client, 'admin_account_get', { userId: 'usr_0000000000000000' });
        expect(missing.isError).to.be.true();
        expect(text(missing)).to.include('404');
        expect(await auditCount(knex)).to.equal(before + 2);

        const records = await knex('admin_access_audit').orderBy('seq', 'desc').limit(2) as Array<Record<string, string>>;
        expect(records.map((r) => [r.tool, r.outcome, r.admin_id])).to.equal([['admin_account_get', 'not_found', admin.id], ['admin_account_get', 'ok', admin.id]]);
        expect(JSON.parse(records[1].arguments)).to.equal({ userId: member.id });
        expect(records[1].credential_id).to.startWith('ses_');

        const listed = await instance.api.server.inject({ method: 'GET', url: '/v1/admin/access-audit?limit=1', headers: { authorization: admin.session } });
        expect(listed.statusCode).to.equal(200);
        expect((listed.result as Array<{ tool: string; outcome: string }>).map((r) => [r.tool, r.outcome])).to.equal([['admin_account_get', 'not_found']]);
        expect(listed.headers.link).to.include('cursor=');
    });

    it('lets X-MCP-Tools narrow to the admin group, which selects nothing for anyone else', async () => {
        const narrowed = await connect(`${instance.url}/mcp`, { authorization: admin.session, 'x-mcp-tools': 'admin' });
        const plain = await connect(`${instance.url}/mcp`, { authorization: member.session, 'x-mcp-tools': 'admin,projects_list' });
        clients.push(narrowed, plain);
        expect(await toolNames(narrowed)).to.equal(ADMIN_NAMES);
        expect(await toolNames(plain)).to.equal(['projects_list']);
    });

    it('keeps the audit append-only in the database', async () => {
        await expect(knex('admin_access_audit').update({ outcome: 'ok' })).to.reject();
        await expect(knex('admin_access_audit').delete()).to.reject();
    });

    it('denies the call and returns no data when the database refuses the audit write', async () => {
        const client = await open(admin.session);
        const before = await auditCount(knex);
        const restore = await refuseAuditWrites(knex);
        try {
            const result = await call(client, 'admin_account_get', { userId: member.id });
            expect(result.isError).to.be.true();
            expect(result.structuredContent).to.not.exist();
            expect(text(result)).to.include('503');
            expect(text(result)).to.include('audit could not be recorded');
            expect(text(result)).to.not.include(member.email);

            const rest = await instance.api.server.inject({ method: 'GET', url: `/v1/admin/accounts/${member.id}`, headers: { authorization: admin.session } });
            expect(rest.statusCode).to.equal(503);
            expect(rest.payload).to.not.include(member.email);
        }
        finally {
            await restore();
        }

        expect(await auditCount(knex)).to.equal(before);
        expect((await call(client, 'admin_account_get', { userId: member.id })).isError).to.not.be.true();
    });

    it('refuses a user whose admin flag was removed at the next call', async () => {
        const other = await register(instance.api.server, 'former-admin');
        await makeAdmin(other, true);
        const client = await open(other.session);
        expect((await call(client, 'admin_account_get', { userId: member.id })).isError).to.not.be.true();

        await makeAdmin(other, false);
        const before = await auditCount(knex);
        const refused = await call(client, 'admin_account_get', { userId: member.id });
        expect(refused.isError).to.be.true();
        expect(text(refused)).to.equal('Tool admin_account_get not found');
        expect(await toolNames(client)).to.not.include('admin_account_get');
        const rest = await instance.api.server.inject({ method: 'GET', url: `/v1/admin/accounts/${member.id}`, headers: { authorization: (await login(instance.api.server, other)).session } });
        expect(rest.statusCode).to.equal(403);
        expect(await auditCount(knex)).to.equal(before);
    });

    it('shows a job the test enqueued, and says which backend runs the queue', async () => {
        const { queue } = instance.api.server.plugins['hostless-jobs'];
        const job = await queue.enqueue('admin.test-inspection', { userId: member.id, note: 'hello' });
        const client = await open(admin.session);
        const result = await call(client, 'admin_queue_inspect', { jobId: job.id });
        expect(result.isError, text(result)).to.not.be.true();
        expect(result.structuredContent).to.include({ outcome: 'ok', engine: 'bullmq', backend: 'database' });
        expect(result.structuredContent.job).to.include({ id: job.id, type: 'admin.test-inspection', status: 'queued' });
        expect(result.structuredContent.job.payload).to.equal({ userId: member.id, note: 'hello' });
        expect(result.structuredContent.counts.queued >= 1).to.be.true();

        const gone = await call(client, 'admin_queue_inspect', { engine: 'bullmq', jobId: 'job_0000000000000000' });
        expect(gone.structuredContent.outcome).to.equal('unavailable');
    });

    it('validates a temporal inspection and answers unavailable', async () => {
        const client = await open(admin.session);
        const temporal = await call(client, 'admin_queue_inspect', { engine: 'temporal', taskQueue: 'hostless-platform', workflowId: 'deploy-app_1', runId: '3f1c1a3e-8a4b-4d5e-9f00-1234567890ab' });
        expect(temporal.structuredContent).to.include({ outcome: 'unavailable', engine: 'temporal', workflowId: 'deploy-app_1' });

        const unknownQueue = await call(client, 'admin_queue_inspect', { engine: 'temporal', taskQueue: 'elsewhere', workflowId: 'w1' });
        expect(unknownQueue.isError).to.be.true();
        expect(text(unknownQueue)).to.include('taskQueue');
        const noWorkflow = await call(client, 'admin_queue_inspect', { engine: 'temporal', taskQueue: 'hostless-platform' });
        expect(text(noWorkflow)).to.include('workflowId');
        const mixed = await call(client, 'admin_queue_inspect', { engine: 'bullmq', workflowId: 'w1' });
        expect(mixed.isError).to.be.true();
        expect(text(mixed)).to.include('"workflowId" is not used with engine bullmq');
        const backwards = await call(client, 'admin_usage_get', { projectId: member.projectId, from: '2026-02-01T00:00:00Z', to: '2026-01-01T00:00:00Z' });
        expect(text(backwards)).to.include('"to" must be after "from"');
    });

    it('answers webhook deliveries: unavailable when unknown, unsupported for other providers', async () => {
        const client = await open(admin.session);
        const unknown = await call(client, 'admin_webhook_deliveries_get', { provider: 'slack', deliveryId: 'idl_0000000000000000' });
        expect(unknown.structuredContent).to.include({ outcome: 'unavailable', retentionDays: 7 });
        const other = await call(client, 'admin_webhook_deliveries_get', { provider: 'github', deliveryId: 'x1' });
        expect(other.structuredContent.outcome).to.equal('unsupported');
        const stripe = await call(client, 'admin_webhook_deliveries_get', { provider: 'stripe', deliveryId: 'evt_1' });
        expect(stripe.structuredContent.outcome).to.equal('unavailable');
        const records = await knex('admin_access_audit').orderBy('seq', 'desc').limit(3) as Array<Record<string, string>>;
        expect(records.map((r) => r.outcome)).to.equal(['unavailable', 'unsupported', 'unavailable']);
    });

    it('answers the other tools for an admin', async () => {
        const client = await open(admin.session);
        const app = await instance.api.server.inject({ method: 'POST', url: '/v1/apps', headers: { authorization: member.session }, payload: { name: `adm-${Date.now()}`, projectId: member.projectId } });
        expect(app.statusCode, app.payload).to.equal(201);
        const appId = (app.result as { id: string }).id;

        const resource = await call(client, 'admin_resource_get', { resourceType: 'app', resourceId: appId });
        expect(resource.structuredContent.resource).to.include({ id: appId, projectId: member.projectId });
        const usage = await call(client, 'admin_usage_get', { projectId: member.projectId });
        expect(usage.structuredContent.usage.period).to.exist();
        expect(usage.structuredContent.usage.units.instanceHours).to.include('instance-hours');
        const messages = await call(client, 'admin_communications_list', { userId: member.id });
        expect(messages.structuredContent.messages).to.be.an.array();
        const triage = await call(client, 'admin_issue_triage', { userId: member.id });
        expect(triage.structuredContent.failedPayments).to.equal({ outcome: 'ok', items: [] });
        expect(triage.structuredContent.target.projectIds).to.include(member.projectId);
        const incidents = await call(client, 'admin_platform_incidents', { hours: 2 });
        expect(incidents.structuredContent.period.hours).to.equal(2);
        const timeline = await call(client, 'admin_activity_timeline', { userId: member.id });
        expect(timeline.structuredContent.entries.map((e: { what: string }) => e.what)).to.include('user.registered');
    });

    it('answers billing and credit from the billing tables, money labelled, a missing ledger link inconclusive', async () => {
        const client = await open(admin.session);
        const now = new Date().toISOString();
        const invoiceId = newId('inv');
        // An invoice that drew 2.00 USD of credit, with the ledger entry that drew it, and a grant with no campaign behind it.
        await knex('invoices').insert({
            id: invoiceId, project_id: member.projectId, account_id: member.id, period_start: '2026-01-01', period_end: '2026-01-31', currency: 'USD', lines: '[]',
            subtotal: 1234, credit_applied: 200, total: 1034, status: 'payment_failed', failure_reason: 'Your card was declined.', payment_provider: 'stripe', test: false, created_at: now, updated_at: now
        });
        const drawn = newId('crd');
        const granted = newId('crd');
        await knex('credit_entries').insert([
            { id: granted, user_id: member.id, amount: 500, currency: 'USD', reason: 'campaign', reference: 'cmp_0000000000000000', created_at: '2025-12-01T00:00:00.000Z' },
            { id: drawn, user_id: member.id, amount: -200, currency: 'USD', reason: 'invoice', reference: invoiceId, created_at: now }
        ]);

        const before = await auditCount(knex);
        const billing = await call(client, 'admin_billing_get', { invoiceId });
        expect(billing.isError, text(billing)).to.not.be.true();
        const [invoice] = billing.structuredContent.invoices;
        expect(invoice).to.include({ id: invoiceId, status: 'payment_failed' });
        expect(invoice.total).to.equal({ minor: 1034, major: '10.34', currency: 'USD' });
        expect(invoice.period).to.include({ start: '2026-01-01', end: '2026-01-31' });
        expect(invoice.currency).to.include({ currency: 'USD', exponent: 2 });
        expect(invoice.payment).to.include({ status: 'failed', provider: 'stripe', failureReason: 'Your card was declined.' });
        expect(invoice.credit.entries.map((entry: { id: string }) => entry.id)).to.equal([drawn]);
        expect(invoice.priceLists.outcome).to.equal('inconclusive');                  // no metered hours behind a hand-made invoice
        expect(billing.structuredContent.outcome).to.equal('inconclusive');
        expect(billing.structuredContent.units).to.include(['minor', 'major']);

        const credit = await call(client, 'admin_credit_get', { userId: member.id });
        expect(credit.structuredContent.outcome).to.equal('inconclusive');
        expect(credit.structuredContent.balances.map((b: { balance: object }) => b.balance)).to.equal([{ minor: 300, major: '3.00', currency: 'USD' }]);
        expect(credit.structuredContent.entries.map((e: { id: string; link: { outcome: string } }) => [e.id, e.link.outcome])).to.equal([[drawn, 'ok'], [granted, 'inconclusive']]);
        expect(credit.structuredContent.priceList.version).to.be.a.number();
        const one = await call(client, 'admin_credit_get', { creditId: drawn });
        expect(one.structuredContent.outcome).to.equal('ok');
        const records = await knex('admin_access_audit').orderBy('seq', 'desc').limit(3) as Array<Record<string, string>>;
        expect(records.map((r) => [r.tool, r.outcome])).to.equal([['admin_credit_get', 'ok'], ['admin_credit_get', 'inconclusive'], ['admin_billing_get', 'inconclusive']]);
        expect(await auditCount(knex)).to.equal(before + 3);

        const both = await call(client, 'admin_billing_get', { invoiceId, userId: member.id });
        expect(both.isError).to.be.true();
        expect(text(both)).to.include('invoiceId');
        const missing = await call(client, 'admin_billing_get', { invoiceId: 'inv_0000000000000000' });
        expect(text(missing)).to.include('404');
        expect((await call(client, 'admin_credit_get', {})).isError).to.be.true();
    });

    it('offers nothing on /mcp/docs and nothing when MCP_ADMIN_TOOLS_ENABLED is off', async () => {
        const docs = await connect(`${instance.url}/mcp/docs`);
        clients.push(docs);
        expect((await toolNames(docs)).filter((name) => name.startsWith('admin_'))).to.equal([]);

        const off = await mcpInstance({ mcpAdminToolsEnabled: false });
        try {
            const user = await register(off.api.server, 'admin-off');
            await off.api.server.app.knex('users').where('id', user.id).update({ admin_since: new Date().toISOString() });
            const client = await connect(`${off.url}/mcp`, { authorization: user.session });
            try {
                expect((await toolNames(client)).filter((name) => name.startsWith('admin_'))).to.equal([]);
            }
            finally {
                await client.close();
            }

            const res = await off.api.server.inject({ method: 'GET', url: `/v1/admin/accounts/${user.id}`, headers: { authorization: user.session } });
            expect(res.statusCode).to.equal(404);
            expect(await auditCount(off.api.server.app.knex)).to.equal(0);
        }
        finally {
            await off.stop();
        }
    });
});

describe('admin tools with the API reached over HTTP', () => {

    it('answers an admin\'s session and audits the call, as in-process', async () => {
        const instance = await mcpInstance({}, 'http');
        try {
            const knex = instance.api.server.app.knex;
            const admin = await register(instance.api.server, 'http-admin');
            await knex('users').where('id', admin.id).update({ admin_since: new Date().toISOString() });
            const client = await connect(`${instance.url}/mcp`, { authorization: admin.session });
            try {
                const result = await call(client, 'admin_activity_timeline', { userId: admin.id, limit: 5 });
                expect(result.isError, text(result)).to.not.be.true();
                expect(result.structuredContent.entries.map((e: { what: string }) => e.what)).to.include('user.registered');
                expect(await auditCount(knex)).to.equal(1);
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
