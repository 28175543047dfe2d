import * as Boom from '@hapi/boom';
import type { Knex } from 'knex';

import type { Check, CheckResult } from './assertions';
import { fixturePlan, periodOf, usageRows } from './dashboard';
import { DAY, type Actor, type ScenarioRow } from './plans';
import type { Plan, Template } from './templates';

// The dashboard scenarios' own rules: a usage plan's project and past period; an invoice plan's sources (ready
// dashboard_usage scenarios of the caller, one project, the exact period), the invoice that blocks it, and the
// replaced scenario; their checks over the API's own rows; and what outside them blocks a reset.

export interface InvoiceSources {
    projectId: string;
    start: string;
    days: number;
    resourceIds: string[];
    owned: string | null;                                       // the invoice the replaced scenario owns
}

const input = (start: string | undefined) => (start && !Number.isNaN(Date.parse(start)) ? start : null);

/** Dashboard plans: the project and period for usage; the sources and the blocking invoice for an invoice. */
export async function checkDashboard(knex: Knex, actor: Actor, template: Template, plan: Plan, now: Date) {
    if (template.name === 'dashboard_usage') {
        if (!plan.projectId) {
            throw Boom.badRequest('projectId is required for dashboard_usage');
        }

        await member(knex, actor, plan.projectId);
        fixturePlan(plan.cpuCores!, plan.memoryMiB!);
        if (Date.parse(plan.start) + plan.days * DAY > now.getTime()) {
            throw Boom.badRequest('The whole period (start plus days) must be in the past');
        }

        const steps = plan.days * 1440 / plan.intervalMinutes!;
        return { records: steps, usageSteps: steps };
    }

    await invoiceSources(knex, actor, plan);
    return { records: 1, usageSteps: 0 };
}

export async function member(knex: Knex, actor: Actor, projectId: string): Promise<void> {
    const membership: unknown = await knex('memberships').where({ project_id: projectId, user_id: actor.userId }).whereIn('role', ['owner', 'admin', 'developer']).first();
    if (!membership) {
        throw Boom.notFound('Project not found');
    }
}

/** An invoice plan's sources, checked: ready dashboard_usage scenarios of the caller, one project, the exact period. */
export async function invoiceSources(knex: Knex, actor: Actor, plan: Plan, replacing: ScenarioRow | null = null): Promise<InvoiceSources> {
    if (!plan.sourceScenarioId || input(plan.start) === null) {
        throw Boom.badRequest('sourceScenarioId and the source\'s exact start are required for dashboard_invoice');
    }

    const ids = [plan.sourceScenarioId, ...plan.additionalSourceScenarioIds ?? []];
    if (new Set(ids).size !== ids.length) {
        throw Boom.badRequest('additionalSourceScenarioIds repeats a source');
    }

    const sources = [];
    for (const id of ids) {
        const source = await knex<ScenarioRow>('test_scenarios').where({ id, actor_id: actor.userId }).first();
        if (!source || source.template !== 'dashboard_usage' || source.status !== 'ready') {
            throw Boom.conflict(`Source scenario ${id} is not a ready dashboard_usage scenario of yours`);
        }

        const sourcePlan = JSON.parse(source.plan) as Plan;
        if (sourcePlan.start !== plan.start || sourcePlan.days !== plan.days || source.project_id !== (sources[0]?.project_id ?? source.project_id)) {
            throw Boom.conflict(`Source scenario ${id} has another project, start or days: every source must share the exact period and project`);
        }

        sources.push(source);
    }

    plan.projectId = sources[0].project_id!;
    const period = periodOf(plan.start, plan.days);
    let owned: string | null = null;
    if (plan.replacesInvoiceScenarioId) {
        const old = replacing ?? await knex<ScenarioRow>('test_scenarios').where({ id: plan.replacesInvoiceScenarioId, actor_id: actor.userId }).first();
        if (!old || old.template !== 'dashboard_invoice' || old.status !== 'ready' || old.project_id !== plan.projectId || old.period_start !== plan.start) {
            throw Boom.conflict('replacesInvoiceScenarioId must name your current (ready, not superseded) test invoice scenario of the same project and period');
        }

        owned = (await knex<{ record_id: string; scenario_id: string; collection: string }>('test_scenario_manifest').where({ scenario_id: old.id, collection: 'invoices' }).first('record_id'))?.record_id ?? null;
    }

    const existing = await knex<{ id: string; test: boolean; project_id: string; period_start: string }>('invoices').where({ project_id: plan.projectId, period_start: period.start }).first('id', 'test');
    if (existing && existing.id !== owned) {
        throw Boom.conflict(`An invoice (${existing.test ? 'test' : 'real'}) already exists for this project and period start: it blocks a test invoice`);
    }

    const resourceIds = [];
    for (const source of sources) {
        const manifest = await knex('test_scenario_manifest').where({ scenario_id: source.id }).pluck('record_id');
        if (!(await usageRows(knex, plan.projectId, manifest)).length) {
            throw Boom.conflict(`Source scenario ${source.id} has no usage left to invoice`);
        }

        resourceIds.push(...new Set(manifest.map((id: string) => id.split('@')[0])));
    }

    return { projectId: plan.projectId, start: plan.start, days: plan.days, resourceIds, owned };
}

/** Dashboard fixtures: every manifest row exists (relationships) and the usage or invoice adds up (usage_conserved). */
export async function dashboardChecks(knex: Knex, row: ScenarioRow, checks: readonly Check[]): Promise<CheckResult[]> {
    const plan = JSON.parse(row.plan) as Plan;
    const manifest = await knex<{ record_id: string; scenario_id: string }>('test_scenario_manifest').where({ scenario_id: row.id }).pluck('record_id');
    let present = 0;
    let conserved = false;
    if (row.template === 'dashboard_usage') {
        const rows = await usageRows(knex, row.project_id!, manifest);
        present = rows.length;
        conserved = rows.reduce((sum, item) => sum + Number(item.instance_ms), 0) === plan.days * DAY && present === manifest.length;
    }
    else {
        const invoice = manifest.length ? await knex<{ id: string; test: boolean; lines: string; subtotal: number; total: number }>('invoices').where({ id: manifest[0] }).first() : null;
        present = invoice?.test ? 1 : 0;
        const lines = invoice ? JSON.parse(invoice.lines) as Array<{ amount: number }> : [];
        conserved = !!invoice && lines.reduce((sum, line) => sum + line.amount, 0) === Number(invoice.subtotal) && Number(invoice.subtotal) === Number(invoice.total);
    }

    return checks.map((check): CheckResult => {
        if (check === 'relationships') {
            return { check, outcome: present === manifest.length && present > 0 ? 'pass' : 'fail', detail: `${present} of ${manifest.length} manifest records present` };
        }

        if (check === 'usage_conserved') {
            return { check, outcome: conserved ? 'pass' : 'fail', detail: conserved ? 'the records add up' : 'the records do not add up' };
        }

        return { check, outcome: 'unsupported', detail: `${row.template} holds no records for ${check}` };
    });
}

export async function refuseDashboardReferences(knex: Knex, row: ScenarioRow, ids: readonly string[]): Promise<void> {
    if (row.template !== 'dashboard_invoice' || !ids.length) {
        return;
    }

    const credit: unknown = await knex('credit_entries').whereIn('reference', ids).first('id');
    const paid: unknown = await knex('invoices').whereIn('id', ids).where((query) => {
        void query.whereNot('status', 'open').orWhere('test', false);
    }).first('id');
    if (credit || paid) {
        throw Boom.conflict('The test invoice is referenced outside the scenario (a credit entry, or a payment state): deletion is blocked');
    }
}