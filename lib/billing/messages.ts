import type { Knex } from 'knex';

import type { Outbox } from '../notifications/outbox';
import { formatMoney } from './money';

// The messages billing sends through the notifications outbox (docs/notifications.md), each written in the
// transaction of what it tells, to the account the invoice is billed to: an invoice issued, a payment of one that
// failed, credit running low (an invoice drew credit and what is left is less than that invoice's usage). They are
// the `billing` category, which a user may switch off. Amounts are formatted in major units with their currency;
// nothing of the card, the customer or the processor's keys is in them.
export type OutboxOf = () => Outbox | null;

type Row = Record<string, unknown>;

const PROVIDERS: Readonly<Record<string, string>> = { stripe: 'Stripe', paystack: 'Paystack' };

async function invoiceOf(trx: Knex.Transaction, invoiceId: string) {
    const invoice = await trx('invoices').where({ id: invoiceId }).first<Row>();
    const project = await trx('projects').where({ id: invoice.project_id as string }).first<Row | undefined>('name');
    return { invoice, project: (project?.name as string | undefined) ?? (invoice.project_id as string) };
}

/** Tells the account an invoice was issued and, when it drew credit leaving less than its usage, that credit runs low. */
export async function sendInvoiceIssued(outbox: Outbox, trx: Knex.Transaction, invoiceId: string, creditLeft: number): Promise<void> {
    const { invoice, project } = await invoiceOf(trx, invoiceId);
    const currency = invoice.currency as string;
    const total = Number(invoice.total);
    const credit = Number(invoice.credit_applied);
    const subtotal = Number(invoice.subtotal);
    const common = { invoiceId, project, subtotal: formatMoney(subtotal, currency) };
    await outbox.send(trx, {
        type: 'billing.invoice_issued', userId: invoice.account_id as string,
        data: {
            ...common, periodStart: invoice.period_start as string, periodEnd: invoice.period_end as string, creditApplied: formatMoney(credit, currency), total: formatMoney(total, currency),
            state: total === 0 ? 'Nothing is due: credit covered it.' : 'It is due: pay it with your saved card on the billing page.'
        }
    });
    if (credit > 0 && creditLeft < subtotal) {
        await outbox.send(trx, {
            type: 'billing.credit_low', userId: invoice.account_id as string,
            data: { ...common, drawn: formatMoney(credit, currency), balance: formatMoney(creditLeft, currency) }
        });
    }
}

/** Tells the account a payment of an invoice failed, in the processor's words (redacted as every message value is). */
export async function sendPaymentFailed(outbox: Outbox, trx: Knex.Transaction, invoiceId: string, provider: string, reason: string, at: string): Promise<void> {
    const { invoice, project } = await invoiceOf(trx, invoiceId);
    await outbox.send(trx, {
        type: 'billing.payment_failed', userId: invoice.account_id as string,
        data: {
            invoiceId, project, total: formatMoney(Number(invoice.total), invoice.currency as string), periodStart: invoice.period_start as string, periodEnd: invoice.period_end as string,
            provider: PROVIDERS[provider] ?? provider, failedAt: at, reason: reason.slice(0, 300)
        }
    });
}
