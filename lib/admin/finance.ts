import type { Knex } from 'knex';

import { exponentOf } from '../billing/money';
import { redact } from '../redact';

// What the admin billing and credit tools read: the billing family's own tables (invoices with their payment state,
// the account's billing settings, the credit ledger, campaigns, the price-list versions the metered hours carry).
// Every amount is labelled in minor and major units with its currency; every invoice names its period and the
// price-list versions that priced it. A link the ledger should hold and does not (credit an invoice says it used
// with no ledger entry, an entry naming an invoice or campaign that is not there, a processor payment without its
// reference) is answered `inconclusive` with the reason, and makes the whole answer `inconclusive`: never guessed.

type Row = Record<string, unknown>;
type Outcome = 'ok' | 'inconclusive';

export const MONEY_UNITS = {
    minor: 'integer amount in the currency\'s smallest unit (cents for USD): what the platform stores and charges',
    major: 'the same amount as a decimal string: minor / 10^exponent of the currency (ISO 4217)'
} as const;

/** An amount in both units, with its currency. */
export function money(minor: number, currency: string) {
    const exponent = exponentOf(currency);
    const digits = String(Math.abs(minor)).padStart(exponent + 1, '0');
    const major = `${minor < 0 ? '-' : ''}${exponent ? `${digits.slice(0, -exponent)}.${digits.slice(-exponent)}` : digits}`;
    return { minor, major, currency };
}

const currencyBasis = (currency: string, of: string) => ({ currency, exponent: exponentOf(currency), basis: `${of}; never converted between currencies` });
const inconclusive = (reason: string) => ({ outcome: 'inconclusive' as const, reason });
const reasonOf = (text: unknown) => typeof text === 'string' ? redact(text).slice(0, 300) : null;
const nextDay = (day: string) => new Date(Date.parse(`${day}T00:00:00.000Z`) + 86_400_000).toISOString();

async function priceListsOf(knex: Knex, projectId: string, start: string, end: string) {
    const versions = (await knex('usage_hours').where('project_id', projectId).where('hour', '>=', `${start}T00:00:00.000Z`).where('hour', '<', nextDay(end))
        .distinct('price_version').orderBy('price_version') as Array<{ price_version: number | string }>).map((row) => Number(row.price_version));
    if (!versions.length) {
        return inconclusive('no metered hour of the period remains to say which price list priced it');
    }

    const lists = await knex('price_lists').whereIn('version', versions).orderBy('version').select<Row[]>('version', 'currency', 'effective_from');
    const known = new Set(lists.map((row) => Number(row.version)));
    const missing = versions.filter((version) => !known.has(version));
    if (missing.length) {
        return inconclusive(`the metered hours name price-list version ${missing.join(', ')}, which the price_lists table does not hold`);
    }

    return { outcome: 'ok' as const, versions: lists.map((row) => ({ version: Number(row.version), currency: row.currency, effectiveFrom: row.effective_from })) };
}

async function invoiceView(knex: Knex, row: Row) {
    const id = row.id as string;
    const currency = row.currency as string;
    const creditApplied = Number(row.credit_applied);
    const status = row.status as string;
    const provider = (row.payment_provider as string | null) ?? null;
    const project = await knex('projects').where('id', row.project_id as string).first<Row | undefined>('name');

    // The credit the invoice says it used, against the ledger entries that drew it.
    const drawn = await knex('credit_entries').where({ user_id: row.account_id as string, reason: 'invoice', reference: id }).select<Row[]>('id', 'amount', 'currency', 'created_at');
    const drawnTotal = -drawn.reduce((sum, entry) => sum + Number(entry.amount), 0);
    const creditLink = creditApplied === 0 && !drawn.length ? { outcome: 'ok' as const, entries: [] }
        : drawnTotal === creditApplied && drawn.every((entry) => entry.currency === currency)
            ? { outcome: 'ok' as const, entries: drawn.map((entry) => ({ id: entry.id, amount: money(Number(entry.amount), currency), createdAt: entry.created_at })) }
            : inconclusive(`the invoice applied ${money(creditApplied, currency).major} ${currency} of credit and the ledger holds ${money(drawnTotal, currency).major} drawn for it`);

    const paidByProcessor = status === 'paid' && (provider === 'stripe' || provider === 'paystack');
    const payment = paidByProcessor && !row.payment_reference ? inconclusive(`paid through ${provider} with no processor reference recorded`)
        : status === 'paid' && provider === null && Number(row.total) > 0 ? inconclusive('paid with no provider recorded')
            : { outcome: 'ok' as const };
    const priceLists = await priceListsOf(knex, row.project_id as string, row.period_start as string, row.period_end as string);
    const outcome: Outcome = [creditLink, payment, priceLists].some((part) => part.outcome === 'inconclusive') ? 'inconclusive' : 'ok';
    return {
        outcome,
        id, projectId: row.project_id, projectName: (project?.name as string | undefined) ?? null, accountId: row.account_id, status, test: !!row.test,
        period: { start: row.period_start, end: row.period_end, basis: 'calendar month, UTC, both days inclusive' },
        currency: currencyBasis(currency, 'amounts are in the invoice\'s own currency, the price list\'s when it was issued'),
        priceLists,
        subtotal: money(Number(row.subtotal), currency),
        creditApplied: money(creditApplied, currency),
        total: money(Number(row.total), currency),
        lineCount: (JSON.parse(row.lines as string) as unknown[]).length,
        payment: {
            ...payment, status: status === 'paid' ? 'paid' : status === 'payment_failed' ? 'failed' : status === 'void' ? 'void' : 'due',
            provider, reference: (row.payment_reference as string | null) ?? null, failureReason: reasonOf(row.failure_reason), paidAt: row.paid_at ?? null
        },
        credit: creditLink,
        createdAt: row.created_at, updatedAt: row.updated_at
    };
}

export type BillingTarget = { invoiceId: string } | { userId: string } | { projectId: string };

/** One invoice, or the newest invoices of an account (billed to it) or of a project; null when the id names nothing. */
export async function billingOf(knex: Knex, target: BillingTarget, limit: number) {
    let rows: Row[];
    let account: Row | undefined;
    if ('invoiceId' in target) {
        rows = await knex('invoices').where('id', target.invoiceId).select<Row[]>('*');
        if (!rows.length) {
            return null;
        }
    }
    else {
        const exists = 'userId' in target ? await knex('users').where('id', target.userId).first<Row | undefined>('id') : await knex('projects').where('id', target.projectId).first<Row | undefined>('id');
        if (!exists) {
            return null;
        }

        rows = await knex('invoices').where('userId' in target ? 'account_id' : 'project_id', 'userId' in target ? target.userId : target.projectId)
            .orderBy([{ column: 'period_start', order: 'desc' }, { column: 'id', order: 'desc' }]).limit(limit).select<Row[]>('*');
    }

    const accountId = 'userId' in target ? target.userId : rows[0]?.account_id as string | undefined;
    if (accountId) {
        account = await knex('billing_accounts').where('user_id', accountId).first<Row | undefined>('currency', 'provider', 'payment_method_hint', 'updated_at');
    }

    const invoices = [];
    for (const row of rows) {
        invoices.push(await invoiceView(knex, row));
    }

    const starts = invoices.map((invoice) => invoice.period.start as string).sort();
    const ends = invoices.map((invoice) => invoice.period.end as string).sort();
    const outcome: Outcome = invoices.some((invoice) => invoice.outcome === 'inconclusive') ? 'inconclusive' : 'ok';
    return {
        outcome,
        ...outcome === 'inconclusive' ? { reason: 'a ledger link is missing: see the invoices marked inconclusive' } : {},
        target,
        units: MONEY_UNITS,
        period: invoices.length ? { start: starts[0], end: ends.at(-1), basis: 'from the first day of the earliest invoice shown to the last day of the latest, UTC' } : null,
        account: accountId ? {
            id: accountId, currency: (account?.currency as string | null) ?? null, paymentProvider: (account?.provider as string | null) ?? null,
            paymentMethod: (account?.payment_method_hint as string | null) ?? null
        } : null,
        invoices,
        truncated: !('invoiceId' in target) && rows.length === limit
    };
}

async function entryLink(knex: Knex, entry: Row) {
    const reference = (entry.reference as string | null) ?? null;
    const currency = entry.currency as string;
    if (entry.reason === 'invoice') {
        const invoice = reference ? await knex('invoices').where('id', reference).first<Row | undefined>('id', 'account_id', 'credit_applied', 'currency', 'period_start', 'period_end') : undefined;
        if (!invoice) {
            return inconclusive(reference ? `the entry names invoice ${reference}, which does not exist` : 'the entry names no invoice');
        }

        if (invoice.account_id !== entry.user_id || invoice.currency !== currency) {
            return inconclusive(`invoice ${reference} belongs to another account or currency`);
        }

        return { outcome: 'ok' as const, invoice: { id: invoice.id, creditApplied: money(Number(invoice.credit_applied), currency), period: { start: invoice.period_start, end: invoice.period_end } } };
    }

    if (entry.reason === 'campaign') {
        const campaign = reference ? await knex('campaigns').where('id', reference).first<Row | undefined>('id', 'code', 'amount', 'currency') : undefined;
        const redeemed = campaign ? await knex('campaign_redemptions').where({ campaign_id: campaign.id, user_id: entry.user_id }).first<Row | undefined>('redeemed_at') : undefined;
        if (!campaign || !redeemed) {
            return inconclusive(campaign ? `no redemption of campaign ${campaign.code as string} by this account is recorded` : `the entry names campaign ${reference ?? '(none)'}, which does not exist`);
        }

        return { outcome: 'ok' as const, campaign: { id: campaign.id, code: campaign.code, amount: money(Number(campaign.amount), campaign.currency as string), redeemedAt: redeemed.redeemed_at } };
    }

    return reference ? { outcome: 'ok' as const, reference } : { outcome: 'ok' as const };
}

function entryView(entry: Row, link: Awaited<ReturnType<typeof entryLink>>) {
    const currency = entry.currency as string;
    return { id: entry.id, userId: entry.user_id, amount: money(Number(entry.amount), currency), reason: entry.reason, reference: (entry.reference as string | null) ?? null, createdAt: entry.created_at as string, link };
}

export type CreditTarget = { userId: string } | { creditId: string };

/** An account's credit (balance per currency and ledger, newest first) or one ledger entry; null when the id names nothing. */
export async function creditOf(knex: Knex, target: CreditTarget, limit: number, now = new Date()) {
    const current = await knex('price_lists').orderBy('version', 'desc').first<Row | undefined>('version', 'currency', 'effective_from');
    const priceList = current ? { outcome: 'ok' as const, version: Number(current.version), currency: current.currency, effectiveFrom: current.effective_from, basis: 'the price list in force now: invoices draw credit in its currency' }
        : { outcome: 'unavailable' as const, reason: 'no price list has been adopted yet (the API has not started billing)' };
    let userId: string;
    let entries: Row[];
    if ('creditId' in target) {
        const entry = await knex('credit_entries').where('id', target.creditId).first<Row | undefined>();
        if (!entry) {
            return null;
        }

        userId = entry.user_id as string;
        entries = [entry];
    }
    else {
        if (!await knex('users').where('id', target.userId).first<Row | undefined>('id')) {
            return null;
        }

        userId = target.userId;
        entries = await knex('credit_entries').where('user_id', userId).orderBy([{ column: 'created_at', order: 'desc' }, { column: 'id', order: 'desc' }]).limit(limit).select<Row[]>('*');
    }

    const balances = await knex('credit_entries').where('user_id', userId).groupBy('currency').select('currency').sum({ balance: 'amount' }).count({ n: '*' }).orderBy('currency') as unknown as Array<{ currency: string; balance: number | string; n: number | string }>;
    const ledger = [];
    for (const entry of entries) {
        ledger.push(entryView(entry, await entryLink(knex, entry)));
    }

    const outcome: Outcome = ledger.some((entry) => entry.link.outcome === 'inconclusive') ? 'inconclusive' : 'ok';
    const times = ledger.map((entry) => entry.createdAt).sort();
    return {
        outcome,
        ...outcome === 'inconclusive' ? { reason: 'a ledger link is missing: see the entries marked inconclusive' } : {},
        target,
        userId,
        units: MONEY_UNITS,
        priceList,
        balances: balances.map((row) => ({
            ...currencyBasis(row.currency, 'the sum of every ledger entry in this currency'), balance: money(Number(row.balance), row.currency), entries: Number(row.n), asOf: now.toISOString()
        })),
        period: times.length ? { from: times[0], to: times.at(-1), basis: 'the creation times of the first and last ledger entries shown, UTC' } : null,
        entries: ledger,
        truncated: !('creditId' in target) && entries.length === limit
    };
}

/** Invoices whose payment failed, newest first, with their amounts labelled. */
export async function failedPayments(knex: Knex, filter: { accountId?: string; projectIds?: readonly string[]; since?: string }, limit: number) {
    const query = knex('invoices').where('status', 'payment_failed').orderBy('updated_at', 'desc').limit(limit)
        .select<Row[]>('id', 'project_id', 'account_id', 'currency', 'total', 'payment_provider', 'payment_reference', 'failure_reason', 'period_start', 'period_end', 'updated_at');
    if (filter.accountId || filter.projectIds) {
        query.where((where) => {
            if (filter.accountId) {
                void where.orWhere('account_id', filter.accountId);
            }

            if (filter.projectIds?.length) {
                void where.orWhereIn('project_id', filter.projectIds);
            }
        });
    }

    if (filter.since) {
        query.where('updated_at', '>=', filter.since);
    }

    return (await query).map((row) => ({
        invoiceId: row.id, projectId: row.project_id, accountId: row.account_id, total: money(Number(row.total), row.currency as string),
        period: { start: row.period_start, end: row.period_end }, provider: row.payment_provider ?? null, reference: row.payment_reference ?? null,
        reason: reasonOf(row.failure_reason), at: row.updated_at
    }));
}
