import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { caller, register, type TestUser } from '../../helpers/api';
import { fakeProcessors, PAYSTACK_KEY, paystackSignature, type FakeProcessors } from '../../helpers/fake-payments';
import { seedInvoice } from '../../helpers/seeders';
import { testServer, type TestServer } from '../../helpers/server';

// Paystack through its adapter against a fake on 127.0.0.1: a card authorized at checkout arrives as a signed
// charge.success event, and pays an invoice with charge_authorization. And the account's currency.
const { describe, it, before, after } = exports.lab = Lab.script();
const { expect } = Code;

describe('Paystack and currencies', () => {

    let instance: TestServer;
    let fakes: FakeProcessors;
    let user: TestUser;
    const call = caller(() => instance.server);

    before(async () => {
        fakes = await fakeProcessors();
        instance = await testServer({ outbound: { allowlist: ['127.0.0.1'] }, payments: { stripe: null, paystack: { apiUrl: fakes.paystack.url, secretKey: PAYSTACK_KEY } } });
        user = await register(instance.server, 'payer');
    });

    after(async () => {
        await instance?.stop();
        await fakes?.stop();
    });

    const webhook = (event: object, key = PAYSTACK_KEY) => {
        const body = JSON.stringify(event);
        return instance.server.inject<any>({ method: 'POST', url: '/v1/webhooks/paystack', payload: body, headers: { 'content-type': 'application/json', 'x-paystack-signature': paystackSignature(body, key) } });
    };

    it('saves a card through checkout and pays an invoice with its authorization', async () => {
        const checkout = await call('POST', '/v1/billing/paystack/checkout', user.session, {});
        expect(checkout.statusCode, checkout.payload).to.equal(201);
        expect(String(checkout.result.url)).to.startWith('https://checkout.paystack.com/');
        const initialized = fakes.paystack.requests.find((request) => request.path === '/transaction/initialize')!;
        expect(initialized.headers.authorization).to.equal(`Bearer ${PAYSTACK_KEY}`);
        expect(initialized.payload).to.include({ email: user.email, currency: 'USD', reference: checkout.result.id });

        const charged = { event: 'charge.success', data: { id: 9001, reference: checkout.result.id, customer: { email: user.email }, authorization: { authorization_code: 'AUTH_ok123', reusable: true, brand: 'visa', last4: '4081' } } };
        expect((await webhook(charged, 'sk_test_wrongKey0000')).statusCode).to.equal(401);
        expect((await webhook(charged)).result.outcome).to.equal('processed');
        expect((await webhook(charged)).result.outcome).to.equal('replayed');
        expect((await call('GET', '/v1/billing/payment-config', user.session)).result).to.equal({
            providers: ['paystack'], currency: 'USD', account: { provider: 'paystack', paymentMethod: 'visa ending 4081', currency: null }
        });
        const stored = await instance.server.app.knex('billing_accounts').where({ user_id: user.id }).first();
        expect(stored.payment_method).to.not.include('AUTH_ok123');     // sealed at rest

        const invoiceId = await seedInvoice(instance.server, user.projectId, 1);
        const paid = await call('POST', `/v1/billing/pay/${invoiceId}`, user.session);
        expect(paid.statusCode, paid.payload).to.equal(200);
        // USD 7 a month for 10 hours of last month: 700 x 10 / (its days x 24), rounded half up.
        const days = new Date(Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth(), 0)).getUTCDate();
        const total = Math.floor(700 * 10 / (days * 24) + 0.5);
        expect(paid.result).to.include({ status: 'paid', paymentProvider: 'paystack', total });
        const charge = fakes.paystack.requests.find((request) => request.path === '/transaction/charge_authorization')!;
        expect(charge.payload).to.include({ email: user.email, amount: total, currency: 'USD', authorization_code: 'AUTH_ok123' });
    });

    it('sets the account currency among those offered and describes any currency', async () => {
        expect((await call('PATCH', '/v1/billing/currency/USD', user.session)).result).to.include({ currency: 'USD' });
        const refused = await call('PATCH', '/v1/billing/currency/EUR', user.session);
        expect(refused.statusCode).to.equal(400);
        expect(refused.result.message).to.equal('"code" must be a currency invoices are issued in: USD');
        expect((await call('PATCH', '/v1/billing/currency/usd', user.session)).statusCode).to.equal(400);
        expect((await call('GET', '/v1/billing/currencies/JPY', user.session)).result).to.equal({ code: 'JPY', exponent: 0, offered: false });
        expect((await call('GET', '/v1/billing/currencies', user.session)).result).to.equal([{ code: 'USD', exponent: 2 }]);
    });
});
