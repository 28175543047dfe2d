import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';
import type { Knex } from 'knex';

import { cleanArguments } from '../../lib/admin/audit';
import { incidents, triage, webhookDelivery } from '../../lib/admin/diagnostics';
import { billingOf, creditOf } from '../../lib/admin/finance';
import { communicationsOf, usageOf } from '../../lib/admin/readers';
import { newId } from '../../lib/ids';
import { register, type TestUser } from '../helpers/api';
import { manualClock } from '../helpers/clock';
import { dropRedisKeys } from '../helpers/redis';
import { testServer, type TestServer } from '../helpers/server';

// The admin readers against rows written as the platform writes them: usage integrated from allocation events, a
// Slack delivery's evidence inside and past its seven days, triage and incidents finding real failures.
const { describe, it, before, after } = exports.lab = Lab.script();
const { expect } = Code;

describe('admin sources', () => {

    let instance: TestServer;
    let knex: Knex;
    let user: TestUser;
    const queue = () => instance.server.plugins['hostless-jobs'].queue;

    before(async () => {
        instance = await testServer();
        knex = instance.server.app.knex;
        user = await register(instance.server, 'sources');
    });

    after(async () => {
        await instance?.stop();
    });

    it('integrates instance-hours and GiB-hours over the period from the allocation events', async () => {
        const project = user.projectId;
        const event = (resourceId: string, at: string, running: boolean, instances: number, storage = 0) => ({
            resource_type: 'app', resource_id: resourceId, project_id: project, reason: 'scaled', running, instances, plan: 'starter', storage_gib: storage, at
        });
        await knex('allocation_events').insert([
            event('app_usageAAAAAAAAAAAA', '2026-01-01T00:00:00.000Z', true, 1, 10),     // 1 instance from before the period
            event('app_usageAAAAAAAAAAAA', '2026-01-02T12:00:00.000Z', true, 3, 10),     // 3 from noon on day 2
            event('app_usageAAAAAAAAAAAA', '2026-01-03T00:00:00.000Z', false, 3, 10),    // stopped at day 3
            event('app_usageBBBBBBBBBBBB', '2026-01-05T00:00:00.000Z', true, 2)          // after the period: not counted
        ]);
        const usage = (await usageOf(knex, project, new Date('2026-01-02T00:00:00.000Z'), new Date('2026-01-04T00:00:00.000Z')))!;
        expect(usage.period).to.equal({ from: '2026-01-02T00:00:00.000Z', to: '2026-01-04T00:00:00.000Z' });
        const app = usage.resources.find((row) => row.resourceId === 'app_usageAAAAAAAAAAAA')!;
        expect(app.instanceHours).to.equal(12 * 1 + 12 * 3);                          // 12 h at 1, 12 h at 3, then stopped
        expect(app.storageGiBHours).to.equal(48 * 10);
        expect(usage.resources.some((row) => row.resourceId === 'app_usageBBBBBBBBBBBB')).to.be.false();
        expect(await usageOf(knex, 'prj_0000000000000000', new Date(0), new Date())).to.be.null();
    });

    it('answers a Slack delivery within seven days with its attempts, and unavailable once expired', async () => {
        const integration = newId('int');
        const now = Date.now();
        await knex('integrations').insert({
            id: integration, project_id: user.projectId, type: 'slack', webhook_url: 'sealed', webhook_hint: 'https://hooks.slack.com/services/…', channel: '#ops',
            events: '[]', created_by: user.id, created_at: new Date(now).toISOString(), updated_at: new Date(now).toISOString()
        });
        const delivery = (id: string, ageDays: number, status: string) => ({
            id, integration_id: integration, project_id: user.projectId, event_id: newId('evt'), event_type: 'deployment.failed', message: '{}', status, attempts: 2,
            created_at: new Date(now - ageDays * 86_400_000).toISOString(), updated_at: new Date(now).toISOString()
        });
        const [recent, old] = [newId('idl'), newId('idl')];
        await knex('integration_deliveries').insert([delivery(recent, 1, 'failed'), delivery(old, 8, 'delivered')]);
        await knex('integration_attempts').insert({ id: newId('iat'), delivery_id: recent, integration_id: integration, outcome: 'failed', response_code: 500, response: 'server error', attempted_at: new Date(now).toISOString() });

        const found = await webhookDelivery(knex, 'slack', recent, now);
        expect(found.outcome).to.equal('ok');
        expect((found as { attempts: unknown[] }).attempts).to.equal([{ outcome: 'failed', responseCode: 500, response: 'server error', attemptedAt: new Date(now).toISOString() }]);
        expect((await webhookDelivery(knex, 'slack', old, now)).outcome).to.equal('unavailable');

        const triaged = (await triage(knex, queue(), { projectId: user.projectId }))!;
        expect(triaged.failedSlackDeliveries.map((d) => d.id)).to.equal([recent]);
        expect(triaged.failedMessages.outcome).to.equal('unsupported');
    });

    it('finds dead jobs and failed deployments in triage and incidents', async () => {
        const now = new Date().toISOString();
        const job = await queue().enqueue('admin.doomed', { projectId: user.projectId });
        await knex('jobs').where('id', job.id).update({ status: 'dead', last_error: 'boom with svr_abcdef0123456789', updated_at: now, finished_at: now });
        const deployment = newId('dep');
        await knex('deployments').insert({
            id: deployment, resource_type: 'app', resource_id: 'app_triageAAAAAAAAAA', project_id: user.projectId, status: 'failed', driver: 'records', trigger: 'manual',
            config: '{}', error: 'build failed', created_at: now, updated_at: now
        });

        const triaged = (await triage(knex, queue(), { userId: user.id }))!;
        expect(triaged.deadJobs.map((j) => j.id)).to.include(job.id);
        expect(triaged.deadJobs.find((j) => j.id === job.id)!.lastError).to.equal('boom with [redacted]');
        expect(triaged.failedDeployments.map((d) => d.id)).to.equal([deployment]);
        expect(await triage(knex, queue(), { userId: 'usr_0000000000000000' })).to.be.null();

        const seen = await incidents(knex, queue(), 1);
        expect(seen.deadJobs.count).to.be.above(0);
        expect(seen.failedDeployments.latest.map((d) => (d as { id: string }).id)).to.include(deployment);
    });

    it('pages an account\'s messages newest first with their attempts', async () => {
        const at = (minute: number) => `2026-01-01T00:0${minute}:00.000Z`;
        const ids = [newId('ntf'), newId('ntf'), newId('ntf')];
        await knex('notifications').insert(ids.map((id, i) => ({
            id, user_id: user.id, type: 'project.invited', category: 'projects', recipient: user.email, subject: `Message ${i}`, body: 'secret body', status: 'sent',
            created_at: at(i), updated_at: at(i)
        })));
        const first = await communicationsOf(knex, user.id, 2, null);
        expect(first.messages.map((m) => m.subject)).to.equal(['Message 2', 'Message 1']);
        expect(JSON.stringify(first)).to.not.include('secret body');
        const second = await communicationsOf(knex, user.id, 2, first.next);
        expect(second.messages.map((m) => m.subject)).to.equal(['Message 0']);
        expect(second.next).to.be.null();
    });

    it('records arguments as short redacted scalars', () => {
        expect(cleanArguments({ userId: 'usr_1', token: 'svr_abcdef0123456789', limit: 5, nested: { a: 1 }, gone: undefined })).to.equal({
            userId: 'usr_1', token: '[redacted]', limit: 5, nested: '[not recorded]'
        });
    });
});

describe('admin billing sources', () => {

    // September 2026 billed on October 2nd: a standard instance (USD 25 a month) for 24 hours of a 30-day month is
    // 25 x 24/720 = 0.8333 -> 83 cents; a campaign's 50 cents of credit pays part of it.
    const clock = manualClock('2026-10-02T00:00:00.000Z');
    let instance: TestServer;
    const queue = () => instance.server.plugins['hostless-jobs'].queue;
    let knex: Knex;
    let user: TestUser;
    let invoiceId: string;

    before(async () => {
        instance = await testServer({}, { clock });
        knex = instance.server.app.knex;
        user = await register(instance.server, 'finance');
        const { billing } = instance.server.plugins['hostless-billing'];
        const event = { resource_type: 'app', resource_id: newId('app'), project_id: user.projectId, plan: 'standard', storage_gib: 0 };
        await knex('allocation_events').insert([
            { ...event, reason: 'started', running: true, instances: 1, at: '2026-09-10T00:00:00.000Z' },
            { ...event, reason: 'deleted', running: false, instances: 0, at: '2026-09-11T00:00:00.000Z' }
        ]);
        await billing.credit.createCampaign({ code: 'WELCOME50', amount: 50, currency: 'USD', startsAt: '2026-09-01T00:00:00.000Z', endsAt: '2026-12-01T00:00:00.000Z' });
        await billing.credit.redeem(user.id, 'welcome50');
        clock.advance(1000);                                    // the invoice draws its credit after the grant: entries newest first
        const [invoice] = await billing.invoices.close(new Date('2026-09-15T00:00:00.000Z'));
        invoiceId = invoice.id;
    });

    after(async () => {
        await instance?.stop();
    });

    it('answers an invoice with its amounts in minor and major units, its currency, period, price list, payment and credit', async () => {
        const answer = (await billingOf(knex, { invoiceId }, 50))!;
        expect(answer.outcome).to.equal('ok');
        expect(answer.units.minor).to.include('smallest unit');
        expect(answer.units.major).to.include('decimal');
        const [invoice] = answer.invoices;
        expect(invoice).to.include({ outcome: 'ok', id: invoiceId, projectId: user.projectId, accountId: user.id, status: 'open' });
        expect(invoice.period).to.equal({ start: '2026-09-01', end: '2026-09-30', basis: 'calendar month, UTC, both days inclusive' });
        expect(invoice.currency).to.include({ currency: 'USD', exponent: 2 });
        expect(invoice.subtotal).to.equal({ minor: 83, major: '0.83', currency: 'USD' });
        expect(invoice.creditApplied).to.equal({ minor: 50, major: '0.50', currency: 'USD' });
        expect(invoice.total).to.equal({ minor: 33, major: '0.33', currency: 'USD' });
        expect(invoice.priceLists).to.equal({ outcome: 'ok', versions: [{ version: 1, currency: 'USD', effectiveFrom: '2026-10-02T00:00:00.000Z' }] });
        expect(invoice.payment).to.include({ outcome: 'ok', status: 'due', provider: null });
        expect(invoice.credit.outcome).to.equal('ok');
        expect((invoice.credit as { entries: Array<{ amount: object }> }).entries.map((entry) => entry.amount)).to.equal([{ minor: -50, major: '-0.50', currency: 'USD' }]);

        const byAccount = (await billingOf(knex, { userId: user.id }, 50))!;
        expect(byAccount.invoices.map((row) => row.id)).to.equal([invoiceId]);
        expect(byAccount.period).to.include({ start: '2026-09-01', end: '2026-09-30' });
        expect((await billingOf(knex, { projectId: user.projectId }, 50))!.invoices.map((row) => row.id)).to.equal([invoiceId]);
        expect(await billingOf(knex, { invoiceId: 'inv_0000000000000000' }, 50)).to.be.null();
        expect(await billingOf(knex, { userId: 'usr_0000000000000000' }, 50)).to.be.null();
    });

    it('answers an account\'s credit with each ledger entry linked to its campaign or invoice', async () => {
        const answer = (await creditOf(knex, { userId: user.id }, 50, clock.now()))!;
        expect(answer.outcome).to.equal('ok');
        expect(answer.balances).to.equal([{ currency: 'USD', exponent: 2, basis: 'the sum of every ledger entry in this currency; never converted between currencies', balance: { minor: 0, major: '0.00', currency: 'USD' }, entries: 2, asOf: '2026-10-02T00:00:01.000Z' }]);
        expect(answer.priceList).to.include({ outcome: 'ok', version: 1, currency: 'USD' });
        expect(answer.entries.map((entry) => [entry.reason, entry.amount.minor, entry.link.outcome])).to.equal([['invoice', -50, 'ok'], ['campaign', 50, 'ok']]);
        expect((answer.entries[0].link as { invoice: { id: string } }).invoice.id).to.equal(invoiceId);
        expect((answer.entries[1].link as { campaign: { code: string } }).campaign.code).to.equal('WELCOME50');
        expect(answer.period).to.include({ from: answer.entries[1].createdAt, to: answer.entries[0].createdAt });
        const one = (await creditOf(knex, { creditId: answer.entries[0].id as string }, 50))!;
        expect(one.entries.map((entry) => entry.id)).to.equal([answer.entries[0].id]);
        expect(await creditOf(knex, { creditId: 'crd_0000000000000000' }, 50)).to.be.null();
    });

    it('answers inconclusive where a ledger link is missing, saying which', async () => {
        const other = await register(instance.server, 'finance-gap');
        const orphan = newId('crd');
        await knex('credit_entries').insert({ id: orphan, user_id: other.id, amount: -200, currency: 'USD', reason: 'invoice', reference: 'inv_0000000000000000', created_at: clock.now().toISOString() });
        const credit = (await creditOf(knex, { creditId: orphan }, 50))!;
        expect(credit.outcome).to.equal('inconclusive');
        expect(credit.entries[0].link).to.equal({ outcome: 'inconclusive', reason: 'the entry names invoice inv_0000000000000000, which does not exist' });

        // An invoice that says it used credit the ledger never drew for it, and that says Stripe was paid with no reference.
        const unlinked = newId('inv');
        const now = clock.now().toISOString();
        await knex('invoices').insert({
            id: unlinked, project_id: other.projectId, account_id: other.id, period_start: '2026-08-01', period_end: '2026-08-31', currency: 'USD', lines: '[]',
            subtotal: 500, credit_applied: 300, total: 200, status: 'paid', payment_provider: 'stripe', paid_at: now, test: false, created_at: now, updated_at: now
        });
        const billing = (await billingOf(knex, { invoiceId: unlinked }, 50))!;
        expect(billing.outcome).to.equal('inconclusive');
        const [invoice] = billing.invoices;
        expect(invoice.credit).to.equal({ outcome: 'inconclusive', reason: 'the invoice applied 3.00 USD of credit and the ledger holds 0.00 drawn for it' });
        expect(invoice.payment).to.include({ outcome: 'inconclusive', reason: 'paid through stripe with no processor reference recorded' });
        expect(invoice.priceLists).to.equal({ outcome: 'inconclusive', reason: 'no metered hour of the period remains to say which price list priced it' });
    });

    it('answers a Stripe or Paystack webhook by its event id within seven days, and finds the failed payment in triage and incidents', async () => {
        const { payments } = instance.server.plugins['hostless-billing'].billing;
        const failed = { id: 'evt_failed_0001', type: 'payment_intent.payment_failed', object: { id: 'pi_1', metadata: { invoice_id: invoiceId }, last_payment_error: { message: 'Your card was declined.' } } };
        expect(await payments.apply('stripe', failed)).to.equal('processed');
        expect(await payments.apply('stripe', failed)).to.equal('replayed');
        await payments.record('stripe', null, null, 'bad_signature');

        const evidence = await webhookDelivery(knex, 'stripe', 'evt_failed_0001', clock.now().getTime()) as Record<string, any>;
        expect(evidence).to.include({ outcome: 'ok', provider: 'stripe', direction: 'incoming', retentionDays: 7 });
        expect(evidence.delivery).to.include({ eventId: 'evt_failed_0001', type: 'payment_intent.payment_failed', arrivals: 2, appliedAt: clock.now().toISOString() });
        expect(evidence.attempts.map((a: { outcome: string }) => a.outcome)).to.equal(['processed', 'replayed']);
        expect((await webhookDelivery(knex, 'stripe', 'evt_failed_0001', clock.now().getTime() + 8 * 86_400_000)).outcome).to.equal('unavailable');
        expect((await webhookDelivery(knex, 'paystack', 'charge.success:999', clock.now().getTime())).outcome).to.equal('unavailable');
        const named = 'charge.success:4242';
        await knex('payment_webhooks').insert({ provider: 'paystack', event_id: named, type: 'charge.success', outcome: 'ignored', received_at: new Date(clock.now().getTime() - 86_400_000).toISOString() });
        const paystack = await webhookDelivery(knex, 'paystack', named, clock.now().getTime()) as Record<string, any>;
        expect(paystack).to.include({ outcome: 'ok', direction: 'incoming' });
        expect(paystack.delivery).to.include({ eventId: named, appliedAt: null });
        expect((await webhookDelivery(knex, 'stripe', named, clock.now().getTime())).outcome).to.equal('unavailable');

        const triaged = (await triage(knex, queue(), { userId: user.id }))!;
        expect(triaged.failedPayments.items.map((item) => [item.invoiceId, item.reason, item.total.major])).to.equal([[invoiceId, 'Your card was declined.', '0.33']]);
        expect((await triage(knex, queue(), { projectId: user.projectId }))!.failedPayments.items.map((item) => item.invoiceId)).to.equal([invoiceId]);
        const seen = await incidents(knex, queue(), 1, clock.now().getTime());
        expect(seen.failedPayments.count).to.equal(1);
        expect(seen.failedPayments.latest).to.equal([{ invoiceId, projectId: user.projectId, total: { minor: 33, major: '0.33', currency: 'USD' }, provider: 'stripe', reason: 'Your card was declined.', at: clock.now().toISOString() }]);
        expect(seen.refusedPaymentWebhooks.latest).to.equal([{ provider: 'stripe', outcome: 'bad_signature', at: clock.now().toISOString() }]);
    });
});

describe('admin sources with the BullMQ queue', { skip: !process.env.TEST_REDIS_URL }, () => {

    let instance: TestServer;
    const prefix = `hostless-test-admin-${process.pid}-${Date.now().toString(36)}`;

    before(async () => {
        instance = await testServer({ redisUrl: process.env.TEST_REDIS_URL!, redisPrefix: prefix });
    });

    after(async () => {
        await instance?.stop();
        await dropRedisKeys(process.env.TEST_REDIS_URL!, prefix);
    });

    it('finds dead jobs in triage and incidents through the queue, not the jobs table', async () => {
        const { queue } = instance.server.plugins['hostless-jobs'];
        expect(queue.backend).to.equal('bullmq');
        const user = await register(instance.server, 'bullmq-triage');
        queue.handle('admin.doomed', () => Promise.reject(new Error('boom with svr_abcdef0123456789')));
        const job = await queue.enqueue('admin.doomed', { projectId: user.projectId }, { maxAttempts: 1 });
        queue.start();
        for (let i = 0; i < 200 && (await queue.get(job.id))!.status !== 'dead'; ++i) {
            await new Promise((resolve) => setTimeout(resolve, 25));
        }

        await queue.stop();
        const knex = instance.server.app.knex;
        const triaged = (await triage(knex, queue, { projectId: user.projectId }))!;
        expect(triaged.deadJobs).to.equal([{ id: job.id, type: 'admin.doomed', attempts: 1, lastError: 'boom with [redacted]', at: triaged.deadJobs[0].at }]);
        const seen = await incidents(knex, queue, 1);
        expect(seen.deadJobs.count).to.equal(1);
        expect(seen.deadJobs.latest).to.equal([{ id: job.id, type: 'admin.doomed', lastError: 'boom with [redacted]', at: triaged.deadJobs[0].at }]);
        expect((await incidents(knex, queue, 1, Date.now() + 7200_000)).deadJobs.count, 'not within the last hour two hours from now').to.equal(0);
    });
});
