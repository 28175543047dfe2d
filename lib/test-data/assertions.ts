import { RELATIONSHIPS } from './templates';

// The assertions of test_scenario_assert, over the records as stored (never regenerated): each check passes, fails
// with what it found, or is unsupported where the scenario holds nothing it could judge.

export const CHECKS = ['relationships', 'usage_conserved', 'credit_nonnegative', 'credit_exhausted', 'payment_state', 'notifications_delivered'] as const;
export type Check = typeof CHECKS[number];
export const PAYMENT_STATES = ['open', 'paid', 'payment_failed'] as const;

export interface StoredRecord {
    id: string;
    collection: string;
    refId: string | null;
    at: string;
    body: Record<string, unknown>;
}

export interface CheckResult {
    check: Check;
    outcome: 'pass' | 'fail' | 'unsupported';
    detail: string;
}

const DAY = 24 * 3600_000;
const result = (check: Check, ok: boolean, pass: string, fail: string): CheckResult => ({ check, outcome: ok ? 'pass' : 'fail', detail: ok ? pass : fail });
const unsupported = (check: Check, what: string): CheckResult => ({ check, outcome: 'unsupported', detail: `the scenario holds no ${what}` });
const num = (value: unknown) => Number(value ?? 0);

function relationships(records: readonly StoredRecord[]): CheckResult {
    const byId = new Map(records.map((record) => [record.id, record]));
    const broken = records.filter((record) => RELATIONSHIPS[record.collection] && byId.get(record.refId ?? '')?.collection !== RELATIONSHIPS[record.collection]);
    return result('relationships', !broken.length, `${records.length} records, every reference resolves`,
        `${broken.length} records reference nothing of the registered kind, first ${broken[0]?.id}`);
}

function usageConserved(records: readonly StoredRecord[]): CheckResult {
    const samples = records.filter((record) => record.collection === 'usage_sample');
    const days = records.filter((record) => record.collection === 'usage_day' && num(record.body.samples) > 1);
    if (!samples.length && !days.length) {
        return unsupported('usage_conserved', 'usage samples');
    }

    const split = samples.filter((sample) => num(sample.body.cost) !== num(sample.body.cpuCost) + num(sample.body.memoryCost) + num(sample.body.storageCost));
    const unbalanced = days.filter((day) => {
        const end = Date.parse(day.at);
        const within = samples.filter((sample) => sample.refId === day.refId && Date.parse(sample.at) > end - DAY && Date.parse(sample.at) <= end);
        return within.length !== num(day.body.samples) || within.reduce((sum, sample) => sum + num(sample.body.cost), 0) !== num(day.body.cost);
    });
    return result('usage_conserved', !split.length && !unbalanced.length, `${samples.length} samples add up to their metrics and their ${days.length} daily totals`,
        `${split.length} samples differ from their metrics, ${unbalanced.length} daily totals from their samples`);
}

function creditLedger(records: readonly StoredRecord[]) {
    const entries = records.filter((record) => record.collection === 'credit_entry').sort((a, b) => a.at.localeCompare(b.at) || a.id.localeCompare(b.id));
    let balance = 0;
    let lowest = 0;
    for (const entry of entries) {
        balance += num(entry.body.amountMicros);
        lowest = Math.min(lowest, balance);
    }

    return { entries, balance, lowest };
}

function creditNonnegative(records: readonly StoredRecord[]): CheckResult {
    const ledger = creditLedger(records);
    return ledger.entries.length
        ? result('credit_nonnegative', ledger.lowest >= 0, `the balance never went below zero (now ${ledger.balance} micro-USD)`, `the balance fell to ${ledger.lowest} micro-USD`)
        : unsupported('credit_nonnegative', 'credit entries');
}

function creditExhausted(records: readonly StoredRecord[]): CheckResult {
    const ledger = creditLedger(records);
    const event = records.some((record) => record.collection === 'account_event' && record.body.event === 'credit_exhausted');
    return ledger.entries.length
        ? result('credit_exhausted', ledger.balance === 0 && event, 'the credit is exhausted and the event recorded', `the balance is ${ledger.balance} micro-USD${event ? '' : ', no exhaustion event'}`)
        : unsupported('credit_exhausted', 'credit entries');
}

function paymentState(records: readonly StoredRecord[], expected: string | undefined): CheckResult {
    if (!records.some((record) => record.collection === 'invoice')) {
        return unsupported('payment_state', 'invoice');
    }

    const payments = records.filter((record) => record.collection === 'payment');
    const state = payments.some((payment) => payment.body.outcome === 'succeeded') ? 'paid' : payments.length ? 'payment_failed' : 'open';
    return result('payment_state', state === expected, `the invoice is ${state}`, `the invoice is ${state}, not ${expected}`);
}

function notificationsDelivered(records: readonly StoredRecord[]): CheckResult {
    const notifications = records.filter((record) => record.collection === 'notification');
    if (!notifications.length) {
        return unsupported('notifications_delivered', 'notifications');
    }

    const ineligible = new Set(records.filter((record) => record.collection === 'account' && record.body.eligible === false).map((record) => record.id));
    const delivered = new Set(records.filter((record) => record.collection === 'notification_attempt' && record.body.outcome === 'delivered').map((record) => record.refId));
    const undelivered = notifications.filter((notification) => !delivered.has(notification.id));
    const wrong = notifications.filter((notification) => ineligible.has(notification.refId ?? ''));
    return result('notifications_delivered', !undelivered.length && !wrong.length, `${notifications.length} notifications, each delivered to an eligible account`,
        `${undelivered.length} notifications undelivered, ${wrong.length} sent to ineligible accounts`);
}

/** Runs the checks over a generic scenario's stored records. */
export function runChecks(records: readonly StoredRecord[], checks: readonly Check[], expectedState?: string): CheckResult[] {
    return checks.map((check) => {
        switch (check) {
            case 'relationships': return relationships(records);
            case 'usage_conserved': return usageConserved(records);
            case 'credit_nonnegative': return creditNonnegative(records);
            case 'credit_exhausted': return creditExhausted(records);
            case 'payment_state': return paymentState(records, expectedState);
            case 'notifications_delivered': return notificationsDelivered(records);
        }
    });
}
