import type { Knex } from 'knex';

import { jsonRowSql, type JsonField } from '../json-shape';
import { dialect } from './knex';

// A runtime kind's list page is its rows' public JSON joined. Writing that JSON at every read was most of a page's
// statement (json_object over each of its rows), so the database keeps it in the row's `list_json` column instead,
// written by a trigger on every insert and on every update of a column it is made of: it cannot go stale whatever
// writes the row (the ORM, the runtime's raw updates, a bulk insert). The trigger is derived from the kind's shape
// (lib/json-shape.ts) when the kind's plugin registers: when a release changes the shape, or a table rebuild dropped
// the trigger, the next boot finds its text different, replaces it and rewrites the column of every row, in one
// transaction (on PostgreSQL under a lock, so processes booting together do it once).
export const LIST_JSON_COLUMN = 'list_json';

interface Definition {
    statements: string[];                                       // what replaces the trigger and rewrites every row
    current: (db: Knex) => Promise<boolean>;                   // whether the database holds this definition already
}

/** Brings a table's `list_json` column and its trigger up to date with the shape; a no-op when they are. */
export async function syncStoredJson(knex: Knex, table: string, fields: readonly JsonField[]): Promise<void> {
    const postgres = dialect(knex) === 'postgres';
    const definition = postgres ? postgresDefinition(table, fields) : sqliteDefinition(table, fields);
    const hasColumn = await knex.schema.hasColumn(table, LIST_JSON_COLUMN);
    if (hasColumn && await definition.current(knex)) {
        return;
    }

    await knex.transaction(async (trx) => {
        if (postgres) {
            await trx.raw('SELECT pg_advisory_xact_lock(hashtext(?))', [`hostless list json ${table}`]);
        }

        if (!await trx.schema.hasColumn(table, LIST_JSON_COLUMN)) {
            await trx.schema.alterTable(table, (t) => t.text(LIST_JSON_COLUMN).nullable());
        }

        if (await definition.current(trx)) {
            return;                                             // another process did it while this one waited
        }

        for (const statement of definition.statements) {
            await trx.raw(statement);
        }
    });
}

/** The columns an expression reads (`r.<column>`), for the update trigger's column list. */
function columnsOf(expression: string): string[] {
    return [...new Set([...expression.matchAll(/\br\.(\w+)/g)].map((match) => match[1]))];
}

// SQLite: a trigger after each insert, and after each update of a column the JSON reads, sets the column from the row
// as written, NEW (recursive triggers are off, so its own update fires nothing). Its UPDATE names no alias: SQLite
// checks every trigger again when a table is renamed, and takes an aliased column in a trigger for a missing one.
// SQLite keeps a trigger's text as given.
function sqliteDefinition(table: string, fields: readonly JsonField[]): Definition {
    const expression = jsonRowSql(fields, false);
    const body = `BEGIN UPDATE ${table} SET ${LIST_JSON_COLUMN} = ${jsonRowSql(fields, false, 'NEW')} WHERE id = NEW.id; END`;
    const triggers = {
        [`${table}_list_json_insert`]: `CREATE TRIGGER ${table}_list_json_insert AFTER INSERT ON ${table} ${body}`,
        [`${table}_list_json_update`]: `CREATE TRIGGER ${table}_list_json_update AFTER UPDATE OF ${columnsOf(expression).join(', ')} ON ${table} ${body}`
    };
    return {
        statements: [
            ...Object.keys(triggers).map((name) => `DROP TRIGGER IF EXISTS ${name}`),
            `UPDATE ${table} AS r SET ${LIST_JSON_COLUMN} = ${expression}`,
            ...Object.values(triggers)
        ],
        current: async (db) => {
            const rows: Array<{ name: string; sql: string }> = await db('sqlite_master')
                .where({ type: 'trigger', tbl_name: table }).whereIn('name', Object.keys(triggers)).select('name', 'sql');
            return rows.length === Object.keys(triggers).length && rows.every((row) => triggers[row.name] === row.sql);
        }
    };
}

// PostgreSQL: a BEFORE trigger sets the column on the row being written; PostgreSQL keeps a function's body as given.
function postgresDefinition(table: string, fields: readonly JsonField[]): Definition {
    const fn = `${table}_list_json`;
    const source = `BEGIN NEW.${LIST_JSON_COLUMN} := (SELECT ${jsonRowSql(fields, true)} FROM (SELECT NEW.*) r); RETURN NEW; END`;
    return {
        statements: [
            `CREATE OR REPLACE FUNCTION ${fn}() RETURNS trigger LANGUAGE plpgsql AS $body$${source}$body$`,
            `DROP TRIGGER IF EXISTS ${fn} ON ${table}`,
            `CREATE TRIGGER ${fn} BEFORE INSERT OR UPDATE ON ${table} FOR EACH ROW EXECUTE FUNCTION ${fn}()`,
            `UPDATE ${table} SET ${LIST_JSON_COLUMN} = NULL`     // the trigger writes every row's text again
        ],
        current: async (db) => {
            const found = await db.raw<{ rows: Array<{ prosrc: string; bound: boolean }> }>(`SELECT p.prosrc,
                EXISTS (SELECT 1 FROM pg_trigger t WHERE t.tgname = ? AND t.tgrelid = ?::regclass AND t.tgfoid = p.oid) AS bound
                FROM pg_proc p WHERE p.proname = ? AND p.pronamespace = current_schema()::regnamespace`, [fn, table, fn]);
            const row = found.rows[0];
            return !!row && row.prosrc === source && row.bound;
        }
    };
}
