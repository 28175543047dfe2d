import * as Boom from '@hapi/boom';

import type { MetricName } from '../../../lib/runtime/driver';
import type { App } from '../models/app';
import { Deployment } from '../models/deployment';
import type { AppsContext } from './context';
import { likePattern } from './logs';

// Metrics, traces, deployment statistics and search. Metrics come from what a driver or the edge measured; when the
// driver observes nothing (`records`), the series is empty and its source says `unavailable`: nothing is invented.
export const METRIC_UNITS: Readonly<Record<MetricName, string>> = {
    'request-count': 'requests',
    'response-duration': 'milliseconds',
    'cpu-usage': 'percent',
    'memory-usage': 'bytes'
};

const SUMMED: readonly MetricName[] = ['request-count'];
const MAX_POINTS = 1000;

export interface Range {
    start: Date;
    end: Date;
    stepSeconds: number;
}

export class ObservabilityService {
    constructor(private readonly context: AppsContext) { }

    async metric(app: App, metric: MetricName, range: Range) {
        const base = { metric, unit: METRIC_UNITS[metric], step: range.stepSeconds, startDate: range.start.toISOString(), endDate: range.end.toISOString() };
        if (!this.context.driver.observes(metric)) {
            return { ...base, source: 'unavailable' as const, series: [] };
        }

        const points = await this.context.knex('metric_points').where({ resource_id: app.id, metric })
            .andWhere('timestamp', '>=', base.startDate).andWhere('timestamp', '<', base.endDate).orderBy('timestamp').limit(100_000)
            .select('timestamp', 'value') as Array<{ timestamp: string; value: number | string }>;
        const buckets = new Map<number, number[]>();
        for (const point of points) {
            const bucket = Math.floor((Date.parse(point.timestamp) - range.start.getTime()) / (range.stepSeconds * 1000));
            buckets.set(bucket, [...buckets.get(bucket) ?? [], Number(point.value)]);
        }

        const series = [...buckets.entries()].sort(([a], [b]) => a - b).map(([bucket, values]) => ({
            timestamp: new Date(range.start.getTime() + bucket * range.stepSeconds * 1000).toISOString(),
            value: SUMMED.includes(metric) ? values.reduce((sum, v) => sum + v, 0) : values.reduce((sum, v) => sum + v, 0) / values.length
        }));
        return { ...base, source: 'measured' as const, series };
    }

    async traces(app: App, filters: { since?: string; until?: string; traceId?: string; limit: number }) {
        const query = this.context.knex('spans').where('resource_id', app.id);
        if (filters.since) {
            query.andWhere('start_time', '>=', filters.since);
        }

        if (filters.until) {
            query.andWhere('start_time', '<=', filters.until);
        }

        if (filters.traceId) {
            query.andWhere('trace_id', filters.traceId);
        }

        const rows = await query.orderBy('start_time', 'desc').limit(filters.limit);
        return rows.map((row: Record<string, string | null>) => ({
            traceId: row.trace_id, spanId: row.span_id, parentSpanId: row.parent_span_id, name: row.name, kind: row.kind,
            startTime: row.start_time, endTime: row.end_time, durationMs: Date.parse(row.end_time!) - Date.parse(row.start_time!),
            status: { code: row.status_code, message: row.status_message }, attributes: JSON.parse(row.attributes!)
        }));
    }

    stats(deployment: Deployment) {
        const between = (from: string | null, to: string | null) => from && to ? Date.parse(to) - Date.parse(from) : null;
        const end = deployment.finishedAt;
        return {
            deploymentId: deployment.id,
            status: deployment.status,
            driver: deployment.driver,
            queuedAt: deployment.createdAt,
            buildingAt: deployment.buildingAt,
            deployingAt: deployment.deployingAt,
            finishedAt: end,
            durationsMs: {
                queued: between(deployment.createdAt, deployment.buildingAt ?? end),
                build: between(deployment.buildingAt, deployment.deployingAt ?? end),
                deploy: between(deployment.deployingAt, end),
                total: between(deployment.createdAt, end)
            }
        };
    }

    /** Build statistics over the app's finished deployments. */
    async buildStats(app: App) {
        const deployments = await Deployment.query(this.context.knex).where({ resource_id: app.id }).orderBy('created_at', 'desc').limit(500);
        const finished = deployments.filter((deployment) => deployment.finishedAt);
        const builds = finished.map((deployment) => deployment.buildingAt && deployment.deployingAt ? Date.parse(deployment.deployingAt) - Date.parse(deployment.buildingAt) : null)
            .filter((value): value is number => value !== null).sort((a, b) => a - b);
        const count = (status: string) => deployments.filter((deployment) => deployment.status === status).length;
        return {
            deployments: deployments.length,
            live: count('live'),
            succeeded: count('live') + count('superseded'),
            failed: count('failed'),
            inProgress: deployments.filter((deployment) => ['queued', 'building', 'deploying'].includes(deployment.status)).length,
            buildMs: builds.length ? {
                average: Math.round(builds.reduce((sum, value) => sum + value, 0) / builds.length),
                median: builds[Math.floor(builds.length / 2)]!,
                max: builds[builds.length - 1]!
            } : null,
            lastDeployedAt: deployments[0]?.createdAt ?? null
        };
    }

    /** Deployments (by id, commit, branch or error), log lines and environment variable names matching the text. */
    async search(app: App, q: string, limit: number) {
        const pattern = likePattern(q);
        const like = (column: string) => [`lower(${column}) LIKE ? ESCAPE '\\'`, [pattern]] as const;
        const deployments = await this.context.knex('deployments').where('resource_id', app.id)
            .andWhere((w) => w.whereRaw(...like('id')).orWhereRaw(...like('commit_sha')).orWhereRaw(...like('branch')).orWhereRaw(...like('error')))
            .orderBy('created_at', 'desc').limit(limit).select('id', 'status', 'commit_sha', 'branch', 'created_at');
        const logs = await this.context.logs.query({ resourceId: app.id, q, limit });
        const names = await this.context.knex('app_env_vars').where('app_id', app.id).andWhereRaw(...like('name')).orderBy('name').limit(limit).pluck('name');
        return {
            query: q,
            deployments: deployments.map((row: Record<string, string | null>) => ({ id: row.id, status: row.status, commitSha: row.commit_sha, branch: row.branch, createdAt: row.created_at })),
            logs,
            environmentVariables: names
        };
    }
}

/** A metrics range from startDate/endDate (days) or since/until (times), with a step that keeps the series bounded. */
export function metricRange(query: { startDate?: string; endDate?: string; since?: string; until?: string; step?: number }): Range {
    const end = query.until ? new Date(query.until) : query.endDate ? new Date(Date.parse(`${query.endDate}T00:00:00.000Z`) + 86_400_000) : new Date();
    const start = query.since ? new Date(query.since) : query.startDate ? new Date(`${query.startDate}T00:00:00.000Z`) : new Date(end.getTime() - 3600_000);
    if (!(start < end)) {
        throw Boom.badRequest('The range must end after it starts');
    }

    const span = (end.getTime() - start.getTime()) / 1000;
    if (span > 31 * 86_400) {
        throw Boom.badRequest('A metrics range is at most 31 days');
    }

    const stepSeconds = query.step ?? Math.max(60, Math.ceil(span / 300 / 60) * 60);
    if (span / stepSeconds > MAX_POINTS) {
        throw Boom.badRequest(`"step" is too small for this range: at most ${MAX_POINTS} points`);
    }

    return { start, end, stepSeconds };
}
