import * as Boom from '@hapi/boom';
import Joi from 'joi';
import type { Knex } from 'knex';

import type { FastReader } from '../db/fast-reader';
import { fields } from '../validation';

// Metric series of any resource, keyed by resource id: a range from the query, a step that keeps the series
// bounded, and points bucketed in SQL (summed or averaged by the metric's definition). A series is `measured` when
// something observes the metric for this resource (the runtime driver, the edge); otherwise it is empty and
// `unavailable`: nothing is invented, and an empty measured series means nothing happened.
export interface MetricDefinition {
    unit: string;
    aggregate: 'sum' | 'avg';
}

export const METRICS = {
    'request-count': { unit: 'requests', aggregate: 'sum' },
    'response-duration': { unit: 'milliseconds', aggregate: 'avg' },
    'cpu-usage': { unit: 'percent', aggregate: 'avg' },
    'memory-usage': { unit: 'bytes', aggregate: 'avg' },
    'bandwidth': { unit: 'bytes', aggregate: 'sum' },
    'network-in': { unit: 'bytes', aggregate: 'sum' },
    'network-out': { unit: 'bytes', aggregate: 'sum' },
    'disk-usage': { unit: 'bytes', aggregate: 'avg' }
} as const satisfies Record<string, MetricDefinition>;

export type MetricName = keyof typeof METRICS;

const MAX_POINTS = 1000;
const MAX_RANGE_DAYS = 31;
const DAY_MS = 86_400_000;

export interface MetricsQuery {
    startDate?: string;
    endDate?: string;
    since?: Date;
    until?: Date;
    step?: number;
}

export const metricsQuery = Joi.object<MetricsQuery, true>({
    startDate: fields.day().description('First day of the range (YYYY-MM-DD, UTC).'),
    endDate: fields.day().description('Last day of the range, included (YYYY-MM-DD, UTC).'),
    since: fields.dateTime().description('Start of the range (ISO 8601).'),
    until: fields.dateTime().description('End of the range (ISO 8601).'),
    step: Joi.number().integer().min(60).max(86_400).description('Seconds per point (60 to 86400).')
}).oxor('startDate', 'since').oxor('endDate', 'until');

export interface Range {
    start: Date;
    end: Date;
    stepSeconds: number;
}

/** A range from startDate/endDate (days) or since/until (times), with a step that keeps the series bounded. */
export function metricRange(query: MetricsQuery, now = Date.now()): Range {
    const end = query.until ?? (query.endDate ? new Date(Date.parse(`${query.endDate}T00:00:00.000Z`) + DAY_MS) : new Date(now));
    const start = query.since ?? (query.startDate ? new Date(`${query.startDate}T00:00:00.000Z`) : new Date(end.getTime() - 3600_000));
    if (!(start < end)) {
        throw Boom.badRequest('The range must end after it starts');
    }

    const span = (end.getTime() - start.getTime()) / 1000;
    if (span > MAX_RANGE_DAYS * 86_400) {
        throw Boom.badRequest(`A metrics range is at most ${MAX_RANGE_DAYS} days`);
    }

    const stepSeconds = query.step ?? Math.max(60, Math.ceil(span / 300 / 60) * 60);
    if (span / stepSeconds > MAX_POINTS) {
        throw Boom.badRequest(`"step" is too small for this range: at most ${MAX_POINTS} points`);
    }

    return { start, end, stepSeconds };
}

export interface MetricPoint {
    resourceType: string;
    resourceId: string;
    metric: MetricName;
    at: number;                                                 // epoch milliseconds
    value: number;
}

export class Metrics {
    constructor(private readonly knex: Knex, private readonly reader: FastReader) { }

    async record(points: readonly MetricPoint[], db: Knex | Knex.Transaction = this.knex): Promise<void> {
        if (points.length) {
            await db('metric_points').insert(points.map((point) => ({
                resource_type: point.resourceType, resource_id: point.resourceId, metric: point.metric,
                timestamp: new Date(point.at).toISOString(), at: point.at, value: point.value
            })));
        }
    }

    async series(resourceId: string, metric: MetricName, range: Range, observed: boolean) {
        const definition: MetricDefinition = METRICS[metric];
        const base = { metric, unit: definition.unit, step: range.stepSeconds, startDate: range.start.toISOString(), endDate: range.end.toISOString() };
        if (!observed) {
            return { ...base, source: 'unavailable' as const, series: [] };
        }

        const stepMs = range.stepSeconds * 1000;
        const start = range.start.getTime();
        const rows = await this.reader.all<{ bucket: number | string; total: number | string; n: number | string }>(
            'SELECT CAST((at - ?) / ? AS INTEGER) AS bucket, SUM(value) AS total, COUNT(*) AS n FROM metric_points WHERE resource_id = ? AND metric = ? AND at >= ? AND at < ? GROUP BY 1 ORDER BY 1',
            [start, stepMs, resourceId, metric, start, range.end.getTime()]);
        const series = rows.map((row) => ({
            timestamp: new Date(start + Number(row.bucket) * stepMs).toISOString(),
            value: definition.aggregate === 'sum' ? Number(row.total) : Number(row.total) / Number(row.n)
        }));
        return { ...base, source: 'measured' as const, series };
    }
}
