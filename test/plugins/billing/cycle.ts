import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { caller, login, register, type TestUser } from '../../helpers/api';
import { eventually } from '../../helpers/apps';
import { manualClock } from '../../helpers/clock';
import { digest } from '../../helpers/db';
import { fakeProcessors, STRIPE_KEY, STRIPE_WEBHOOK_SECRET, stripeSignature, type FakeProcessors } from '../../helpers/fake-payments';
import { testServer, type TestServer } from '../../helpers/server';

// The "done when": two projects metered over a controlled clock, a closed cycle, exactly one invoice each
// whose total is the breakdown of that period to the minor unit, one paid through the Stripe adapter against a fake
// processor on 127.0.0.1, a replayed and a mis-signed webhook changing nothing, a campaign redeemed once, and the
// estimate of a service file agreeing with the invoice of a cycle in which exactly that configuration ran.
const { describe, it, before, after } = exports.lab = Lab.script();
const { expect } = Code;

describe('billing over a cycle', () => {

    const clock = manualClock('2026-02-27T12:00:00.000Z');
    let instance: TestServer;
    let fakes: FakeProcessors;
    let alice: TestUser;
    let bob: TestUser;
    const call = caller(() => instance.server);
    const fresh = async (user: TestUser) => (await login(instance.server, user)).session;

    before(async () => {
        fakes = await fakeProcessors();
        instance = await testServer({
            outbound: { allowlist: ['127.0.0.1'] },
            payments: { stripe: { apiUrl: fakes.stripe.url, secretKey: STRIPE_KEY, webhookSecret: STRIPE_WEBHOOK_SECRET }, paystack: null }
        }, { clock });
        instance.server.plugins['hostless-jobs'].queue.start();
        alice = await register(instance.server, 'alice');
        bob = await register(instance.server, 'bob');
    });

    after(async () => {
        await instance?.stop();
        await fakes?.stop();
    });

    const webhook = (event: object, signature?: string) => {
        const body = JSON.stringify(event);
        return instance.server.inject<any>({
            method: 'POST', url: '/v1/webhooks/stripe', payload: body,
            headers: { 'content-type': 'application/json', 'stripe-signature': signature ?? stripeSignature(body, STRIPE_WEBHOOK_SECRET, clock.now().getTime()) }
        });
    };

    it('meters, invoices once per project, agrees with the breakdown and the estimate, and pays through Stripe', async () => {
        // Alice: the configuration of a service file, running from before the cycle to after it.
        const file = 'version: 1\napp:\n  name: shop\n  plan: standard\n  region: eu-west\n  instances: 2\n' +
            'workers:\n  - name: queue\n    command: node queue.js\n    instances: 3\n' +
            'cronJobs:\n  - name: nightly\n    schedule: "0 3 * * *"\n    command: node nightly.js\n' +
            'databases:\n  - name: shopdb\n    engine: postgres\n    plan: standard\n';
        const app = await call('POST', '/v1/apps', alice.session, { name: 'shop', plan: 'standard', instances: 2 });
        expect(app.statusCode, app.payload).to.equal(201);
        const deployment = await call('POST', '/v1/apps/shop/deployments/new', alice.session, {});
        expect(deployment.statusCode, deployment.payload).to.equal(201);
        await eventually(async () => (await call('GET', `/v1/apps/shop/deployments/${deployment.result.id}`, alice.session)).result.status, (status) => status === 'live', 'live');
        expect((await call('POST', '/v1/apps/shop/worker-processes', alice.session, { name: 'queue', command: 'node queue.js', instances: 3 })).statusCode).to.equal(201);
        expect((await call('POST', '/v1/apps/shop/cron-jobs', alice.session, { name: 'nightly', schedule: '0 3 * * *', command: 'node nightly.js' })).statusCode).to.equal(201);
        expect((await call('POST', '/v1/databases', alice.session, { name: 'shopdb', tier: 'standard' })).statusCode).to.equal(201);
        await eventually(async () => (await call('GET', '/v1/databases/shopdb/details', alice.session)).result.status, (status) => status === 'available', 'available');

        // Bob: a database created during the cycle (ten and a half days of it, then deleted).
        clock.set('2026-03-05T06:30:00.000Z');
        bob.session = await fresh(bob);
        const database = await call('POST', '/v1/databases', bob.session, { name: 'ledger', tier: 'pro' });
        expect(database.statusCode, database.payload).to.equal(201);
        await eventually(async () => (await call('GET', '/v1/databases/ledger/details', bob.session)).result.status, (status) => status === 'available', 'available');
        clock.set('2026-03-15T18:30:00.000Z');
        bob.session = await fresh(bob);
        expect((await call('DELETE', '/v1/databases/ledger', bob.session)).statusCode).to.be.within(200, 204);
        await eventually(async () => (await call('GET', '/v1/databases/ledger/details', bob.session)).statusCode, (status) => status === 404, 'deleted');

        // The cycle closes; the job runs twice, and twice at once, and makes one invoice per project.
        clock.set('2026-04-01T02:00:00.000Z');
        const { billing } = instance.server.plugins['hostless-billing'];
        await Promise.all([billing.invoices.closeCycle(), billing.invoices.closeCycle()]);
        await billing.invoices.closeCycle();
        const invoices = await instance.server.app.knex('invoices').where({ period_start: '2026-03-01' });
        expect(invoices.map((row: { project_id: string }) => row.project_id).sort()).to.equal([alice.projectId, bob.projectId].sort());

        alice.session = await fresh(alice);
        bob.session = await fresh(bob);
        for (const user of [alice, bob]) {
            const listed = await call('GET', '/v1/invoices', user.session);
            expect(listed.result).to.have.length(1);
            const invoice = listed.result[0];
            const breakdown = await call('GET', `/v1/billing/breakdown?startDate=2026-03-01&endDate=2026-03-31&projectId=${user.projectId}`, user.session);
            expect(breakdown.statusCode, breakdown.payload).to.equal(200);
            expect(invoice.total).to.equal(breakdown.result.total);
            expect(invoice.lines).to.equal(breakdown.result.projects[0].lines);
            expect(Number.isInteger(invoice.total)).to.be.true();
        }

        // Alice's whole month of exactly the service file's configuration is its estimate, to the minor unit per line.
        const estimate = await call('POST', '/v1/estimate-costs', alice.session, { content: file });
        expect(estimate.statusCode, estimate.payload).to.equal(200);
        const [aliceInvoice] = (await call('GET', '/v1/invoices', alice.session)).result;
        const charged = (name: string) => aliceInvoice.lines.filter((line: { resourceName: string }) => line.resourceName === name)
            .reduce((sum: number, line: { amount: number }) => sum + line.amount, 0);
        expect(estimate.result.lines.map((line: { name: string }) => line.name)).to.equal(['shop', 'queue', 'nightly', 'shopdb']);
        for (const line of estimate.result.lines as Array<{ name: string; monthly: number }>) {
            expect(Math.abs(charged(line.name) - Math.round(line.monthly * 100)), line.name).to.be.at.most(1);
        }

        // USD 25.00 x 2 app instances, 25.00 x 3 worker process instances, 1.00 for the cron job, 35.00 for the database.
        expect(aliceInvoice.total).to.equal(5000 + 7500 + 100 + 3500);

        // Bob's database: 10 days 12 hours of pro (USD 120 a month) in a 31-day month: 120 x 252/744 = 40.645... -> 40.65;
        // its 1 GiB of storage is metered too, at the default price of 0 (included in the tier).
        const [bobInvoice] = (await call('GET', '/v1/invoices', bob.session)).result;
        expect(bobInvoice.lines.map((line: { metric: string; quantity: number; amount: number }) => [line.metric, line.quantity, line.amount]))
            .to.equal([['instance-hours', 252, 4065], ['storage-gib-hours', 252, 0]]);

        // Alice saves a card through Stripe Checkout; the completed session arrives signed.
        const checkout = await call('POST', '/v1/billing/stripe/checkout', alice.session, {});
        expect(checkout.statusCode, checkout.payload).to.equal(201);
        const session = fakes.stripe.requests.find((request) => request.path === '/v1/checkout/sessions')!;
        expect(session.headers.authorization).to.equal(`Bearer ${STRIPE_KEY}`);
        const sessionId = (await instance.server.app.knex('checkout_sessions').where({ id: checkout.result.id }).first()).reference;
        const completed = { id: 'evt_checkout_1', type: 'checkout.session.completed', data: { object: { id: sessionId, customer: 'cus_alice', setup_intent: 'seti_alice' } } };
        const delivered = await webhook(completed);
        expect(delivered.statusCode, delivered.payload).to.equal(200);
        expect(delivered.result.outcome).to.equal('processed');
        const config = await call('GET', '/v1/billing/payment-config', alice.session);
        expect(config.result.account.paymentMethod).to.equal('visa ending 4242');

        // A replayed event and a mis-signed one change nothing but the record of their arrival (once the messages
        // the invoices sent are delivered: their attempts are writes of their own).
        await eventually(() => instance.server.app.knex('notifications').where({ status: 'queued' }).count({ n: '*' }).first(), (row) => Number(row?.n) === 0, 'the invoices\' messages to settle');
        const before = await digest(instance.server.app.knex);
        expect((await webhook(completed)).result.outcome).to.equal('replayed');
        const forged = JSON.stringify({ ...completed, id: 'evt_forged' });
        const misSigned = await webhook({ ...completed, id: 'evt_forged' }, stripeSignature(forged, 'whsec_someoneElse0000', clock.now().getTime()));
        expect(misSigned.statusCode).to.equal(401);
        const stale = await webhook({ ...completed, id: 'evt_stale' }, stripeSignature(JSON.stringify({ ...completed, id: 'evt_stale' }), STRIPE_WEBHOOK_SECRET, clock.now().getTime() - 600_000));
        expect(stale.statusCode).to.equal(401);
        expect(await digest(instance.server.app.knex)).to.equal(before);
        const records = await instance.server.app.knex('payment_webhooks').orderBy('seq');
        expect(records.map((row: { outcome: string }) => row.outcome)).to.equal(['processed', 'replayed', 'bad_signature', 'stale']);
        expect(JSON.stringify(records)).to.not.include('cus_alice');

        // Paying: through the adapter, for the invoice's amount; once.
        const paid = await call('POST', `/v1/billing/pay/${aliceInvoice.id}`, alice.session);
        expect(paid.statusCode, paid.payload).to.equal(200);
        expect(paid.result.status, paid.payload).to.equal('paid');
        const intent = fakes.stripe.requests.find((request) => request.path === '/v1/payment_intents')!;
        expect(intent.payload).to.include({ amount: '16100', currency: 'usd', customer: 'cus_alice', payment_method: 'pm_card_visa', off_session: 'true', confirm: 'true' });
        expect(String(intent.headers['idempotency-key'])).to.startWith(`invoice-${aliceInvoice.id}-`);
        expect((await call('POST', `/v1/billing/pay/${aliceInvoice.id}`, alice.session)).statusCode).to.equal(409);
        const receipt = await call('GET', `/v1/invoices/${aliceInvoice.id}/receipt`, alice.session, undefined, { accept: 'text/html' });
        expect(receipt.statusCode).to.equal(200);
        expect(receipt.payload).to.include('161.00 USD');

        // Bob's card is declined: the invoice is payment_failed, with Stripe's reason.
        await instance.server.app.knex('checkout_sessions').insert({ id: 'chk_bobbobbobbobbobb', user_id: bob.id, provider: 'stripe', reference: 'cs_bob', status: 'open', created_at: clock.now().toISOString() });
        await webhook({ id: 'evt_checkout_2', type: 'checkout.session.completed', data: { object: { id: 'cs_bob', customer: 'cus_bob', setup_intent: 'seti_declined' } } });
        const failed = await call('POST', `/v1/billing/pay/${bobInvoice.id}`, bob.session);
        expect(failed.result).to.include({ status: 'payment_failed', failureReason: 'Your card was declined.' });
        expect((await call('GET', `/v1/invoices/${bobInvoice.id}`, alice.session)).statusCode).to.equal(404);
    });

    it('redeems a campaign once per account, as credit applied to the next invoice', async () => {
        const { billing } = instance.server.plugins['hostless-billing'];
        await billing.credit.createCampaign({ code: 'SPRING', amount: 1500, currency: 'USD', startsAt: '2026-04-01T00:00:00.000Z', endsAt: '2026-05-01T00:00:00.000Z' });
        alice.session = await fresh(alice);
        const first = await call('POST', '/v1/campaigns/redeem', alice.session, { code: 'spring' });
        expect(first.statusCode, first.payload).to.equal(201);
        expect((await call('POST', '/v1/campaigns/redeem', alice.session, { code: 'SPRING' })).statusCode).to.equal(409);
        const credit = await call('GET', '/v1/credit', alice.session);
        expect(credit.result.balances).to.equal([{ currency: 'USD', balance: 1500 }]);

        // April's invoice takes the credit first (USD 161.00 - 15.00), and the balance is spent, never below zero.
        clock.set('2026-05-01T01:00:00.000Z');
        await billing.invoices.closeCycle();
        alice.session = await fresh(alice);
        const april = (await call('GET', `/v1/invoices?projectId=${alice.projectId}`, alice.session)).result[0];
        expect(april).to.include({ periodStart: '2026-04-01', subtotal: 16100, creditApplied: 1500, total: 14600, status: 'open' });
        expect((await call('GET', '/v1/credit', alice.session)).result.balances).to.equal([{ currency: 'USD', balance: 0 }]);
    });

    it('refuses impossible dates, reversed ranges and ranges over 366 days, naming the parameter', async () => {
        alice.session = await fresh(alice);
        for (const [query, name] of [['startDate=2026-02-30&endDate=2026-03-01', 'startDate'], ['startDate=2026-03-01&endDate=2026-02-01', 'endDate'],
            ['startDate=2025-01-01&endDate=2026-01-03', 'endDate'], ['startDate=2026-01-01', 'endDate']] as const) {
            const res = await call('GET', `/v1/billing/breakdown?${query}`, alice.session);
            expect(res.statusCode, query).to.equal(400);
            expect(res.result.message, query).to.include(`"${name}"`);
        }
    });
});
