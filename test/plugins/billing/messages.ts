import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';
import type { Knex } from 'knex';

import { newId } from '../../../lib/ids';
import { caller, type TestUser, register } from '../../helpers/api';
import { eventually } from '../../helpers/apps';
import { manualClock } from '../../helpers/clock';
import { fakeProcessors, STRIPE_KEY, STRIPE_WEBHOOK_SECRET, stripeSignature, type FakeProcessors } from '../../helpers/fake-payments';
import { testServer, type TestServer } from '../../helpers/server';
import { smtpSink, type SmtpSink } from '../../helpers/smtp-sink';

// Billing's messages through the notifications outbox against a real SMTP server on 127.0.0.1: an issued invoice is
// exactly one email with no secret in it, a refusal is retried, a failed payment and credit running low are told once
// each, and a user who switched billing messages off gets none (recorded suppressed).
const { describe, it, before, after } = exports.lab = Lab.script();
const { expect } = Code;

interface MessageRow {
    id: string;
    type: string;
    status: string;
    subject: string;
}

describe('billing messages', () => {

    // September 2026, billed on October 2nd: a standard instance (USD 25 a month) for 24 hours of 30 days is 83 cents.
    const clock = manualClock('2026-10-02T00:00:00.000Z');
    let sink: SmtpSink;
    let fakes: FakeProcessors;
    let instance: TestServer;
    let knex: Knex;
    const users: Record<'plain' | 'refused' | 'credited' | 'quiet', TestUser> = {} as never;
    const invoices: Record<string, string> = {};
    const call = caller(() => instance.server);

    const messagesOf = (user: TestUser): Promise<MessageRow[]> => knex('notifications').where({ user_id: user.id }).orderBy('created_at');
    const attemptsOf = (id: string): Promise<Array<{ outcome: string; response_code: number | null }>> => knex('notification_attempts').where({ notification_id: id }).orderBy('attempted_at');
    const mailsTo = (user: TestUser) => sink.received.filter((mail) => mail.envelopeTo.includes(user.email));
    const settled = async (user: TestUser, type: string): Promise<MessageRow> => {
        const rows = await eventually(async () => (await messagesOf(user)).filter((row) => row.type === type),
            (found) => found.length > 0 && found.every((row) => row.status !== 'queued'), `${type} to be delivered`, 15_000);
        expect(rows).to.have.length(1);
        return rows[0];
    };

    const secrets = () => [STRIPE_KEY, STRIPE_WEBHOOK_SECRET, sink.password, ...Object.values(users).flatMap((user) => [user.password, user.session.replace(/^Bearer /, '')])];
    const expectNoSecret = (raw: string) => {
        for (const text of [raw, raw.replace(/=\r?\n/g, '')]) {
            for (const secret of secrets()) {
                expect(text.includes(secret), 'a secret in an email').to.be.false();
            }

            expect(text).to.not.include('pm_card');
            expect(text).to.not.include('cus_');
        }
    };

    before(async () => {
        sink = await smtpSink();
        fakes = await fakeProcessors();
        instance = await testServer({
            notifications: { smtpUrl: sink.url, from: 'Hostless <no-reply@hostless.test>', retentionDays: 90 },
            outbound: { allowlist: ['127.0.0.1'] },
            payments: { stripe: { apiUrl: fakes.stripe.url, secretKey: STRIPE_KEY, webhookSecret: STRIPE_WEBHOOK_SECRET }, paystack: null }
        }, { clock });
        knex = instance.server.app.knex;
        instance.server.plugins['hostless-jobs'].queue.start();
        const { billing } = instance.server.plugins['hostless-billing'];
        for (const name of ['plain', 'refused', 'credited', 'quiet'] as const) {
            users[name] = await register(instance.server, `bill-${name}`);
            const event = { resource_type: 'app', resource_id: newId('app'), project_id: users[name].projectId, plan: 'standard', storage_gib: 0 };
            await knex('allocation_events').insert([
                { ...event, reason: 'started', running: true, instances: 1, at: '2026-09-10T00:00:00.000Z' },
                { ...event, reason: 'deleted', running: false, instances: 0, at: '2026-09-11T00:00:00.000Z' }
            ]);
        }

        await billing.credit.createCampaign({ code: 'HALF', amount: 50, currency: 'USD', startsAt: '2026-09-01T00:00:00.000Z', endsAt: '2026-12-01T00:00:00.000Z' });
        await billing.credit.redeem(users.credited.id, 'HALF');
        expect((await call('PATCH', '/v1/users/me/notification-preferences', users.quiet.session, { billing: false })).statusCode).to.equal(200);
        sink.refuseNext(users.refused.email, 'rcpt', 451, `Mailbox busy for ${sink.password}, try again later`);

        for (const invoice of await billing.invoices.close(new Date('2026-09-15T00:00:00.000Z'))) {
            invoices[invoice.accountId] = invoice.id;
        }
    });

    after(async () => {
        await instance?.stop();
        await fakes?.stop();
        await sink?.stop();
    });

    it('sends exactly one email for an issued invoice, with its amounts and period and no secret', async () => {
        const user = users.plain;
        const message = await settled(user, 'billing.invoice_issued');
        expect(message.status).to.equal('sent');
        const mails = mailsTo(user);
        expect(mails).to.have.length(1);
        const [mail] = mails;
        const project = (await knex('projects').where({ id: user.projectId }).first()).name as string;
        expect(mail.parsed.subject).to.equal(`Invoice ${invoices[user.id]} for ${project}: 0.83 USD`);
        expect(mail.parsed.text).to.include([`for 2026-09-01 to 2026-09-30 (UTC)`, 'Usage: 0.83 USD', 'Credit applied: 0.00 USD', 'Total: 0.83 USD', 'It is due', 'billing messages are on']);
        expectNoSecret(mail.raw);
        expect((await attemptsOf(message.id)).map((attempt) => attempt.outcome)).to.equal(['sent']);
        expect((await messagesOf(user)).filter((row) => row.type.startsWith('billing.'))).to.have.length(1);     // no credit: nothing runs low
        await new Promise((resolve) => setTimeout(resolve, 600));       // a second poll of the queue sends nothing more
        expect(mailsTo(user)).to.have.length(1);
    });

    it('retries an invoice email the server refused once, and delivers it once', async () => {
        const message = await settled(users.refused, 'billing.invoice_issued');
        expect(message.status).to.equal('sent');
        expect((await attemptsOf(message.id)).map((attempt) => [attempt.outcome, attempt.response_code])).to.equal([['failed', 451], ['sent', 250]]);
        expect(mailsTo(users.refused)).to.have.length(1);
        expectNoSecret(mailsTo(users.refused)[0].raw);
    });

    it('tells an account its credit runs low when an invoice drew it down below that invoice\'s usage', async () => {
        const user = users.credited;
        const issued = await settled(user, 'billing.invoice_issued');
        const low = await settled(user, 'billing.credit_low');
        expect([issued.status, low.status]).to.equal(['sent', 'sent']);
        const mail = mailsTo(user).find((entry) => entry.parsed.subject === 'Your credit is running low: 0.00 USD left')!;
        expect(mail).to.exist();
        expect(mail.parsed.text).to.include([`The invoice ${invoices[user.id]}`, 'drew 0.50 USD', 'usage of 0.83 USD']);
        expect(mailsTo(user).find((entry) => entry.parsed.subject!.startsWith('Invoice '))!.parsed.text).to.include(['Credit applied: 0.50 USD', 'Total: 0.33 USD']);
        expect(mailsTo(user)).to.have.length(2);
    });

    it('sends nothing to an account that switched billing messages off, and records why', async () => {
        const message = await settled(users.quiet, 'billing.invoice_issued');
        expect(message.status).to.equal('suppressed');
        expect(mailsTo(users.quiet)).to.equal([]);
    });

    it('tells the account once when a payment fails, in the processor\'s words and without the card', async () => {
        const user = users.plain;
        await knex('checkout_sessions').insert({ id: 'chk_declineddecline', user_id: user.id, provider: 'stripe', reference: 'cs_declined', status: 'open', created_at: clock.now().toISOString() });
        const body = JSON.stringify({ id: 'evt_checkout_declined', type: 'checkout.session.completed', data: { object: { id: 'cs_declined', customer: 'cus_declined', setup_intent: 'seti_declined' } } });
        const saved = await instance.server.inject({ method: 'POST', url: '/v1/webhooks/stripe', payload: body, headers: { 'content-type': 'application/json', 'stripe-signature': stripeSignature(body, STRIPE_WEBHOOK_SECRET, clock.now().getTime()) } });
        expect(saved.statusCode, saved.payload).to.equal(200);

        const paid = await call('POST', `/v1/billing/pay/${invoices[user.id]}`, user.session);
        expect(paid.result).to.include({ status: 'payment_failed', failureReason: 'Your card was declined.' });
        const message = await settled(user, 'billing.payment_failed');
        expect(message.status).to.equal('sent');
        const project = (await knex('projects').where({ id: user.projectId }).first()).name as string;
        const mail = mailsTo(user).find((entry) => entry.parsed.subject === `Payment of invoice ${invoices[user.id]} for ${project} failed`)!;
        expect(mail).to.exist();
        expect(mail.parsed.text).to.include(['A payment of 0.83 USD', 'through Stripe', 'failed: Your card was declined.', 'The invoice is still due']);
        expectNoSecret(mail.raw);

        // Stripe's own webhook of the same failure changes nothing more, and tells nothing more.
        const failed = JSON.stringify({ id: 'evt_pi_failed', type: 'payment_intent.payment_failed', data: { object: { id: 'pi_x', metadata: { invoice_id: invoices[user.id] }, last_payment_error: { message: 'Your card was declined.' } } } });
        const hook = await instance.server.inject({ method: 'POST', url: '/v1/webhooks/stripe', payload: failed, headers: { 'content-type': 'application/json', 'stripe-signature': stripeSignature(failed, STRIPE_WEBHOOK_SECRET, clock.now().getTime()) } });
        expect(hook.statusCode, hook.payload).to.equal(200);
        expect((await messagesOf(user)).filter((row) => row.type === 'billing.payment_failed')).to.have.length(1);
        expect(mailsTo(user)).to.have.length(2);
    });
});
