import Joi from 'joi';
import type { Knex } from 'knex';

import { bulkInsert, type BulkColumn } from '../db/bulk-insert';
import { dialect } from '../db/knex';
import type { FastReader } from '../db/fast-reader';
import { limitTerm } from '../db/limit';
import { redact } from '../redact';
import type { LogLevel, LogStream } from '../runtime/driver';
import { fields } from '../validation';

// Log lines of every runtime resource, keyed by (resource_type, resource_id): written by drivers through a context,
// read newest first with one filter vocabulary (q, level, since, until, limit). Lines are stored redacted, so a
// credential printed by a build never becomes readable through the API, and cut at MAX_MESSAGE (marked truncated).
// Reads cost the page, not the table: without text they walk one index per level, merged; with text, SQLite's FTS5
// trigram index (a substring match) or PostgreSQL's pg_trgm index.
export const LEVELS: readonly LogLevel[] = ['debug', 'info', 'warn', 'error'];
export const MAX_MESSAGE = 32 * 1024;
export const MAX_LOG_LIMIT = 500;

export interface LogEntry {
    resourceType: string;
    resourceId: string;
    projectId: string;
    stream: LogStream;
    level: LogLevel;
    message: string;
    deploymentId?: string | null;
    runId?: string | null;
    timestamp?: string;
}

/** What a caller may filter by: the query parameters of every log route, validated by `logQuery`. */
export interface LogFilters {
    q?: string;
    level?: LogLevel;
    since?: Date;
    until?: Date;
    limit: number;
}

/** Which lines a route reads: a resource, or one deployment's or run's lines of some streams. */
export interface LogScope {
    resourceId: string;
    deploymentId?: string;
    runId?: string;
    streams?: readonly LogStream[];
    order?: 'newest' | 'oldest';
}

export interface LogLine {
    timestamp: string;
    stream: LogStream;
    level: LogLevel;
    message: string;
    truncated: boolean;
    deploymentId: string | null;
    runId: string | null;
}

export const logQuery = Joi.object<LogFilters, true>({
    q: Joi.string().trim().min(1).max(200).description('Text the message contains (case-insensitive).'),
    level: Joi.string().valid(...LEVELS).description('This level and above.'),
    since: fields.dateTime().description('Lines at or after this time.'),
    until: fields.dateTime().description('Lines at or before this time.'),
    limit: Joi.number().integer().min(1).max(MAX_LOG_LIMIT).default(100).description(`At most this many lines (default 100, at most ${MAX_LOG_LIMIT}).`)
});

/** `%` and `_` match themselves in a LIKE, on SQLite and PostgreSQL alike. */
export function likePattern(text: string): string {
    return `%${text.toLowerCase().replace(/[\\%_]/g, (char) => `\\${char}`)}%`;
}

interface Row {
    seq: number;
    timestamp: string;
    stream: LogStream;
    level: LogLevel;
    message: string;
    truncated: number | boolean;
    deployment_id: string | null;
    run_id: string | null;
}

const COLUMNS = 'l.seq, l.timestamp, l.stream, l.level, l.message, l.truncated, l.deployment_id, l.run_id';
const TRIGRAM_MIN = 3;

// What PostgreSQL cannot store in text (a NUL character) or read in JSON (half of a surrogate pair): an app's output
// may hold either, and one such line would refuse its whole batch. Each becomes U+FFFD, on both databases alike.
const UNSTORABLE = /\0|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

const LINE_COLUMNS: readonly BulkColumn[] = [
    ...['resource_type', 'resource_id', 'project_id', 'deployment_id', 'run_id', 'stream', 'level', 'message'].map((name) => ({ name })),
    { name: 'truncated', pgType: 'boolean' }, { name: 'timestamp' }
];

export class LogStore {
    private readonly postgres: boolean;

    constructor(private readonly knex: Knex, private readonly reader: FastReader) {
        this.postgres = dialect(knex) === 'postgres';
    }

    async write(db: Knex | Knex.Transaction, entry: LogEntry): Promise<void> {
        await this.writeMany(db, [entry]);
    }

    async writeMany(db: Knex | Knex.Transaction, entries: readonly LogEntry[]): Promise<void> {
        if (!entries.length) {
            return;
        }

        const now = new Date().toISOString();
        await bulkInsert(db, 'log_lines', LINE_COLUMNS, entries.map((entry) => {
            const message = redact(entry.message).replace(UNSTORABLE, '\ufffd');
            return [
                entry.resourceType, entry.resourceId, entry.projectId, entry.deploymentId ?? null, entry.runId ?? null, entry.stream, entry.level,
                message.length > MAX_MESSAGE ? message.slice(0, MAX_MESSAGE) : message, message.length > MAX_MESSAGE, entry.timestamp ?? now
            ];
        }));
    }

    /**
     * Deletes the lines whose timestamp is before `before`, in the order they were written, `batch` at a time (each its
     * own statement, so no write waits long): it stops at the first batch that holds a line to keep, so a line written
     * late with an old timestamp goes once the lines written before it have. Answers how many it deleted.
     */
    async prune(before: string, batch = 5000): Promise<number> {
        let deleted = 0;
        for (; ;) {
            const rows: Array<{ seq: number; timestamp: string }> = await this.knex('log_lines').orderBy('seq').limit(batch).select('seq', 'timestamp');
            const old = rows.filter((row) => row.timestamp < before).map((row) => row.seq);
            if (old.length) {
                deleted += await this.knex('log_lines').whereIn('seq', old).delete();
            }

            if (!old.length || old.length < rows.length || rows.length < batch) {
                return deleted;
            }
        }
    }

    async query(scope: LogScope, filters: LogFilters): Promise<LogLine[]> {
        const { sql, params } = this.statement(scope, filters);
        // A text search's best plan depends on the words (a rare one asks the trigram index, a common one walks the
        // lines in order until the page is full): on PostgreSQL it is planned for each search (lib/db/pg-pipelines.ts).
        const rows = await this.reader.all<Row>(sql, params, { plansPerValue: Boolean(filters.q) });
        return rows.map((row) => ({
            timestamp: row.timestamp, stream: row.stream, level: row.level, message: row.message, truncated: !!row.truncated,
            deploymentId: row.deployment_id, runId: row.run_id
        }));
    }

    /** SQL text depends only on which filters are present and, on SQLite, the limit (lib/db/limit.ts), so each is prepared once. */
    private statement(scope: LogScope, filters: LogFilters): { sql: string; params: unknown[] } {
        const direction = scope.order === 'oldest' ? 'ASC' : 'DESC';
        const where: string[] = [];
        const params: unknown[] = [];
        const add = (clause: string, ...values: unknown[]) => {
            where.push(clause);
            params.push(...values);
        };

        if (scope.deploymentId) {
            add('l.deployment_id = ?', scope.deploymentId);
        }

        if (scope.runId) {
            add('l.run_id = ?', scope.runId);
        }

        add('l.resource_id = ?', scope.resourceId);
        if (scope.streams) {
            add(`l.stream IN (${scope.streams.map(() => '?').join(', ')})`, ...scope.streams);
        }

        if (filters.since) {
            add('l.timestamp >= ?', filters.since.toISOString());
        }

        if (filters.until) {
            add('l.timestamp <= ?', filters.until.toISOString());
        }

        const levels = filters.level ? LEVELS.slice(LEVELS.indexOf(filters.level)) : null;
        const limit = limitTerm(filters.limit, this.postgres);
        const order = `ORDER BY timestamp ${direction}, seq ${direction} LIMIT ${limit.sql}`;
        const text = filters.q;
        if (text && !this.postgres && text.length >= TRIGRAM_MIN && !scope.deploymentId && !scope.runId) {
            // FTS5 hands back matches in rowid (write) order, so the first page of matches ends the scan; the rowids are
            // bounded to the resource's first and last line (two seeks on (resource_id, seq)), so matches of other
            // resources written after this one's last line, or before its first, are never walked. CROSS JOIN keeps the
            // text index outermost (SQLite would otherwise probe it once per line of the resource).
            if (levels) {
                add(`l.level IN (${levels.map(() => '?').join(', ')})`, ...levels);
            }

            const span = 's.rowid BETWEEN (SELECT min(seq) FROM log_lines WHERE resource_id = ?) AND (SELECT max(seq) FROM log_lines WHERE resource_id = ?)';
            return {
                sql: `SELECT ${COLUMNS} FROM log_search s CROSS JOIN log_lines l ON l.seq = s.rowid WHERE log_search MATCH ? AND ${span} AND ${where.join(' AND ')} ORDER BY s.rowid ${direction} LIMIT ${limit.sql}`,
                params: [`"${text.replace(/"/g, '""')}"`, scope.resourceId, scope.resourceId, ...params, ...limit.params]
            };
        }

        if (text) {
            add('lower(l.message) LIKE ? ESCAPE \'\\\'', likePattern(text));
        }

        if (!levels || levels.length === 1 || scope.deploymentId || scope.runId) {
            if (levels) {
                add(`l.level IN (${levels.map(() => '?').join(', ')})`, ...levels);
            }

            return { sql: `SELECT ${COLUMNS} FROM log_lines l WHERE ${where.join(' AND ')} ${order.replace(/timestamp|seq/g, (column) => `l.${column}`)}`, params: [...params, ...limit.params] };
        }

        // One arm per level on the (resource, level, time) index, merged in order without a sort.
        const arm = (level: string) => ({ sql: `SELECT ${COLUMNS} FROM log_lines l WHERE l.level = ? AND ${where.join(' AND ')}`, params: [level, ...params] });
        const arms = levels.map(arm);
        const sql = this.postgres
            ? `${arms.map((a) => `(${a.sql} ORDER BY l.timestamp ${direction}, l.seq ${direction} LIMIT ${limit.sql})`).join(' UNION ALL ')} ${order}`
            : `${arms.map((a) => a.sql).join(' UNION ALL ')} ${order}`;
        return {
            sql,
            params: [...arms.flatMap((a) => [...a.params, ...this.postgres ? limit.params : []]), ...limit.params]
        };
    }

    /** Folds the text index's segments together after heavy writing, keeping searches a page's cost (SQLite). */
    async maintain(): Promise<void> {
        if (!this.postgres) {
            await this.knex.raw('INSERT INTO log_search (log_search, rank) VALUES (\'merge\', 500)');
        }
    }
}
