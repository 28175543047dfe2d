import * as Boom from '@hapi/boom';
import type { Knex } from 'knex';

import { priceUsage } from '../billing/usage';
import { PriceVersions, unitPrices } from '../billing/prices';
import { newId } from '../ids';
import { PLAN_NAMES, PLANS } from '../plans';
import { digestId } from './random';
import type { Plan } from './templates';

// The dashboard fixtures: usage rows and one test invoice written to the API's own database (only where the gates of
// lib/test-data/gates.ts allow it), so the dashboard's usage and billing pages show a realistic history locally.
// Every row written is named in the scenario's manifest: usage rows as `<resourceId>@<hour>`, the invoice by its id.

const HOUR = 3600_000;
const DAY = 24 * HOUR;
const PREFIX = { app: 'app', worker: 'wrk', database: 'db' } as const;

export interface ManifestEntry {
    collection: string;
    recordId: string;
}

/** The resource a dashboard_usage scenario reports: its id follows from the scenario's, so two scenarios never collide. */
export function fixtureResourceId(scenarioId: string, kind: keyof typeof PREFIX): string {
    return `${PREFIX[kind]}_${digestId(scenarioId)}`;
}

/** The smallest plan holding the cores and memory asked for. */
export function fixturePlan(cpuCores: number, memoryMiB: number): string {
    const plan = PLAN_NAMES.find((name) => PLANS[name].cpu >= cpuCores && PLANS[name].memoryMiB >= memoryMiB);
    if (!plan) {
        throw Boom.badRequest(`cpuCores ${cpuCores} and memoryMiB ${memoryMiB} fit no plan (the largest is ${PLANS.pro.cpu} cores and ${PLANS.pro.memoryMiB} MiB)`);
    }

    return plan;
}

/** The usage rows of a dashboard_usage plan: one per interval, one instance running throughout. */
export async function writeUsage(trx: Knex.Transaction, scenarioId: string, plan: Plan): Promise<ManifestEntry[]> {
    const kind = plan.resourceKind!;
    const resourceId = fixtureResourceId(scenarioId, kind);
    const planName = fixturePlan(plan.cpuCores!, plan.memoryMiB!);
    const versions = await new PriceVersions(trx).all();
    if (!versions.length) {
        throw Boom.conflict('No price list is recorded yet: start the billing family once before writing dashboard usage');
    }

    const step = plan.intervalMinutes! * 60_000;
    const start = Date.parse(plan.start);
    const rows = [];
    for (let at = start; at < start + plan.days * DAY; at += step) {
        const hour = new Date(at).toISOString();
        const version = PriceVersions.at(versions, hour);
        const extraGiB = Math.max(0, plan.storageGiB! - unitPrices(version.body, kind, planName).includedGiB);
        rows.push({
            project_id: plan.projectId, resource_type: kind, resource_id: resourceId, resource_name: plan.resourceName, hour, plan: planName,
            instance_ms: step, storage_gib_ms: kind === 'app' ? 0 : Math.round(extraGiB * step), bandwidth_bytes: 0, price_version: version.version
        });
    }

    for (let i = 0; i < rows.length; i += 200) {
        await trx('usage_hours').insert(rows.slice(i, i + 200));
    }

    return rows.map((row) => ({ collection: 'usage_hours', recordId: `${row.resource_id}@${row.hour}` }));
}

/** A manifest's usage rows that still exist. */
export async function usageRows(knex: Knex, projectId: string, recordIds: readonly string[]): Promise<Array<Record<string, unknown>>> {
    const found = [];
    const byResource = new Map<string, string[]>();
    for (const id of recordIds) {
        const [resource, hour] = id.split('@') as [string, string];
        byResource.set(resource, [...byResource.get(resource) ?? [], hour]);
    }

    for (const [resource, hours] of byResource) {
        for (let i = 0; i < hours.length; i += 500) {
            found.push(...await knex<Record<string, unknown>>('usage_hours').where({ project_id: projectId, resource_id: resource }).whereIn('hour', hours.slice(i, i + 500)));
        }
    }

    return found;
}

export async function deleteUsage(trx: Knex.Transaction, projectId: string, recordIds: readonly string[]): Promise<number> {
    let deleted = 0;
    for (const id of recordIds) {
        const [resource, hour] = id.split('@') as [string, string];
        deleted += await trx('usage_hours').where({ project_id: projectId, resource_id: resource, hour }).delete();
    }

    return deleted;
}

export interface InvoiceSource {
    projectId: string;
    start: string;
    days: number;
    resourceIds: string[];
}

/** The priced lines of the sources' resources over their period, from the usage rows as they stand. */
export async function invoiceLines(knex: Knex, source: InvoiceSource) {
    const versions = await new PriceVersions(knex).all();
    const end = new Date(Date.parse(source.start) + source.days * DAY).toISOString();
    const [usage] = await priceUsage(knex, versions, [source.projectId], source.start, end);
    const lines = (usage?.lines ?? []).filter((line) => source.resourceIds.includes(line.resourceId));
    return { currency: usage?.currency ?? versions.at(-1)?.currency ?? 'USD', lines, total: lines.reduce((sum, line) => sum + line.amount, 0) };
}

export const periodOf = (start: string, days: number) => ({
    start: start.slice(0, 10),
    end: new Date(Date.parse(start) + (days - 1) * DAY).toISOString().slice(0, 10)
});

/**
 * Writes the test invoice, or rewrites the one a replaced scenario owned (it keeps its id). The invoice is labelled
 * test, so every payment entry point refuses it (lib/billing/payments.ts).
 */
export async function writeInvoice(trx: Knex.Transaction, source: InvoiceSource, replacing: string | null, now: string): Promise<ManifestEntry[]> {
    const owner = await trx<{ user_id: string; project_id: string; role: string; created_at: string }>('memberships').where({ project_id: source.projectId, role: 'owner' }).orderBy('created_at').first('user_id');
    if (!owner) {
        throw Boom.conflict('The project has no owner to bill');
    }

    const priced = await invoiceLines(trx, source);
    if (!priced.lines.length) {
        throw Boom.conflict('The source scenarios\' usage is missing: there is nothing to invoice');
    }

    const period = periodOf(source.start, source.days);
    const fields = { currency: priced.currency, lines: JSON.stringify(priced.lines), subtotal: priced.total, credit_applied: 0, total: priced.total, updated_at: now };
    if (replacing) {
        const updated = await trx('invoices').where({ id: replacing, test: true, project_id: source.projectId, period_start: period.start }).update(fields);
        if (!updated) {
            throw Boom.conflict('The invoice of the replaced scenario is gone or is not a test invoice');
        }

        return [{ collection: 'invoices', recordId: replacing }];
    }

    const id = newId('inv');
    await trx('invoices').insert({
        id, project_id: source.projectId, account_id: owner.user_id, period_start: period.start, period_end: period.end, status: 'open', test: true,
        created_at: now, ...fields
    });
    return [{ collection: 'invoices', recordId: id }];
}
