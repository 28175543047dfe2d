import Database from 'better-sqlite3';
import type { Knex } from 'knex';

import { dialect, sqliteFilename, SQLITE_PRAGMAS } from './knex';

// The request hot path (credential lookup, membership) reads through prepared statements instead of the ORM:
// about 3 us a query against 24 us (toolcheck.md). SQLite gets its own read connection so a transaction in flight
// on knex's single connection is never visible to it (WAL: each statement reads the last committed state).
// PostgreSQL reads through knex.raw with a fixed statement text. Only SELECTs go through here.
export interface FastReader {
    get<T>(sql: string, params: readonly unknown[]): Promise<T | undefined>;
    all<T>(sql: string, params: readonly unknown[]): Promise<T[]>;
    close(): void;
    /** Calls `listener` with every statement this reader runs (tests count statements per request). */
    observe(listener: ((sql: string, params: readonly unknown[]) => void) | null): void;
}

/** Marks the reader's statements on knex, so a knex `query` listener can tell them apart (PostgreSQL). */
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
    const prepare = (sql: string) => {
        let statement = statements.get(sql);
        if (!statement) {
            statement = db.prepare(sql);
            statements.set(sql, statement);
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
        close: () => db.close(),
        observe: (fn) => {
            listener = fn;
        }
    };
}

function knexReader(knex: Knex): FastReader {
    let listener: ((sql: string, params: readonly unknown[]) => void) | null = null;
    const rows = async (sql: string, params: readonly unknown[]) => {
        listener?.(sql, params);
        const result = await knex.raw(sql, params as readonly Knex.RawBinding[]).options(READER_QUERY);
        return (dialect(knex) === 'postgres' ? result.rows : result) as unknown[];
    };

    return {
        get: async <T>(sql: string, params: readonly unknown[]) => (await rows(sql, params))[0] as T | undefined,
        all: async <T>(sql: string, params: readonly unknown[]) => await rows(sql, params) as T[],
        close: () => { },
        observe: (fn) => {
            listener = fn;
        }
    };
}
