import * as Crypto from 'node:crypto';

import * as Boom from '@hapi/boom';
import Joi from 'joi';
import type { Knex } from 'knex';

import { bulkInsert, type BulkColumn } from '../db/bulk-insert';
import type { FastReader } from '../db/fast-reader';
import { dialect } from '../db/knex';
import { limitTerm } from '../db/limit';
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
    value: number;                                              // one sample, or the sum of `samples` samples
    samples?: number;                                           // how many requests (or readings) the point sums (default 1)
}

/** What one flush of the edge's meter adds for one resource and UTC day: visitors (already hashed) and paths. */
export interface TrafficDay {
    resourceType: string;
    resourceId: string;
    day: string;                                                // YYYY-MM-DD, UTC
    visitors: readonly string[];
    paths: ReadonlyArray<{ path: string; requests: number; bytes: number }>;
}

const dayOf = (at: number) => new Date(at).toISOString().slice(0, 10);
const daysOf = (range: Range) => [dayOf(range.start.getTime()), dayOf(range.end.getTime() - 1)];

const POINT_COLUMNS: readonly BulkColumn[] = [
    { name: 'resource_type' }, { name: 'resource_id' }, { name: 'metric' }, { name: 'timestamp' },
    { name: 'at', pgType: 'bigint' }, { name: 'value', pgType: 'double precision' }, { name: 'samples', pgType: 'integer' }
];

export class Metrics {
    private salt: { day: string; value: string } | null = null;
    private readonly postgres: boolean;

    constructor(private readonly knex: Knex, private readonly reader: FastReader) {
        this.postgres = dialect(knex) === 'postgres';
    }

    async record(points: readonly MetricPoint[], db: Knex | Knex.Transaction = this.knex): Promise<void> {
        if (points.length) {
            await bulkInsert(db, 'metric_points', POINT_COLUMNS, points.map((point) => [
                point.resourceType, point.resourceId, point.metric, new Date(point.at).toISOString(), point.at, point.value, point.samples ?? 1
            ]));
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
            'SELECT CAST((at - ?) / ? AS INTEGER) AS bucket, SUM(value) AS total, SUM(samples) AS n FROM metric_points WHERE resource_id = ? AND metric = ? AND at >= ? AND at < ? GROUP BY 1 ORDER BY 1',
            [start, stepMs, resourceId, metric, start, range.end.getTime()]);
        const series = rows.map((row) => ({
            timestamp: new Date(start + Number(row.bucket) * stepMs).toISOString(),
            value: definition.aggregate === 'sum' ? Number(row.total) : Number(row.total) / Number(row.n)
        }));
        return { ...base, source: 'measured' as const, series };
    }

    /** The sum of a summed metric over the range (`request-count/total`). */
    async total(resourceId: string, metric: MetricName, range: Range, observed: boolean) {
        const base = { metric, unit: METRICS[metric].unit, startDate: range.start.toISOString(), endDate: range.end.toISOString() };
        if (!observed) {
            return { ...base, source: 'unavailable' as const, total: null };
        }

        const row = await this.reader.get<{ total: number | string | null }>('SELECT SUM(value) AS total FROM metric_points WHERE resource_id = ? AND metric = ? AND at >= ? AND at < ?',
            [resourceId, metric, range.start.getTime(), range.end.getTime()]);
        return { ...base, source: 'measured' as const, total: Number(row?.total ?? 0) };
    }

    /**
     * A visitor as the edge counts one: a hash of the day's salt, the resource, the address and the user agent. The
     * salt lives one day in the database (shared by every process) and is then deleted, so no one can link a hash
     * back to an address; no address is ever stored.
     */
    async visitor(resourceId: string, address: string, userAgent: string, at: number): Promise<string> {
        const day = dayOf(at);
        if (this.salt?.day !== day) {
            await this.knex('edge_salts').insert({ day, salt: Crypto.randomBytes(32).toString('hex') }).onConflict('day').ignore();
            const row = await this.knex('edge_salts').where({ day }).first<{ salt: string }>('salt');
            await this.knex('edge_salts').where('day', '<', day).delete();
            this.salt = { day, value: row.salt };
        }

        return Crypto.createHash('sha256').update(`${this.salt.value}\n${resourceId}\n${address}\n${userAgent}`).digest('hex').slice(0, 32);
    }

    async recordTraffic(days: readonly TrafficDay[]): Promise<void> {
        await this.knex.transaction(async (trx) => {
            for (const entry of days) {
                const key = { resource_type: entry.resourceType, resource_id: entry.resourceId, day: entry.day };
                if (entry.visitors.length) {
                    await trx('edge_visitors').insert(entry.visitors.map((visitor) => ({ ...key, visitor }))).onConflict(['resource_id', 'day', 'visitor']).ignore();
                }

                for (const path of entry.paths) {
                    await trx('edge_paths').insert({ ...key, path: path.path, requests: path.requests, bytes: path.bytes }).onConflict(['resource_id', 'day', 'path'])
                        .merge({ requests: trx.raw('edge_paths.requests + excluded.requests'), bytes: trx.raw('edge_paths.bytes + excluded.bytes') });
                }
            }
        });
    }

    /** Distinct visitors per UTC day of the range (a visitor's hash changes with the day's salt). */
    async uniqueVisitors(resourceId: string, range: Range, observed: boolean) {
        const [first, last] = daysOf(range);
        const base = { metric: 'unique-visitors', unit: 'visitors', step: 86_400, startDate: range.start.toISOString(), endDate: range.end.toISOString() };
        if (!observed) {
            return { ...base, source: 'unavailable' as const, series: [], total: null };
        }

        const rows = await this.reader.all<{ day: string; n: number | string }>(
            'SELECT day, COUNT(*) AS n FROM edge_visitors WHERE resource_id = ? AND day >= ? AND day <= ? GROUP BY day ORDER BY day', [resourceId, first, last]);
        const series = rows.map((row) => ({ timestamp: `${row.day}T00:00:00.000Z`, value: Number(row.n) }));
        return { ...base, source: 'measured' as const, series, total: series.reduce((sum, point) => sum + point.value, 0) };
    }

    /** The most requested paths over the UTC days the range touches. */
    async topPaths(resourceId: string, range: Range, limit: number, observed: boolean) {
        const [first, last] = daysOf(range);
        const base = { metric: 'top-paths', startDate: `${first}T00:00:00.000Z`, endDate: new Date(Date.parse(`${last}T00:00:00.000Z`) + 86_400_000).toISOString() };
        if (!observed) {
            return { ...base, source: 'unavailable' as const, paths: [] };
        }

        const top = limitTerm(limit, this.postgres);
        const rows = await this.reader.all<{ path: string; requests: number | string; bytes: number | string }>(
            `SELECT path, SUM(requests) AS requests, SUM(bytes) AS bytes FROM edge_paths WHERE resource_id = ? AND day >= ? AND day <= ? GROUP BY path ORDER BY 2 DESC, path LIMIT ${top.sql}`,
            [resourceId, first, last, ...top.params]);
        return { ...base, source: 'measured' as const, paths: rows.map((row) => ({ path: row.path, requests: Number(row.requests), bytes: Number(row.bytes) })) };
    }
}
