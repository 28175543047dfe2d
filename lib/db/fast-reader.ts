import Database from 'better-sqlite3';
import type { Knex } from 'knex';

import { postgresSettings, sqliteFilename, SQLITE_PRAGMAS } from './knex';
import { LookupBatches, type Lookup } from './lookup-batch';
import type * as Pipelines from './pg-pipelines';

export type { Lookup } from './lookup-batch';

// The request hot path (credential lookup, membership) reads through prepared statements instead of the ORM:
// about 3 us a query against 24 us (toolcheck.md). SQLite gets its own read connection so a transaction in flight
// on knex's single connection is never visible to it (WAL: each statement reads the last committed state).
// PostgreSQL reads through named prepared statements (below). Only SELECTs go through here.
export interface FastReader {
    get<T>(sql: string, params: readonly unknown[]): Promise<T | undefined>;
    all<T>(sql: string, params: readonly unknown[], options?: ReadOptions): Promise<T[]>;
    /** Every row as its values in the order of the SELECT, without building an object per row: for the pages every
     * list request reads (an object a row cost a third of a page statement of 50 rows on SQLite). */
    values<T extends readonly unknown[]>(sql: string, params: readonly unknown[]): Promise<T[]>;
    /** The row of one key as its values in the order of `lookup.columns`, without building an object: for the reads
     * every request makes (credentials), gathered with the others of the same turn into one statement (lookup-batch.ts). */
    lookup<T extends readonly unknown[]>(lookup: Lookup, key: string): Promise<T | undefined>;
    /** Every row of one key, each as its values in the order of `lookup.columns`, read like lookup(). */
    lookupAll<T extends readonly unknown[]>(lookup: Lookup, key: string): Promise<T[]>;
    close(): Promise<void> | void;
    /** Calls `listener` with every statement this reader runs (tests count statements per request). */
    observe(listener: ((sql: string, params: readonly unknown[]) => void) | null): void;
}

export interface ReadOptions {
    /** The statement's best plan depends on its values (a text search): PostgreSQL plans it for the values of each run
     * rather than keeping one plan (lib/db/pg-pipelines.ts). SQLite plans every statement once either way. */
    plansPerValue?: boolean;
}

/** Marked reads on knex a `query` listener leaves out (the reader itself no longer goes through knex; observe() sees it). */
export const READER_QUERY = { fastReader: true };

const MAX_STATEMENTS = 2000;                                    // prepared SQLite statements kept, per mode

export function createFastReader(knex: Knex): FastReader {
    const filename = sqliteFilename(knex);
    if (filename) {
        return sqliteReader(filename);
    }

    return postgresReader(knex);
}

function sqliteReader(filename: string): FastReader {
    const db = new Database(filename, { fileMustExist: true });
    for (const pragma of SQLITE_PRAGMAS) {
        db.pragma(pragma);
    }

    // Statements answering objects and those answering values, each prepared once (raw is a statement's mode). Texts
    // vary with a list's shape and limit (lib/db/limit.ts), so past MAX_STATEMENTS the kept ones are let go.
    const statements = { objects: new Map<string, Database.Statement>(), values: new Map<string, Database.Statement>() };
    const prepare = (sql: string, mode: keyof typeof statements = 'objects') => {
        let statement = statements[mode].get(sql);
        if (!statement) {
            if (statements[mode].size >= MAX_STATEMENTS) {
                statements[mode].clear();
            }

            statement = db.prepare(sql).raw(mode === 'values');
            statements[mode].set(sql, statement);
        }

        return statement;
    };

    // A batch's keys go in as one JSON array (one statement text whatever their number), each matched through the
    // key's index; its rows come back as arrays.
    const lookups = new Map<Lookup, Database.Statement>();
    let listener: ((sql: string, params: readonly unknown[]) => void) | null = null;
    const batches = new LookupBatches(async (lookup, keys) => {
        let statement = lookups.get(lookup);
        if (!statement) {
            statement = db.prepare(lookupSql(lookup, 'IN (SELECT value FROM json_each(?))')).raw(true);
            lookups.set(lookup, statement);
        }

        const params = [JSON.stringify(keys)];
        listener?.(statement.source, params);
        return statement.all(...params) as unknown[][];
    });
    return {
        get: async <T>(sql: string, params: readonly unknown[]) => {
            listener?.(sql, params);
            return prepare(sql).get(...params) as T | undefined;
        },
        all: async <T>(sql: string, params: readonly unknown[]) => {
            listener?.(sql, params);
            return prepare(sql).all(...params) as T[];
        },
        values: async <T extends readonly unknown[]>(sql: string, params: readonly unknown[]) => {
            listener?.(sql, params);
            return prepare(sql, 'values').all(...params) as T[];
        },
        lookup: <T extends readonly unknown[]>(lookup: Lookup, key: string) => batches.get<T>(lookup, key),
        lookupAll: <T extends readonly unknown[]>(lookup: Lookup, key: string) => batches.all<T>(lookup, key),
        close: () => {
            db.close();
        },
        observe: (fn) => {
            listener = fn;
        }
    };
}

// PostgreSQL: each statement text is a named prepared statement, parsed and planned once per connection (node-postgres
// prepares a name the first time a connection sees it), on the reader's own pipelined connections (pg-pipelines.ts),
// with knex's search_path. The text's `?` placeholders become `$n`: the reader's statements hold no `?` of their own.
const PIPELINES = 4;                                            // connections the reader holds at most, besides knex's pool
const PER_VALUE_PIPELINES = 2;                                  // and for statements planned for each run's values (opened when first asked)

function postgresReader(knex: Knex): FastReader {
    let listener: ((sql: string, params: readonly unknown[]) => void) | null = null;
    // node-postgres is loaded here, not by a SQLite server (knex loads it for its own pool the same way).
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { PgPipelines } = require('./pg-pipelines') as typeof Pipelines;
    const pipelines = new PgPipelines({ ...postgresSettings(knex), size: PIPELINES });
    const perValue = new PgPipelines({ ...postgresSettings(knex), size: PER_VALUE_PIPELINES, plansPerValue: true });
    const named = new Map<string, { name: string; text: string }>();
    const statement = (sql: string) => {
        let found = named.get(sql);
        if (!found) {
            let n = 0;
            found = { name: `fast_reader_${named.size + 1}`, text: sql.replace(/\?/g, () => `$${++n}`) };
            named.set(sql, found);
        }

        return found;
    };
    const rows = (sql: string, params: readonly unknown[], rowMode?: 'array', options?: ReadOptions) => {
        listener?.(sql, params);
        return (options?.plansPerValue ? perValue : pipelines).rows({ ...statement(sql), values: params as unknown[], ...rowMode ? { rowMode } : {} });
    };

    // A batch's keys go in as one array parameter, matched through the key's index.
    const lookups = new Map<Lookup, string>();
    const batches = new LookupBatches(async (lookup, keys) => {
        let sql = lookups.get(lookup);
        if (!sql) {
            sql = lookupSql(lookup, '= ANY(?)');
            lookups.set(lookup, sql);
        }

        return await rows(sql, [keys], 'array') as unknown[][];
    });

    return {
        get: async <T>(sql: string, params: readonly unknown[]) => (await rows(sql, params))[0] as T | undefined,
        all: async <T>(sql: string, params: readonly unknown[], options?: ReadOptions) => await rows(sql, params, undefined, options) as T[],
        values: async <T extends readonly unknown[]>(sql: string, params: readonly unknown[]) => await rows(sql, params, 'array') as T[],
        lookup: <T extends readonly unknown[]>(lookup: Lookup, key: string) => batches.get<T>(lookup, key),
        lookupAll: <T extends readonly unknown[]>(lookup: Lookup, key: string) => batches.all<T>(lookup, key),
        close: async () => {
            await Promise.all([pipelines.close(), perValue.close()]);
        },
        observe: (fn) => {
            listener = fn;
        }
    };
}

function lookupSql(lookup: Lookup, matches: string): string {
    return `SELECT ${lookup.key}, ${lookup.columns} FROM ${lookup.from} WHERE ${lookup.where ? `${lookup.where} AND ` : ''}${lookup.key} ${matches}`;
}
