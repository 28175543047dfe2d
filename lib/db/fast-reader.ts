import Database from 'better-sqlite3';
import type { Knex } from 'knex';

import { sqliteFilename, SQLITE_PRAGMAS } from './knex';

// The request hot path (credential lookup, membership) reads through prepared statements instead of the ORM:
// about 3 us a query against 24 us (toolcheck.md). SQLite gets its own read connection so a transaction in flight
// on knex's single connection is never visible to it (WAL: each statement reads the last committed state).
// PostgreSQL reads through named prepared statements (below). Only SELECTs go through here.
export interface FastReader {
    get<T>(sql: string, params: readonly unknown[]): Promise<T | undefined>;
    all<T>(sql: string, params: readonly unknown[]): Promise<T[]>;
    /** The first row as its values in the order of the SELECT list (whose output names must differ), without building an
     * object: for the hottest reads. */
    tuple<T extends readonly unknown[]>(sql: string, params: readonly unknown[]): Promise<T | undefined>;
    close(): void;
    /** Calls `listener` with every statement this reader runs (tests count statements per request). */
    observe(listener: ((sql: string, params: readonly unknown[]) => void) | null): void;
}

/** Marked reads on knex a `query` listener leaves out (the reader itself no longer goes through knex; observe() sees it). */
export const READER_QUERY = { fastReader: true };

export function createFastReader(knex: Knex): FastReader {
    const filename = sqliteFilename(knex);
    if (filename) {
        return sqliteReader(filename);
    }

    return knexReader(knex);
}

function sqliteReader(filename: string): FastReader {
    const db = new Database(filename, { fileMustExist: true });
    for (const pragma of SQLITE_PRAGMAS) {
        db.pragma(pragma);
    }

    const statements = new Map<string, Database.Statement>();
    const tuples = new Map<string, Database.Statement>();
    const prepare = (sql: string, cache = statements) => {
        let statement = cache.get(sql);
        if (!statement) {
            statement = db.prepare(sql);
            if (cache === tuples) {
                statement.raw(true);
            }

            cache.set(sql, statement);
        }

        return statement;
    };

    let listener: ((sql: string, params: readonly unknown[]) => void) | null = null;
    return {
        get: async <T>(sql: string, params: readonly unknown[]) => {
            listener?.(sql, params);
            return prepare(sql).get(...params) as T | undefined;
        },
        all: async <T>(sql: string, params: readonly unknown[]) => {
            listener?.(sql, params);
            return prepare(sql).all(...params) as T[];
        },
        tuple: async <T extends readonly unknown[]>(sql: string, params: readonly unknown[]) => {
            listener?.(sql, params);
            return prepare(sql, tuples).get(...params) as T | undefined;
        },
        close: () => db.close(),
        observe: (fn) => {
            listener = fn;
        }
    };
}

// PostgreSQL: each statement text is a named prepared statement, parsed and planned once per connection (node-postgres
// prepares a name the first time a connection sees it), on a connection of knex's pool (its search_path set).
// The text's `?` placeholders become `$n`: the reader's statements hold no `?` of their own.
interface PgConnection {
    query(config: { name: string; text: string; values: unknown[] }): Promise<{ rows: unknown[] }>;
}

interface PoolClient {
    acquireConnection(): Promise<PgConnection>;
    releaseConnection(connection: PgConnection): Promise<void>;
}

function knexReader(knex: Knex): FastReader {
    let listener: ((sql: string, params: readonly unknown[]) => void) | null = null;
    const client = knex.client as PoolClient;
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
    const rows = async (sql: string, params: readonly unknown[]) => {
        listener?.(sql, params);
        const connection = await client.acquireConnection();
        try {
            return (await connection.query({ ...statement(sql), values: params as unknown[] })).rows;
        }
        finally {
            await client.releaseConnection(connection);
        }
    };

    return {
        get: async <T>(sql: string, params: readonly unknown[]) => (await rows(sql, params))[0] as T | undefined,
        all: async <T>(sql: string, params: readonly unknown[]) => await rows(sql, params) as T[],
        tuple: async <T extends readonly unknown[]>(sql: string, params: readonly unknown[]) => {
            const [row] = await rows(sql, params) as Array<Record<string, unknown>>;
            return row ? Object.values(row) as unknown as T : undefined;
        },
        close: () => { },
        observe: (fn) => {
            listener = fn;
        }
    };
}
