import { seeded } from './random';

// The generic scenario templates (docs/test-data.md): each turns a plan into the same records for the same seed, every
// record with a logical time `at`. Historical mode writes them all; behavioral mode writes those at or before the
// scenario's logical time and adds the rest as it advances, so a record once written never changes. Money is in
// micro-USD (synthetic rates), quantities in cores, MiB and GiB.

export type Mode = 'historical' | 'behavioral';
export const MODES: readonly Mode[] = ['historical', 'behavioral'];

export interface Plan {
    environment: string;
    template: string;
    mode: Mode;
    seed: number;
    start: string;
    days: number;
    apps?: number;
    databases?: number;
    pattern?: 'steady' | 'diurnal' | 'spiky';
    credit?: number;
    cpuRate?: number;
    memoryRate?: number;
    storageRate?: number;
    intervalMinutes?: number;
    paymentClearsOnDay?: number | null;
    notificationFailureDay?: number | null;
    projectId?: string;
    appName?: string;
    resourceKind?: 'app' | 'worker' | 'database';
    resourceName?: string;
    storageGiB?: number;
    cpuCores?: number;
    memoryMiB?: number;
    sourceScenarioId?: string;
    additionalSourceScenarioIds?: string[];
    replacesInvoiceScenarioId?: string | null;
}

export interface GenRecord {
    key: string;
    collection: string;
    ref: string | null;                                         // the key of the record it belongs to
    at: string;
    body: Record<string, unknown>;
}

/** Which collection each collection's `ref` must name: the registered relationships assert checks. */
export const RELATIONSHIPS: Readonly<Record<string, string>> = {
    resource: 'account', usage_sample: 'resource', usage_day: 'resource', deployment: 'resource', credit_entry: 'account',
    account_event: 'account', notification: 'account', notification_suppressed: 'account', notification_attempt: 'notification',
    invoice: 'account', payment: 'invoice'
};

const HOUR = 3600_000;
const DAY = 24 * HOUR;
const COMMON = ['environment', 'template', 'mode', 'seed', 'start', 'days'];
const RATES = ['cpuRate', 'memoryRate', 'storageRate'];

export interface Template {
    name: string;
    version: number;
    description: string;
    fields: readonly string[];                                  // the overrides it accepts beyond the common ones
    defaults: Partial<Plan>;
    generate?: (plan: Plan) => GenRecord[];                     // generic templates; dashboard ones write the API's database
}

const iso = (ms: number) => new Date(ms).toISOString();
const micros = (usd: number) => Math.round(usd * 1e6);

/** A generation in progress: the records so far, and helpers that keep keys and times consistent. */
class Builder {
    readonly records: GenRecord[] = [];
    readonly t0: number;
    readonly random: () => number;

    constructor(readonly plan: Plan) {
        this.t0 = Date.parse(plan.start);
        this.random = seeded(plan.seed, plan.template);
    }

    add(key: string, collection: string, ref: string | null, at: number, body: Record<string, unknown>): string {
        this.records.push({ key, collection, ref, at: iso(at), body });
        return key;
    }

    account(index = 0, extra: Record<string, unknown> = {}): string {
        return this.add(`account-${index}`, 'account', null, this.t0, { email: `user${index}-${this.plan.seed}@example.test`, ...extra });
    }

    /** A notification and its delivery attempts: a failure on `failureDay` is retried an hour later (the recovery rule). */
    notify(key: string, account: string, at: number, kind: string, day: number): void {
        this.add(key, 'notification', account, at, { kind, day });
        const failed = this.plan.notificationFailureDay === day;
        this.add(`${key}-attempt-1`, 'notification_attempt', key, at + 60_000, { attempt: 1, outcome: failed ? 'failed' : 'delivered' });
        if (failed) {
            this.add(`${key}-attempt-2`, 'notification_attempt', key, at + HOUR, { attempt: 2, outcome: 'delivered', retryOf: `${key}-attempt-1` });
        }
    }

    /** Resources of the plan: `apps` apps (the first named appName) and `databases` databases. */
    resources(account: string): Array<{ key: string; kind: string }> {
        const made = [];
        for (let i = 0; i < (this.plan.apps ?? 0); ++i) {
            made.push({ key: this.add(`app-${i}`, 'resource', account, this.t0, { kind: 'app', name: i === 0 && this.plan.appName ? this.plan.appName : `app-${i + 1}` }), kind: 'app' });
        }

        for (let i = 0; i < (this.plan.databases ?? 0); ++i) {
            made.push({ key: this.add(`database-${i}`, 'resource', account, this.t0, { kind: 'database', name: `db-${i + 1}` }), kind: 'database' });
        }

        return made;
    }

    /** How busy a resource is at an instant, 0 to 1, by the plan's pattern. */
    load(at: number): number {
        const r = this.random();
        const hour = new Date(at).getUTCHours();
        switch (this.plan.pattern) {
            case 'diurnal': return 0.2 + 0.6 * Math.max(0, Math.sin(Math.PI * (hour - 6) / 12)) + 0.1 * r;
            case 'spiky': return r < 0.05 ? 0.95 : 0.15 + 0.2 * r;
            default: return 0.45 + 0.1 * r;
        }
    }

    /** What a resource costs over `hours` at a load, split by metric (rates are USD per core-, GiB- and GiB-of-storage-hour). */
    cost(kind: string, load: number, hours: number) {
        const cpuCores = Math.round(load * 1000) / 1000;
        const memoryMiB = Math.round(256 + load * 768);
        const storageGiB = kind === 'database' ? 10 : 1;
        const cpuCost = micros(this.plan.cpuRate! * cpuCores * hours);
        const memoryCost = micros(this.plan.memoryRate! * memoryMiB / 1024 * hours);
        const storageCost = micros(this.plan.storageRate! * storageGiB * hours);
        return { cpuCores, memoryMiB, storageGiB, cpuCost, memoryCost, storageCost, cost: cpuCost + memoryCost + storageCost };
    }

    /** A day's charge against the account's credit: the balance never goes below zero. */
    draw(account: string, balance: number, amount: number, at: number, key: string): number {
        const drawn = Math.min(balance, amount);
        if (drawn > 0) {
            this.add(key, 'credit_entry', account, at, { amountMicros: -drawn, reason: 'usage', balanceMicros: balance - drawn });
        }

        return balance - drawn;
    }
}

function usageHistory(plan: Plan): GenRecord[] {
    const b = new Builder(plan);
    const account = b.account();
    const step = plan.intervalMinutes! * 60_000;
    for (const resource of b.resources(account)) {
        for (let day = 0; day < plan.days; ++day) {
            let total = 0;
            let samples = 0;
            for (let at = b.t0 + day * DAY + step; at <= b.t0 + (day + 1) * DAY; at += step) {
                const sample = b.cost(resource.kind, b.load(at - step), step / HOUR);
                b.add(`${resource.key}-sample-${(at - b.t0) / step}`, 'usage_sample', resource.key, at, sample);
                total += sample.cost;
                ++samples;
            }

            b.add(`${resource.key}-day-${day + 1}`, 'usage_day', resource.key, b.t0 + (day + 1) * DAY, { day: day + 1, cost: total, samples });
        }
    }

    return b.records;
}

function deploymentHistory(plan: Plan): GenRecord[] {
    const b = new Builder(plan);
    const account = b.account();
    for (const resource of b.resources(account)) {
        let number = 0;
        for (let day = 0; day < plan.days; ++day) {
            const count = 1 + Math.floor(b.random() * 3);
            const minutes = Array.from({ length: count }, () => Math.floor(b.random() * 1440)).sort((x, y) => x - y);
            for (const minute of minutes) {
                ++number;
                const failed = b.random() < 0.15;
                b.add(`${resource.key}-deployment-${number}`, 'deployment', resource.key, b.t0 + day * DAY + minute * 60_000, {
                    number, status: failed ? 'failed' : 'succeeded', commit: Math.floor(b.random() * 0xFFFFFFF).toString(16).padStart(7, '0'), ...(failed ? { failureCode: 'build_failed' } : {})
                });
            }
        }
    }

    return b.records;
}

function accountLifecycle(plan: Plan): GenRecord[] {
    const b = new Builder(plan);
    const account = b.account();
    b.add('event-signed-up', 'account_event', account, b.t0, { event: 'signed_up' });
    b.notify('welcome', account, b.t0, 'welcome', 1);
    b.add('event-verified', 'account_event', account, b.t0 + HOUR, { event: 'email_verified' });
    let balance = micros(plan.credit!);
    b.add('credit-grant', 'credit_entry', account, b.t0 + HOUR, { amountMicros: balance, reason: 'campaign', balanceMicros: balance });
    const [app] = b.resources(account);
    for (let day = 1; day < plan.days; ++day) {
        const cost = b.cost('app', b.load(b.t0 + day * DAY), 24).cost;
        b.add(`${app.key}-day-${day + 1}`, 'usage_day', app.key, b.t0 + (day + 1) * DAY, { day: day + 1, cost, samples: 1 });
        balance = b.draw(account, balance, cost, b.t0 + (day + 1) * DAY, `credit-draw-${day + 1}`);
    }

    if (plan.days >= 3) {
        b.add('event-closed', 'account_event', account, b.t0 + plan.days * DAY, { event: 'closed' });
    }

    return b.records;
}

function creditExhaustion(plan: Plan): GenRecord[] {
    const b = new Builder(plan);
    const account = b.account();
    let balance = micros(plan.credit!);
    b.add('credit-grant', 'credit_entry', account, b.t0, { amountMicros: balance, reason: 'campaign', balanceMicros: balance });
    const resources = b.resources(account);
    for (let day = 0; day < plan.days; ++day) {
        const end = b.t0 + (day + 1) * DAY;
        let cost = 0;
        for (const resource of resources) {
            const charge = b.cost(resource.kind, b.load(end), 24).cost;
            b.add(`${resource.key}-day-${day + 1}`, 'usage_day', resource.key, end, { day: day + 1, cost: charge, samples: 1 });
            cost += charge;
        }

        const before = balance;
        balance = b.draw(account, balance, cost, end, `credit-draw-${day + 1}`);
        if (before > 0 && balance === 0) {
            b.add('event-credit-exhausted', 'account_event', account, end, { event: 'credit_exhausted', day: day + 1, uncoveredMicros: cost - before });
            b.notify('credit-exhausted', account, end, 'credit_exhausted', day + 1);
        }
    }

    return b.records;
}

function paymentRecovery(plan: Plan): GenRecord[] {
    const b = new Builder(plan);
    const account = b.account();
    b.add('invoice', 'invoice', account, b.t0, { amountMicros: micros(5 + Math.floor(b.random() * 45)), currency: 'USD' });
    for (let day = 1; day <= plan.days; ++day) {
        const at = b.t0 + (day - 1) * DAY + 9 * HOUR;
        if (plan.paymentClearsOnDay === day) {
            b.add(`payment-${day}`, 'payment', 'invoice', at, { day, outcome: 'succeeded' });
            b.notify(`payment-receipt-${day}`, account, at, 'payment_received', day);
            break;
        }

        b.add(`payment-${day}`, 'payment', 'invoice', at, { day, outcome: 'failed', failureCode: 'card_declined' });
        b.notify(`payment-failed-${day}`, account, at, 'payment_failed', day);
    }

    return b.records;
}

function notificationEligibility(plan: Plan): GenRecord[] {
    const b = new Builder(plan);
    // Account 0 is eligible, account 1 opted out, account 2 unverified half the time (by the seed).
    const accounts = [{ optedIn: true, verified: true }, { optedIn: false, verified: true }, { optedIn: true, verified: b.random() < 0.5 }]
        .map((prefs, index) => ({ key: b.account(index, { ...prefs, eligible: prefs.optedIn && prefs.verified }), eligible: prefs.optedIn && prefs.verified }));
    for (let day = 1; day <= plan.days; ++day) {
        for (const [index, account] of accounts.entries()) {
            const at = b.t0 + (day - 1) * DAY + (8 + index) * HOUR;
            if (account.eligible) {
                b.notify(`usage-alert-${index}-${day}`, account.key, at, 'usage_alert', day);
            }
            else {
                b.add(`usage-alert-${index}-${day}`, 'notification_suppressed', account.key, at, { kind: 'usage_alert', day, reason: 'not_eligible' });
            }
        }
    }

    return b.records;
}

const rates = { cpuRate: 0.02, memoryRate: 0.005, storageRate: 0.0001 };

export const TEMPLATES: readonly Template[] = [
    {
        name: 'usage_history', version: 1, description: 'Apps and databases with usage samples every intervalMinutes and daily totals, shaped by pattern.',
        fields: ['apps', 'databases', 'pattern', 'intervalMinutes', 'appName', ...RATES], defaults: { apps: 1, databases: 0, pattern: 'steady', intervalMinutes: 60, ...rates }, generate: usageHistory
    },
    {
        name: 'deployment_history', version: 1, description: 'Apps with one to three deployments a day, some failed.',
        fields: ['apps', 'appName'], defaults: { apps: 1 }, generate: deploymentHistory
    },
    {
        name: 'account_lifecycle', version: 1, description: 'An account signing up, verifying, receiving credit, running an app that draws it, and closing.',
        fields: ['credit', 'appName', 'pattern', ...RATES], defaults: { credit: 20, apps: 1, pattern: 'steady', ...rates }, generate: accountLifecycle
    },
    {
        name: 'credit_exhaustion', version: 1, description: 'Daily usage drawing a credit grant down to zero, never below, with the exhaustion event and notice.',
        fields: ['credit', 'apps', 'databases', 'pattern', ...RATES], defaults: { credit: 1, apps: 1, databases: 0, pattern: 'steady', ...rates }, generate: creditExhaustion
    },
    {
        name: 'payment_recovery', version: 1, description: 'An invoice whose payment fails daily until paymentClearsOnDay; notificationFailureDay fails a notice that is retried.',
        fields: ['paymentClearsOnDay', 'notificationFailureDay'], defaults: { paymentClearsOnDay: null, notificationFailureDay: null }, generate: paymentRecovery
    },
    {
        name: 'notification_eligibility', version: 1, description: 'Three accounts (eligible, opted out, maybe unverified) and a daily alert sent only to the eligible.',
        fields: ['notificationFailureDay'], defaults: { notificationFailureDay: null }, generate: notificationEligibility
    },
    {
        name: 'dashboard_usage', version: 1, description: 'Hourly or daily usage of one app, worker or database of a project, in the API\'s own database, for the dashboard.',
        fields: ['projectId', 'resourceKind', 'resourceName', 'intervalMinutes', 'storageGiB', 'cpuCores', 'memoryMiB'],
        defaults: { resourceKind: 'app', intervalMinutes: 60, storageGiB: 10, cpuCores: 0.5, memoryMiB: 1024 }
    },
    {
        name: 'dashboard_invoice', version: 1, description: 'One test invoice from ready dashboard_usage scenarios of one project and period; payment refuses it.',
        fields: ['sourceScenarioId', 'additionalSourceScenarioIds', 'replacesInvoiceScenarioId'], defaults: { additionalSourceScenarioIds: [], replacesInvoiceScenarioId: null }
    }
];

export const PLAN_FIELDS: readonly string[] = [...new Set([...COMMON, ...TEMPLATES.flatMap((template) => template.fields)])];

export function templateNamed(name: string): Template | undefined {
    return TEMPLATES.find((template) => template.name === name);
}

/** The fields a plan may carry for its template: the common ones and the template's own. */
export function allowedFields(template: Template): ReadonlySet<string> {
    return new Set([...COMMON, ...template.fields]);
}
