import type { Knex } from 'knex';

import { PLANS } from '../plans';
import { Deployment } from '../resources/deployments';
import type { Metrics } from '../resources/metrics';
import type { RuntimeResource } from '../resources/model';
import type { Outcome } from './limits';

// Health, recorded dependencies and usage insights of one resource: each from what is recorded or measured, and an
// explicit outcome where nothing is.

/** A runtime resource's health from its state and its last deployments. */
export async function runtimeHealth(knex: Knex, resource: RuntimeResource) {
    const recent = await Deployment.query(knex).where('resource_id', resource.id).whereNull('review_app_id').orderBy('created_at', 'desc').orderBy('id', 'desc').limit(10);
    const latest = recent[0] ?? null;
    const failed = recent.filter((deployment) => deployment.status === 'failed').length;
    const verdict = !latest ? 'inconclusive'
        : !resource.liveDeploymentId ? (latest.status === 'failed' ? 'failing' : 'starting')
            : latest.status === 'failed' ? 'degraded' : 'healthy';
    return {
        outcome: (latest ? 'ok' : 'inconclusive') as Outcome,
        ...(latest ? {} : { reason: 'nothing was ever deployed' }),
        verdict,
        status: resource.status,
        instances: resource.instances,
        liveDeploymentId: resource.liveDeploymentId,
        latestDeployment: latest ? { id: latest.id, status: latest.status, error: latest.error, createdAt: latest.createdAt } : null,
        recentFailures: failed,
        recentDeployments: recent.length
    };
}

const DATABASE_VERDICTS: Record<string, string> = { available: 'healthy', paused: 'paused', provisioning: 'starting', importing: 'busy', deleting: 'deleting', failed: 'failing' };

export function databaseHealth(row: { status: string; tier?: string; storageGiB?: number }) {
    return { outcome: 'ok' as Outcome, verdict: DATABASE_VERDICTS[row.status] ?? 'inconclusive', status: row.status };
}

/** What a runtime resource uses (linked databases) and what a database is used by: the recorded links only. */
export async function dependenciesOf(knex: Knex, resource: { type: string; id: string }) {
    if (resource.type === 'database') {
        const users = await knex('database_links').where('database_id', resource.id).orderBy('resource_name').select<Array<Record<string, string>>>('resource_type', 'resource_name', 'created_at');
        return { outcome: 'ok' as Outcome, source: 'recorded_links', uses: [], usedBy: users.map((row) => ({ type: row.resource_type, name: row.resource_name, linkedAt: row.created_at })) };
    }

    const uses = await knex('database_links as l').join('databases as d', 'd.id', 'l.database_id').where({ 'l.resource_type': resource.type, 'l.resource_id': resource.id })
        .orderBy('d.name').select<Array<Record<string, string>>>('d.name', 'd.status', 'l.created_at');
    return { outcome: 'ok' as Outcome, source: 'recorded_links', uses: uses.map((row) => ({ type: 'database', name: row.name, status: row.status, linkedAt: row.created_at })), usedBy: [] };
}

const DAY_MS = 86_400_000;

/** CPU and memory over the last `days` against the plan's allocation: a verdict, or unavailable / inconclusive. */
export async function usageInsights(metrics: Metrics, resource: RuntimeResource, observes: (metric: 'cpu-usage' | 'memory-usage') => boolean, days: number, now = Date.now()) {
    const plan = PLANS[resource.plan] ?? null;
    const range = { start: new Date(now - days * DAY_MS), end: new Date(now), stepSeconds: 3600 };
    const allocation = plan ? { plan: resource.plan, instances: resource.instances, cpu: plan.cpu, memoryMiB: plan.memoryMiB } : { plan: resource.plan, instances: resource.instances };
    const base = { period: { start: range.start.toISOString(), end: range.end.toISOString(), days }, allocation };
    if (!observes('cpu-usage') && !observes('memory-usage')) {
        return { outcome: 'unavailable' as Outcome, reason: 'the runtime driver measures neither CPU nor memory', ...base };
    }

    const stats = async (metric: 'cpu-usage' | 'memory-usage') => {
        if (!observes(metric)) {
            return { source: 'unavailable', samples: 0, average: null, peak: null };
        }

        try {
            const { series, unit } = await metrics.series(resource.id, metric, range, true);
            const values = series.map((point) => point.value);
            return { source: 'measured', unit, samples: values.length, average: values.length ? values.reduce((a, b) => a + b, 0) / values.length : null, peak: values.length ? Math.max(...values) : null };
        }
        catch (err) {
            return { source: 'error', error: (err as Error).message, samples: 0, average: null, peak: null };
        }
    };

    const cpu = await stats('cpu-usage');
    const memory = await stats('memory-usage');
    if (!cpu.samples && !memory.samples) {
        return { outcome: 'inconclusive' as Outcome, reason: 'no samples in the period', ...base, cpu, memory };
    }

    const memoryShare = (value: number | null) => value !== null && plan ? value / (plan.memoryMiB * 1024 * 1024) * 100 : null;
    const cpuPeak = cpu.peak;
    const memoryPeak = memoryShare(memory.peak);
    const verdict = (cpuPeak ?? 0) > 90 || (memoryPeak ?? 0) > 90 ? 'undersized'
        : (cpu.average ?? 100) < 10 && (memoryShare(memory.average) ?? 100) < 25 ? 'oversized' : 'fits';
    return { outcome: 'ok' as Outcome, verdict, ...base, cpu, memory: { ...memory, peakPercentOfPlan: memoryPeak } };
}
