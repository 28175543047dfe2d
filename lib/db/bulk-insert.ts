import type { Knex } from 'knex';

import { dialect } from './knex';

// Many rows in one statement whose text does not grow with them: the rows travel as a single JSON parameter (an
// array of arrays, in the columns' order) that the database unpacks itself (SQLite's json_each, PostgreSQL's
// jsonb_array_elements), in the rows' order. Against a query builder's multi-row VALUES this builds no statement of
// thousands of placeholders per batch (the edge writes a span per request: knex compiling and SQLite preparing each
// batch's statement cost more than inserting its rows), and no batch can outgrow a database's limit on parameters.

/** A column and, on PostgreSQL, the type its JSON text is cast to (text when left out). */
export interface BulkColumn {
    name: string;
    pgType?: 'bigint' | 'integer' | 'double precision' | 'boolean';
}

export type BulkValue = string | number | boolean | null;

interface Statements {
    sqlite: string;
    postgres: string;
}

const statements = new WeakMap<readonly BulkColumn[], Map<string, Statements>>();        // columns -> table -> statements

function statementOf(table: string, columns: readonly BulkColumn[]): Statements {
    let byTable = statements.get(columns);
    if (!byTable) {
        byTable = new Map();
        statements.set(columns, byTable);
    }

    let found = byTable.get(table);
    if (!found) {
        const names = columns.map((column) => `"${column.name}"`).join(', ');
        const sqlite = columns.map((_column, i) => `value ->> ${i}`).join(', ');
        const postgres = columns.map((column, i) => `(r.value ->> ${i})::${column.pgType ?? 'text'}`).join(', ');
        found = {
            sqlite: `INSERT INTO "${table}" (${names}) SELECT ${sqlite} FROM json_each(?) ORDER BY key`,
            postgres: `INSERT INTO "${table}" (${names}) SELECT ${postgres} FROM jsonb_array_elements(?::jsonb) WITH ORDINALITY AS r(value, n) ORDER BY r.n`
        };
        byTable.set(table, found);
    }

    return found;
}

/** Inserts `rows` (each its values in the order of `columns`, which should be a constant: its statement is kept). */
export async function bulkInsert(db: Knex | Knex.Transaction, table: string, columns: readonly BulkColumn[], rows: ReadonlyArray<readonly BulkValue[]>): Promise<void> {
    if (!rows.length) {
        return;
    }

    const statement = statementOf(table, columns);
    await db.raw(dialect(db as Knex) === 'postgres' ? statement.postgres : statement.sqlite, [JSON.stringify(rows)]);
}
