import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { caller, login } from '../../helpers/api';
import { pageText, signedUp } from '../../helpers/dashboard';
import { seedInvoice } from '../../helpers/seeders';
import { testServer, type TestServer } from '../../helpers/server';

// The dashboard's billing page: this cycle's usage, invoices with a printable receipt for the paid ones, and credit.
const { describe, it, before, after } = exports.lab = Lab.script();
const { expect } = Code;

describe('dashboard billing', () => {

    let instance: TestServer;

    before(async () => {
        instance = await testServer();
    });

    after(async () => {
        await instance?.stop();
    });

    it('shows usage, invoices with their receipts, and credit', async () => {
        const { visitor, email, password } = await signedUp(instance.server, 'payer');
        const { session } = await login(instance.server, { email, password });
        const call = caller(() => instance.server);
        const me = (await call('GET', '/v1/users/me', session)).result;
        const projectId = (await call('GET', '/v1/projects', session)).result[0].id as string;

        const empty = await visitor.get('/dashboard/billing');
        expect(empty.statusCode, empty.payload).to.equal(200);
        expect(pageText(empty.payload)).to.contain('Nothing has been used this cycle yet.');
        expect(empty.payload).to.contain('<a href="/dashboard/billing" aria-current="page">Billing</a>');

        const invoiceId = await seedInvoice(instance.server, projectId, 1);
        await instance.server.app.knex('invoices').where({ id: invoiceId }).update({ status: 'paid', paid_at: new Date().toISOString(), payment_provider: 'stripe' });
        await instance.server.plugins['hostless-billing'].billing.credit.createCampaign({
            code: 'DASH', amount: 1234, currency: 'USD', startsAt: new Date(Date.now() - 60_000).toISOString(), endsAt: new Date(Date.now() + 60_000).toISOString()
        });
        expect((await call('POST', '/v1/campaigns/redeem', session, { code: 'DASH' })).statusCode).to.equal(201);

        const full = await visitor.get('/dashboard/billing');
        const text = pageText(full.payload);
        expect(text).to.contain('12.34 USD');
        expect(full.payload).to.contain(`<a href="/dashboard/billing/invoices/${invoiceId}/receipt">Receipt</a>`);
        const receipt = await visitor.get(`/dashboard/billing/invoices/${invoiceId}/receipt`);
        expect(receipt.statusCode).to.equal(200);
        const invoice = (await call('GET', `/v1/invoices/${invoiceId}`, session)).result;
        expect(pageText(receipt.payload)).to.contain(`Total paid ${(invoice.total / 100).toFixed(2)} USD`);
        expect(me.id).to.exist();
    });
});
