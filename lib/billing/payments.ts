import * as Boom from '@hapi/boom';
import type { Knex } from 'knex';

import { decryptSecret, encryptSecret } from '../crypto';
import { isUniqueViolation } from '../db/errors';
import { newId } from '../ids';
import { OutsideServiceError } from '../outside/http-client';
import { toInvoice, type Invoice } from './invoices';
import { sendPaymentFailed, type OutboxOf } from './messages';
import type { PaystackProcessor, StripeProcessor } from './processors';

// Paying invoices through a processor, saving a card through its checkout, and the processors' webhooks. A webhook
// counts once: its event id is inserted into payment_events in the transaction of what it changes, so a replay
// conflicts and changes nothing. Every webhook that arrives is recorded (provider, event id, type, outcome; never
// its payload) and kept seven days.
export type Provider = 'stripe' | 'paystack';
export const WEBHOOK_RETENTION_DAYS = 7;

export interface PaymentsOptions {
    knex: Knex;
    sealKey: Buffer;
    clock: () => Date;
    stripe: StripeProcessor | null;
    paystack: PaystackProcessor | null;
    publicUrl: string;
    outbox?: OutboxOf;                                          // billing's messages (lib/billing/messages.ts), when notifications are mounted
}

export interface WebhookEvent {
    id: string;
    type: string;
    object: Record<string, unknown>;
}

type Row = Record<string, unknown>;

interface AccountRow {
    user_id: string;
    currency: string | null;
    provider: Provider | null;
    customer_ref: string | null;
    payment_method: string | null;
    payment_method_hint: string | null;
}

const text = (value: unknown, fallback: string): string => typeof value === 'string' || typeof value === 'number' ? String(value) : fallback;

export class Payments {
    constructor(private readonly options: PaymentsOptions) { }

    private get knex() {
        return this.options.knex;
    }

    private now(): string {
        return this.options.clock().toISOString();
    }

    configured(): Provider[] {
        return [...(this.options.stripe ? ['stripe' as const] : []), ...(this.options.paystack ? ['paystack' as const] : [])];
    }

    async settings(userId: string): Promise<{ provider: Provider | null; paymentMethod: string | null; currency: string | null }> {
        const account = await this.knex<AccountRow>('billing_accounts').where({ user_id: userId }).first();
        return { provider: account?.provider ?? null, paymentMethod: account?.payment_method_hint ?? null, currency: account?.currency ?? null };
    }

    async setCurrency(userId: string, currency: string): Promise<void> {
        await this.saveAccount(userId, { currency });
    }

    /** Saves the card a checkout completed with (sealed; the hint is what lists show). */
    async saveCard(userId: string, provider: Provider, customer: string, method: string, hint: string, trx: Knex | Knex.Transaction = this.knex): Promise<void> {
        await this.saveAccount(userId, { provider, customer_ref: customer, payment_method: encryptSecret(method, this.options.sealKey), payment_method_hint: hint.slice(0, 80) }, trx);
    }

    private processor(provider: Provider): StripeProcessor | PaystackProcessor {
        const processor = this.options[provider];
        if (!processor) {
            throw Boom.conflict(`${provider === 'stripe' ? 'Stripe' : 'Paystack'} is not configured on this deployment`);
        }

        return processor;
    }

    /** Starts saving a card: answers the processor's page the browser goes to. */
    async checkout(user: { id: string; email: string }, provider: Provider, currency: string): Promise<{ id: string; provider: Provider; url: string }> {
        const processor = this.processor(provider);
        const id = newId('chk');
        const done = `${this.options.publicUrl}/dashboard/billing?checkout=${id}`;
        const checkout = await this.outside(async () => {
            if (provider === 'stripe') {
                const stripe = processor as StripeProcessor;
                const account = await this.knex<AccountRow>('billing_accounts').where({ user_id: user.id, provider: 'stripe' }).first();
                const customer = account?.customer_ref ?? await stripe.customer(user.email, user.id);
                return stripe.checkout(customer, done, `${done}&canceled=1`, id);
            }

            return (processor as PaystackProcessor).checkout(user.email, currency, 100, done, id);
        });
        await this.knex('checkout_sessions').insert({ id, user_id: user.id, provider, reference: checkout.reference, status: 'open', created_at: this.now() });
        return { id, provider, url: checkout.url };
    }

    private async saveAccount(userId: string, change: Row, trx: Knex | Knex.Transaction = this.knex): Promise<void> {
        await trx('billing_accounts').insert({ user_id: userId, updated_at: this.now() }).onConflict('user_id').ignore();
        await trx('billing_accounts').where({ user_id: userId }).update({ ...change, updated_at: this.now() });
    }

    /** Pays an invoice with the caller's saved card: paid, or payment_failed with the processor's reason. */
    async pay(invoice: Invoice, userId: string): Promise<Invoice> {
        if (invoice.status === 'paid') {
            throw Boom.conflict('The invoice is already paid');
        }

        if (invoice.status === 'void' || invoice.test) {
            throw Boom.conflict(invoice.test ? 'A test invoice cannot be paid' : 'The invoice is void');
        }

        const account = await this.knex<AccountRow>('billing_accounts').where({ user_id: userId }).first();
        if (!account?.provider || !account.payment_method) {
            throw Boom.conflict('No card is saved: save one first through POST /v1/billing/stripe/checkout or /v1/billing/paystack/checkout');
        }

        const provider = account.provider;
        const customer = account.customer_ref ?? '';
        const sealed = account.payment_method;
        const outcome = await this.outside(() => this.processor(provider).charge({
            invoiceId: invoice.id, amount: invoice.total, currency: invoice.currency, customer,
            paymentMethod: decryptSecret(sealed, this.options.sealKey), attempt: Date.parse(this.now())
        }));
        const now = this.now();
        const reason = (outcome.reason ?? 'declined').slice(0, 300);
        await this.knex.transaction(async (trx) => {
            const changed = await trx('invoices').where({ id: invoice.id }).whereNot({ status: 'paid' }).update(outcome.paid
                ? { status: 'paid', paid_at: now, payment_provider: provider, payment_reference: outcome.reference, failure_reason: null, updated_at: now }
                : { status: 'payment_failed', payment_provider: provider, payment_reference: outcome.reference, failure_reason: reason, updated_at: now });
            const outbox = this.options.outbox?.();
            if (!outcome.paid && changed && outbox) {
                await sendPaymentFailed(outbox, trx, invoice.id, provider, reason, now);
            }
        });
        return toInvoice(await this.knex('invoices').where({ id: invoice.id }).first() as Row);
    }

    private async outside<T>(work: () => Promise<T>): Promise<T> {
        try {
            return await work();
        }
        catch (err) {
            if (err instanceof OutsideServiceError) {
                throw Boom.badGateway(`The payment processor could not be reached or refused the request (${err.code})`);
            }

            throw err;
        }
    }

    /** Records a webhook that arrived and what came of it. */
    async record(provider: Provider, eventId: string | null, type: string | null, outcome: string): Promise<void> {
        await this.knex('payment_webhooks').insert({ provider, event_id: eventId?.slice(0, 120) ?? null, type: type?.slice(0, 80) ?? null, outcome, received_at: this.now() });
    }

    async prune(): Promise<number> {
        const cutoff = new Date(this.options.clock().getTime() - WEBHOOK_RETENTION_DAYS * 86_400_000).toISOString();
        return this.knex('payment_webhooks').where('received_at', '<', cutoff).delete();
    }

    /** Applies a verified event once; answers `processed`, `replayed` or `ignored`. */
    async apply(provider: Provider, event: WebhookEvent): Promise<'processed' | 'replayed' | 'ignored'> {
        // What the event means is read before the transaction: a checkout's saved card is fetched from the processor.
        const change = await this.meaning(provider, event);
        let outcome: 'processed' | 'replayed' | 'ignored';
        try {
            outcome = await this.knex.transaction(async (trx) => {
                if (await trx('payment_events').where({ provider, event_id: event.id }).first()) {
                    return 'replayed' as const;
                }

                await trx('payment_events').insert({ provider, event_id: event.id, processed_at: this.now() });
                if (!change) {
                    return 'ignored' as const;
                }

                await change(trx);
                return 'processed' as const;
            });
        }
        catch (err) {
            if (!isUniqueViolation(err)) {
                throw err;
            }

            outcome = 'replayed';                               // the same event, applied by another process meanwhile
        }

        await this.record(provider, event.id, event.type, outcome);
        return outcome;
    }

    private async meaning(provider: Provider, event: WebhookEvent): Promise<((trx: Knex.Transaction) => Promise<void>) | null> {
        const object = event.object;
        const invoiceId = ((object.metadata as Row | undefined)?.invoice_id as string | undefined) ?? null;
        const now = this.now();
        if ((event.type === 'payment_intent.succeeded' || event.type === 'charge.success') && invoiceId) {
            return async (trx) => {
                await trx('invoices').where({ id: invoiceId }).whereIn('status', ['open', 'payment_failed'])
                    .update({ status: 'paid', paid_at: now, payment_provider: provider, payment_reference: text(object.id ?? object.reference, ''), failure_reason: null, updated_at: now });
            };
        }

        if (event.type === 'payment_intent.payment_failed' && invoiceId) {
            const reason = ((object.last_payment_error as Row | undefined)?.message as string | undefined) ?? 'declined';
            return async (trx) => {
                // Only an open invoice changes (a failed charge of POST /v1/billing/pay told the account already).
                const changed = await trx('invoices').where({ id: invoiceId }).where({ status: 'open' }).update({ status: 'payment_failed', payment_provider: provider, failure_reason: reason.slice(0, 300), updated_at: now });
                const outbox = this.options.outbox?.();
                if (changed && outbox) {
                    await sendPaymentFailed(outbox, trx, invoiceId, provider, reason, now);
                }
            };
        }

        const reference = provider === 'stripe' ? object.id as string | undefined : object.reference as string | undefined;
        const checkout = (event.type === 'checkout.session.completed' || event.type === 'charge.success') && reference
            ? await this.knex<{ id: string; user_id: string; provider: string; reference: string; status: string }>('checkout_sessions').where({ provider, reference, status: 'open' }).first() : null;
        if (!checkout) {
            return null;
        }

        let method: { id: string; hint: string; customer: string } | null = null;
        if (provider === 'stripe' && typeof object.setup_intent === 'string') {
            const saved = await this.outside(() => (this.options.stripe as StripeProcessor).savedMethod(object.setup_intent as string));
            method = saved ? { ...saved, customer: object.customer as string } : null;
        }
        else if (provider === 'paystack') {
            const authorization = object.authorization as Row | undefined;
            const customer = object.customer as Row | undefined;
            if (authorization?.reusable && typeof authorization.authorization_code === 'string') {
                method = { id: authorization.authorization_code, hint: `${text(authorization.brand, 'card')} ending ${text(authorization.last4, '????')}`, customer: text(customer?.email, '') };
            }
        }

        return async (trx) => {
            await trx('checkout_sessions').where({ id: checkout.id }).update({ status: 'complete' });
            if (method) {
                await this.saveCard(checkout.user_id, provider, method.customer, method.id, method.hint, trx);
            }
        };
    }
}
