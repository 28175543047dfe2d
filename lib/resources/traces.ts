import Joi from 'joi';
import type { Knex } from 'knex';

import { bulkInsert, type BulkColumn } from '../db/bulk-insert';
import { fields } from '../validation';

// Request spans of a resource, as the edge records them (one per proxied request, with the trace context passed
// on to the app). Read newest first, by time and trace id.
export interface TraceFilters {
    since?: Date;
    until?: Date;
    traceId?: string;
    limit: number;
}

export const traceQuery = Joi.object<TraceFilters, true>({
    since: fields.dateTime(),
    until: fields.dateTime(),
    traceId: Joi.string().pattern(/^[0-9a-f]{32}$/, 'trace id'),
    limit: Joi.number().integer().min(1).max(500).default(100)
});

export interface Span {
    resourceType: string;
    resourceId: string;
    projectId: string;
    traceId: string;
    spanId: string;
    parentSpanId: string | null;
    name: string;
    kind: string;
    startTime: string;
    endTime: string;
    statusCode: 'UNSET' | 'OK' | 'ERROR';
    statusMessage: string | null;
    attributes: Record<string, string | number | boolean>;
}

const SPAN_COLUMNS: readonly BulkColumn[] = ['resource_type', 'resource_id', 'project_id', 'trace_id', 'span_id', 'parent_span_id', 'name', 'kind',
    'start_time', 'end_time', 'status_code', 'status_message', 'attributes'].map((name) => ({ name }));

export class Traces {
    constructor(private readonly knex: Knex) { }

    async record(spans: readonly Span[]): Promise<void> {
        if (spans.length) {
            await bulkInsert(this.knex, 'spans', SPAN_COLUMNS, spans.map((span) => [
                span.resourceType, span.resourceId, span.projectId, span.traceId, span.spanId, span.parentSpanId, span.name, span.kind,
                span.startTime, span.endTime, span.statusCode, span.statusMessage, JSON.stringify(span.attributes)
            ]));
        }
    }

    async query(resourceId: string, filters: TraceFilters) {
        const query = this.knex('spans').where('resource_id', resourceId);
        if (filters.since) {
            query.andWhere('start_time', '>=', filters.since.toISOString());
        }

        if (filters.until) {
            query.andWhere('start_time', '<=', filters.until.toISOString());
        }

        if (filters.traceId) {
            query.andWhere('trace_id', filters.traceId);
        }

        const rows = await query.orderBy('start_time', 'desc').limit(filters.limit);
        return rows.map((row: Record<string, string | null>) => ({
            traceId: row.trace_id, spanId: row.span_id, parentSpanId: row.parent_span_id, name: row.name, kind: row.kind,
            startTime: row.start_time, endTime: row.end_time, durationMs: Date.parse(row.end_time!) - Date.parse(row.start_time!),
            status: { code: row.status_code, message: row.status_message }, attributes: JSON.parse(row.attributes!) as Record<string, unknown>
        }));
    }
}
