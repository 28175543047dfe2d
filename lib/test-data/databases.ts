import * as Path from 'node:path';

import * as Boom from '@hapi/boom';
import knexFactory, { type Knex } from 'knex';

import { createKnex, dialect, otherDatabase, type DatabaseConfig } from '../db/knex';

// The disposable databases of generic scenarios: `hostless_test_<env>.sqlite` in the data dir beside the API's SQLite
// file, or the PostgreSQL database `hostless_test_<env>` on the API's server (created when missing). Each holds one
// registered table, test_records; any other non-empty table blocks a reset (it is not ours to judge).

export const REGISTERED_TABLES: readonly string[] = ['test_records'];

/** Where a disposable database lives, beside the API's own. */
export function disposableConfig(primary: DatabaseConfig, dataDir: string, name: string): DatabaseConfig {
    if (primary.client === 'sqlite') {
        return { client: 'sqlite', filename: Path.join(dataDir, `${name}.sqlite`) };
    }

    return { client: 'postgres', connectionString: otherDatabase(primary.connectionString, name) };
}

async function ensurePostgresDatabase(primary: string, name: string): Promise<void> {
    const admin = knexFactory({ client: 'pg', connection: primary, pool: { min: 0, max: 1 } });
    try {
        const found = await admin.raw<{ rows: unknown[] }>('SELECT 1 FROM pg_database WHERE datname = ?', [name]);
        if (!found.rows.length) {
            await admin.raw('CREATE DATABASE ??', [name]);
        }
    }
    catch (err) {
        if ((err as { code?: string }).code !== '42P04') {            // created by another process meanwhile
            throw err;
        }
    }
    finally {
        await admin.destroy();
    }
}

/** Opens (creating when missing) a disposable database and its registered table. */
export async function openDisposable(primary: DatabaseConfig, dataDir: string, name: string): Promise<Knex> {
    const config = disposableConfig(primary, dataDir, name);
    if (config.client === 'postgres' && primary.client === 'postgres') {
        await ensurePostgresDatabase(primary.connectionString, name);
    }

    const knex = createKnex(config);
    if (!await knex.schema.hasTable('test_records')) {
        await knex.schema.createTable('test_records', (t) => {
            t.string('id', 120).primary();                        // <scenarioId>.<key>
            t.string('scenario_id', 32).notNullable();
            t.string('collection', 40).notNullable();
            t.string('ref_id', 120);                              // the record this one belongs to
            t.string('at', 30).notNullable();                     // the record's logical time
            t.text('body').notNullable();
            t.index(['scenario_id']);
            t.index(['ref_id']);
        });
    }

    return knex;
}

/** The tables of a disposable database outside the registered ones that hold rows. */
export async function unregisteredNonEmpty(knex: Knex): Promise<string[]> {
    const postgres = dialect(knex) === 'postgres';
    const tables = postgres
        ? (await knex.raw<{ rows: Array<{ name: string }> }>('SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = \'BASE TABLE\'')).rows.map((row) => row.name)
        : (await knex.raw<Array<{ name: string }>>('SELECT name FROM sqlite_master WHERE type = \'table\' AND name NOT LIKE \'sqlite_%\'')).map((row) => row.name);
    const found: string[] = [];
    for (const table of tables.filter((name) => !REGISTERED_TABLES.includes(name)).sort()) {
        if (await knex(table).first()) {
            found.push(table);
        }
    }

    return found;
}

/** A reset's refusals in a disposable database: rows in tables we do not own, or records of others pointing at ours. */
export async function refuseOutsideReferences(database: Knex, scenarioId: string, ids: readonly string[]): Promise<void> {
    const unregistered = await unregisteredNonEmpty(database);
    if (unregistered.length) {
        throw Boom.conflict(`The disposable database holds rows in tables test data does not own (${unregistered.join(', ')}): deletion is blocked`);
    }

    for (let i = 0; i < ids.length; i += 500) {
        const outside = await database<{ id: string; ref_id: string; scenario_id: string }>('test_records').whereIn('ref_id', ids.slice(i, i + 500)).whereNot('scenario_id', scenarioId).first('id');
        if (outside) {
            throw Boom.conflict(`Record ${outside.id} of another scenario refers to this scenario's records: deletion is blocked`);
        }
    }
}
