import * as Boom from '@hapi/boom';
import type { Knex } from 'knex';

import type { DatabaseConfig } from '../db/knex';
import { isUniqueViolation } from '../db/errors';
import { newId } from '../ids';
import { runChecks, CHECKS, type Check, type CheckResult, type StoredRecord } from './assertions';
import { openDisposable, refuseOutsideReferences } from './databases';
import { deleteUsage, writeInvoice, writeUsage, type ManifestEntry } from './dashboard';
import { checkDashboard, dashboardChecks, invoiceSources, refuseDashboardReferences, type InvoiceSources } from './dashboard-scenarios';
import { DAY, LIMITS, limitGenerated, resolvePlan, type Actor, type RunRow, type ScenarioRow } from './plans';
import { checkEnvironment, DASHBOARD_TEMPLATES, type CallGate, type TestDataEnvironment } from './gates';
import { canonicalJson, sha256 } from './random';
import { allowedFields, MODES, TEMPLATES, templateNamed, type GenRecord, type Plan, type Template } from './templates';

// Test-data scenarios (docs/test-data.md): an immutable plan with its digest; an apply that runs once per
// idempotency key and ends ready or failed, recording a manifest of what it wrote before writing it; behavioral
// advances of logical time; assertions over the stored records; and a reset through the manifest that refuses
// when something outside the scenario still points at its records, or when its order is not kept.

export const LEASE_MS = 5 * 60_000;




export interface ScenariosOptions {
    knex: Knex;
    gate: CallGate;
    database: DatabaseConfig;                                   // the API's, beside which disposable databases live
    dataDir: string;
    clock?: () => Date;
    leaseMs?: number;
}

/** A failure an apply reports as its code: never a message from inside (which may name a path or a value). */
class SafeFailure extends Error {
    constructor(readonly code: string) {
        super(code);
    }
}


export class Scenarios {
    private readonly disposables = new Map<string, Promise<Knex>>();
    private readonly knex: Knex;
    private readonly clock: () => Date;

    constructor(private readonly options: ScenariosOptions) {
        this.knex = options.knex;
        this.clock = options.clock ?? (() => new Date());
    }

    capabilities() {
        const environments = Object.keys(this.options.gate.config.environments);
        return {
            templates: TEMPLATES.map((template) => ({
                name: template.name, version: template.version, description: template.description,
                modes: DASHBOARD_TEMPLATES.includes(template.name) ? ['historical'] : MODES, overrides: template.fields, defaults: template.defaults
            })),
            modes: MODES, checks: CHECKS, limits: LIMITS, environments
        };
    }

    async close(): Promise<void> {
        for (const pending of this.disposables.values()) {
            await (await pending.catch(() => null))?.destroy();
        }
    }

    private disposable(name: string): Promise<Knex> {
        let pending = this.disposables.get(name);
        if (!pending) {
            pending = openDisposable(this.options.database, this.options.dataDir, name);
            pending.catch(() => this.disposables.delete(name));
            this.disposables.set(name, pending);
        }

        return pending;
    }

    // ---- plan

    async plan(actor: Actor, input: Record<string, unknown>) {
        const template = templateNamed(String(input.template));
        if (!template) {
            throw Boom.badRequest(`template must be one of ${TEMPLATES.map((item) => item.name).join(', ')}`);
        }

        const unsupported = Object.keys(input).filter((key) => !allowedFields(template).has(key));
        if (unsupported.length) {
            throw Boom.badRequest(`${unsupported.map((key) => `"${key}"`).join(', ')} ${unsupported.length > 1 ? 'are' : 'is'} not supported by template ${template.name}`);
        }

        const entry = checkEnvironment(this.options.gate, String(input.environment), template.name);
        const open = await this.knex('test_scenarios').where({ actor_id: actor.userId, environment: input.environment }).whereNot('status', 'reset').count({ n: '*' }).first();
        if (Number(open?.n ?? 0) >= LIMITS.maxOpenScenarios) {
            throw Boom.conflict(`At most ${LIMITS.maxOpenScenarios} scenarios that are not reset per actor and environment: reset one first`);
        }

        const plan = resolvePlan(template, input, this.clock());
        const counted = template.generate ? limitGenerated(template, plan) : await checkDashboard(this.knex, actor, template, plan, this.clock());
        const policy = this.policy(entry);
        const digest = sha256(canonicalJson({ plan, generatorVersion: template.version, policy }));
        const now = this.clock().toISOString();
        const id = newId('tsc');
        await this.knex.transaction(async (trx) => {
            await trx('test_scenarios').insert({
                id, actor_id: actor.userId, environment: plan.environment, template: template.name, mode: plan.mode, generator_version: template.version,
                plan: canonicalJson(plan), policy: canonicalJson(policy), digest, status: 'planned', revision: 0, logical_time: null,
                project_id: plan.projectId ?? null, period_start: DASHBOARD_TEMPLATES.includes(template.name) ? plan.start : null, superseded_by: null, created_at: now, updated_at: now
            });
            for (const source of plan.sourceScenarioId ? [plan.sourceScenarioId, ...plan.additionalSourceScenarioIds ?? []] : []) {
                await trx('test_scenario_sources').insert({ scenario_id: id, source_id: source });
            }
        });
        return { scenarioId: id, digest, generatorVersion: template.version, status: 'planned', revision: 0, plan, ...counted };
    }

    // ---- reading

    private async load(actor: Actor, id: string): Promise<ScenarioRow> {
        const row = await this.knex<ScenarioRow>('test_scenarios').where({ id, actor_id: actor.userId }).first();
        if (!row) {
            throw Boom.notFound('Scenario not found');
        }

        return row;
    }

    private async view(row: ScenarioRow) {
        const template = templateNamed(row.template);
        const last = await this.knex<RunRow>('test_scenario_runs').where({ scenario_id: row.id }).orderBy('created_at', 'desc').orderBy('id', 'desc').first();
        return {
            scenarioId: row.id, environment: row.environment, template: row.template, mode: row.mode, generatorVersion: Number(row.generator_version),
            currentGenerator: template?.version === Number(row.generator_version), status: row.status, superseded: row.status === 'superseded',
            supersededBy: row.superseded_by, revision: Number(row.revision), digest: row.digest, logicalTime: row.logical_time, plan: JSON.parse(row.plan) as Plan,
            lastRun: last ? { runId: last.id, action: last.action, status: last.status, failureCode: last.failure_code } : null,
            createdAt: row.created_at, updatedAt: row.updated_at
        };
    }

    /** The scenario and a page of its manifest; a run whose lease expired is reported (and recorded) failed. */
    async get(actor: Actor, id: string, page: { limit: number; cursor?: number }) {
        let row = await this.load(actor, id);
        const now = this.clock().toISOString();
        const expired = await this.knex<RunRow>('test_scenario_runs').where({ scenario_id: id, status: 'running' }).where('lease_until', '<', now).select('id');
        if (expired.length) {
            await this.knex('test_scenario_runs').whereIn('id', expired.map((run) => run.id)).update({ status: 'failed', failure_code: 'lease_expired', finished_at: now });
            await this.knex('test_scenarios').where({ id, status: 'running' }).update({ status: 'failed', updated_at: now });
            row = await this.load(actor, id);
        }

        const items = await this.knex('test_scenario_manifest').where({ scenario_id: id }).where('seq', '>', page.cursor ?? 0).orderBy('seq').limit(page.limit + 1);
        const more = items.length > page.limit;
        const shown = items.slice(0, page.limit).map((item: Record<string, unknown>) => ({ seq: Number(item.seq), location: item.location, collection: item.collection, recordId: item.record_id }));
        return { ...await this.view(row), manifest: { items: shown, next: more ? shown.at(-1)!.seq : null } };
    }

    // ---- runs

    /** The run an idempotency key already names: its replay, or a conflict when it belonged to another request. */
    private async replay(actor: Actor, environment: string, key: string, scenarioId: string, action: string) {
        const run = await this.knex<RunRow>('test_scenario_runs').where({ actor_id: actor.userId, environment, idempotency_key: key }).first();
        if (!run) {
            return null;
        }

        if (run.scenario_id !== scenarioId || run.action !== action) {
            throw Boom.conflict('idempotencyKey was used for another request: use a new key');
        }

        const row = await this.load(actor, scenarioId);
        return { runId: run.id, action: run.action, status: run.status, failureCode: run.failure_code, replayed: true, superseded: row.status === 'superseded', scenario: await this.view(row) };
    }

    private async startRun(actor: Actor, row: ScenarioRow, key: string, action: string): Promise<string> {
        const id = newId('tsr');
        const now = this.clock();
        try {
            await this.knex('test_scenario_runs').insert({
                id, scenario_id: row.id, actor_id: actor.userId, environment: row.environment, action, idempotency_key: key, status: 'running', failure_code: null,
                lease_until: new Date(now.getTime() + (this.options.leaseMs ?? LEASE_MS)).toISOString(), created_at: now.toISOString(), finished_at: null
            });
        }
        catch (err) {
            throw isUniqueViolation(err) ? Boom.conflict('idempotencyKey is being used by a request in progress') : err;
        }

        return id;
    }

    private async finishRun(runId: string, row: ScenarioRow, outcome: { status: string; failureCode?: string; logicalTime?: string | null; supersede?: string }): Promise<void> {
        const now = this.clock().toISOString();
        await this.knex.transaction(async (trx) => {
            await trx('test_scenario_runs').where({ id: runId }).update({ status: outcome.status === 'failed' ? 'failed' : 'ready', failure_code: outcome.failureCode ?? null, finished_at: now });
            await trx('test_scenarios').where({ id: row.id }).update({
                status: outcome.status, revision: Number(row.revision) + 1, updated_at: now, ...(outcome.logicalTime !== undefined ? { logical_time: outcome.logicalTime } : {})
            });
        });
    }

    private async answer(actor: Actor, runId: string, scenarioId: string) {
        const run = await this.knex<RunRow>('test_scenario_runs').where({ id: runId }).first();
        const row = await this.load(actor, scenarioId);
        return { runId, action: run!.action, status: run!.status, failureCode: run!.failure_code, replayed: false, superseded: row.status === 'superseded', scenario: await this.view(row) };
    }

    /** The policy snapshot a plan is made under: the limits, the environment's entry and the lease. */
    private policy(entry: TestDataEnvironment) {
        return { limits: LIMITS, environment: entry, leaseMs: this.options.leaseMs ?? LEASE_MS };
    }

    /** The scenario's template, when its generator version and policy snapshot are still current (else plan again). */
    private current(row: ScenarioRow, what: string): Template {
        const template = templateNamed(row.template);
        if (!template || template.version !== Number(row.generator_version)) {
            throw Boom.conflict(`The scenario was planned with generator version ${row.generator_version}, no longer current: it can be inspected and reset, not ${what}; plan it again`);
        }

        if (canonicalJson(this.policy(checkEnvironment(this.options.gate, row.environment, row.template))) !== row.policy) {
            throw Boom.conflict(`The policy (limits or the environment's settings) changed since the scenario was planned: it can be inspected and reset, not ${what}; plan it again`);
        }

        return template;
    }

    async apply(actor: Actor, args: { scenarioId: string; digest: string; environment: string; idempotencyKey: string }) {
        const replayed = await this.replay(actor, args.environment, args.idempotencyKey, args.scenarioId, 'apply');
        if (replayed) {
            return replayed;
        }

        const row = await this.load(actor, args.scenarioId);
        if (row.environment !== args.environment) {
            throw Boom.badRequest(`environment must be the scenario's own (${row.environment})`);
        }

        checkEnvironment(this.options.gate, row.environment, row.template);
        if (row.digest !== args.digest) {
            throw Boom.conflict('digest does not match the stored plan: apply the digest test_scenario_plan returned');
        }

        const template = this.current(row, 'applied');
        if (row.status !== 'planned') {
            throw Boom.conflict(`The scenario is ${row.status}: a plan is applied once (reset it and plan again)`);
        }

        const plan = JSON.parse(row.plan) as Plan;
        const replacing = plan.replacesInvoiceScenarioId ? await this.load(actor, plan.replacesInvoiceScenarioId) : null;
        const sources = template.name === 'dashboard_invoice' ? await invoiceSources(this.knex, actor, plan, replacing) : null;
        const runId = await this.startRun(actor, row, args.idempotencyKey, 'apply');
        await this.knex('test_scenarios').where({ id: row.id }).update({ status: 'running', updated_at: this.clock().toISOString() });
        try {
            if (template.generate) {
                const logical = plan.mode === 'behavioral' ? plan.start : new Date(Date.parse(plan.start) + plan.days * DAY).toISOString();
                await this.writeGenerated(row, template.generate(plan).filter((record) => record.at <= logical));
                await this.finishRun(runId, row, { status: 'ready', logicalTime: logical });
            }
            else if (sources) {
                await this.applyInvoice(row, runId, sources, replacing);
            }
            else {
                await this.knex.transaction(async (trx) => this.recordManifest(trx, row.id, 'primary', await writeUsage(trx, row.id, plan)));
                await this.finishRun(runId, row, { status: 'ready', logicalTime: new Date(Date.parse(plan.start) + plan.days * DAY).toISOString() });
            }
        }
        catch (err) {
            await this.finishRun(runId, row, { status: 'failed', failureCode: err instanceof SafeFailure ? err.code : Boom.isBoom(err) ? 'refused' : 'write_failed' });
        }

        return this.answer(actor, runId, row.id);
    }

    /** The invoice, and for a replacement the supersession of the old scenario, in one transaction. */
    private async applyInvoice(row: ScenarioRow, runId: string, sources: InvoiceSources, replacing: ScenarioRow | null) {
        const now = this.clock().toISOString();
        await this.knex.transaction(async (trx) => {
            if (replacing) {
                const moved = await trx('test_scenarios').where({ id: replacing.id, status: 'ready' }).update({ status: 'superseded', superseded_by: row.id, revision: Number(replacing.revision) + 1, updated_at: now });
                if (!moved) {
                    throw Boom.conflict('The replaced scenario changed meanwhile');
                }

                await trx('test_scenario_manifest').where({ scenario_id: replacing.id }).update({ scenario_id: row.id });
                await writeInvoice(trx, sources, sources.owned, now);
            }
            else {
                await this.recordManifest(trx, row.id, 'primary', await writeInvoice(trx, sources, null, now));
            }
        });
        await this.finishRun(runId, row, { status: 'ready', logicalTime: new Date(Date.parse(sources.start) + sources.days * DAY).toISOString() });
    }

    private async recordManifest(trx: Knex | Knex.Transaction, scenarioId: string, location: string, entries: readonly ManifestEntry[]): Promise<void> {
        const now = this.clock().toISOString();
        const rows = entries.map((entry) => ({ scenario_id: scenarioId, location, collection: entry.collection, record_id: entry.recordId, created_at: now }));
        for (let i = 0; i < rows.length; i += 200) {
            await trx('test_scenario_manifest').insert(rows.slice(i, i + 200));
        }
    }

    /** Generic records: named in the manifest first (so a failed write leaves nothing unnamed), then written in one transaction. */
    private async writeGenerated(row: ScenarioRow, records: readonly GenRecord[]): Promise<void> {
        const known = new Set<string>(await this.knex('test_scenario_manifest').where({ scenario_id: row.id }).pluck('record_id'));
        const fresh = records.filter((record) => !known.has(`${row.id}.${record.key}`));
        await this.recordManifest(this.knex, row.id, 'disposable', fresh.map((record) => ({ collection: record.collection, recordId: `${row.id}.${record.key}` })));
        const database = await this.disposable(checkEnvironment(this.options.gate, row.environment, row.template).database).catch(() => {
            throw new SafeFailure('database_unavailable');
        });
        const rows = fresh.map((record) => ({
            id: `${row.id}.${record.key}`, scenario_id: row.id, collection: record.collection, ref_id: record.ref === null ? null : `${row.id}.${record.ref}`, at: record.at, body: JSON.stringify(record.body)
        }));
        await database.transaction(async (trx) => {
            for (let i = 0; i < rows.length; i += 200) {
                await trx('test_records').insert(rows.slice(i, i + 200));
            }
        }).catch(() => {
            throw new SafeFailure('write_failed');
        });
    }

    async advance(actor: Actor, args: { scenarioId: string; environment: string; revision: number; idempotencyKey: string; to?: string; hours?: number }) {
        const replayed = await this.replay(actor, args.environment, args.idempotencyKey, args.scenarioId, 'advance');
        if (replayed) {
            return replayed;
        }

        const row = await this.revised(actor, args);
        const template = this.current(row, 'advanced');
        if (row.mode !== 'behavioral' || !template.generate) {
            throw Boom.conflict('Only a behavioral scenario advances: a historical one holds its whole period already');
        }

        if (row.status !== 'ready') {
            throw Boom.conflict(`The scenario is ${row.status}: only a ready scenario advances`);
        }

        const plan = JSON.parse(row.plan) as Plan;
        const end = Date.parse(plan.start) + plan.days * DAY;
        const target = args.to ? Date.parse(args.to) : Date.parse(row.logical_time!) + (args.hours ?? 24) * 3600_000;
        if (!(target > Date.parse(row.logical_time!)) || target > end) {
            throw Boom.badRequest(`The target time must be after the logical time ${row.logical_time} and no later than the plan's end ${new Date(end).toISOString()}`);
        }

        const logical = new Date(target).toISOString();
        const runId = await this.startRun(actor, row, args.idempotencyKey, 'advance');
        try {
            await this.writeGenerated(row, template.generate(plan).filter((record) => record.at <= logical));
            await this.finishRun(runId, row, { status: 'ready', logicalTime: logical });
        }
        catch (err) {
            await this.finishRun(runId, row, { status: 'failed', failureCode: err instanceof SafeFailure ? err.code : 'write_failed' });
        }

        return this.answer(actor, runId, row.id);
    }

    private async revised(actor: Actor, args: { scenarioId: string; environment: string; revision: number }): Promise<ScenarioRow> {
        const row = await this.load(actor, args.scenarioId);
        if (row.environment !== args.environment) {
            throw Boom.badRequest(`environment must be the scenario's own (${row.environment})`);
        }

        if (Number(row.revision) !== args.revision) {
            throw Boom.conflict(`revision ${args.revision} is not the scenario's current revision ${row.revision}: read it with test_scenario_get`);
        }

        return row;
    }

    // ---- assert

    async assert(actor: Actor, id: string, checks: readonly Check[] | undefined, expectedState?: string): Promise<{ scenarioId: string; passed: boolean; logicalTime: string | null; results: CheckResult[] }> {
        const row = await this.load(actor, id);
        const wanted = checks?.length ? checks : CHECKS.filter((check) => check !== 'payment_state' || expectedState);
        if (wanted.includes('payment_state') && !expectedState) {
            throw Boom.badRequest('expectedState is required with the payment_state check');
        }

        const results = DASHBOARD_TEMPLATES.includes(row.template) ? await dashboardChecks(this.knex, row, wanted) : runChecks(await this.stored(row), wanted, expectedState);
        return { scenarioId: id, passed: results.every((item) => item.outcome !== 'fail') && results.some((item) => item.outcome === 'pass'), logicalTime: row.logical_time, results };
    }

    private async stored(row: ScenarioRow): Promise<StoredRecord[]> {
        const database = await this.disposable(checkEnvironment(this.options.gate, row.environment, row.template).database);
        const rows = await database('test_records').where({ scenario_id: row.id }).orderBy('id');
        return rows.map((item: Record<string, string | null>) => ({ id: item.id!, collection: item.collection!, refId: item.ref_id, at: item.at!, body: JSON.parse(item.body!) as Record<string, unknown> }));
    }

    // ---- reset

    async reset(actor: Actor, args: { scenarioId: string; environment: string; revision: number; idempotencyKey: string }) {
        const replayed = await this.replay(actor, args.environment, args.idempotencyKey, args.scenarioId, 'reset');
        if (replayed) {
            return replayed;
        }

        const row = await this.revised(actor, args);
        if (row.status === 'reset' || row.status === 'running') {
            throw Boom.conflict(`The scenario is ${row.status}`);
        }

        const blocking = await this.knex<{ id: string }>('test_scenario_sources').join('test_scenarios', 'test_scenarios.id', 'test_scenario_sources.scenario_id')
            .where('test_scenario_sources.source_id', row.id).whereIn('test_scenarios.status', ['ready', 'running', 'failed']).first<{ id: string } | undefined>('test_scenarios.id');
        if (blocking) {
            throw Boom.conflict(`Invoice scenario ${blocking.id} was made from this one: reset it first`);
        }

        const manifest: Array<{ location: string; collection: string; record_id: string }> = await this.knex('test_scenario_manifest').where({ scenario_id: row.id }).select('location', 'collection', 'record_id');
        const ids = manifest.map((entry) => entry.record_id);
        if (DASHBOARD_TEMPLATES.includes(row.template)) {
            await refuseDashboardReferences(this.knex, row, ids);
        }
        else if (ids.length) {
            await refuseOutsideReferences(await this.disposable(checkEnvironment(this.options.gate, row.environment, row.template).database), row.id, ids);
        }

        const runId = await this.startRun(actor, row, args.idempotencyKey, 'reset');
        if (row.template === 'dashboard_usage') {
            await this.knex.transaction((trx) => deleteUsage(trx, row.project_id!, ids));
        }
        else if (row.template === 'dashboard_invoice') {
            await this.knex('invoices').whereIn('id', ids).where({ test: true }).delete();
        }
        else if (ids.length) {
            const database = await this.disposable(checkEnvironment(this.options.gate, row.environment, row.template).database);
            await database.transaction(async (trx) => {
                for (let i = 0; i < ids.length; i += 500) {
                    await trx('test_records').whereIn('id', ids.slice(i, i + 500)).where({ scenario_id: row.id }).delete();
                }
            });
        }

        await this.finishRun(runId, row, { status: 'reset' });
        return this.answer(actor, runId, row.id);
    }
}


