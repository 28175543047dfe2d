import type { Knex } from 'knex';

import { redact } from '../../../lib/redact';
import type { LogLevel, LogStream } from '../../../lib/runtime/driver';

// Log lines of apps (and, later, of every resource with a runtime): written by drivers through a context, read
// with filters. Lines are stored redacted, so a credential printed by a build never becomes readable through the API.
export interface LogFilters {
    resourceId: string;
    deploymentId?: string;
    runId?: string;
    streams?: readonly LogStream[];
    q?: string;
    level?: LogLevel;
    since?: string;
    until?: string;
    limit: number;
    order?: 'newest' | 'oldest';
}

export interface LogLine {
    timestamp: string;
    stream: LogStream;
    level: LogLevel;
    message: string;
    deploymentId: string | null;
    runId: string | null;
}

const SEVERITY: readonly LogLevel[] = ['debug', 'info', 'warn', 'error'];

/** `%` and `_` match themselves in a search, on SQLite and PostgreSQL alike. */
export function likePattern(text: string): string {
    return `%${text.toLowerCase().replace(/[\\%_]/g, (char) => `\\${char}`)}%`;
}

export class LogStore {
    constructor(private readonly knex: Knex) { }

    async write(db: Knex | Knex.Transaction, entry: { resourceId: string; projectId: string; stream: LogStream; level: LogLevel; message: string; deploymentId?: string | null; runId?: string | null }): Promise<void> {
        await db('log_lines').insert({
            resource_id: entry.resourceId,
            project_id: entry.projectId,
            deployment_id: entry.deploymentId ?? null,
            run_id: entry.runId ?? null,
            stream: entry.stream,
            level: entry.level,
            message: redact(entry.message).slice(0, 8192),
            timestamp: new Date().toISOString()
        });
    }

    async query(filters: LogFilters): Promise<LogLine[]> {
        const query = this.knex('log_lines').where('resource_id', filters.resourceId);
        if (filters.deploymentId) {
            query.andWhere('deployment_id', filters.deploymentId);
        }

        if (filters.runId) {
            query.andWhere('run_id', filters.runId);
        }

        if (filters.streams) {
            query.whereIn('stream', filters.streams as string[]);
        }

        if (filters.level) {
            query.whereIn('level', SEVERITY.slice(SEVERITY.indexOf(filters.level)) as string[]);
        }

        if (filters.q) {
            query.andWhereRaw('lower(message) LIKE ? ESCAPE \'\\\'', [likePattern(filters.q)]);
        }

        if (filters.since) {
            query.andWhere('timestamp', '>=', filters.since);
        }

        if (filters.until) {
            query.andWhere('timestamp', '<=', filters.until);
        }

        const direction = filters.order === 'oldest' ? 'asc' : 'desc';
        const rows = await query.orderBy('timestamp', direction).orderBy('seq', direction).limit(filters.limit);
        return rows.map((row: Record<string, string | null>) => ({
            timestamp: row.timestamp!, stream: row.stream as LogStream, level: row.level as LogLevel, message: row.message!, deploymentId: row.deployment_id ?? null, runId: row.run_id ?? null
        }));
    }
}
