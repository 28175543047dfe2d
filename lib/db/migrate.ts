import type { Knex } from 'knex';

import { MIGRATIONS } from './migrations';

const source: Knex.MigrationSource<typeof MIGRATIONS[number]> = {
    getMigrations: async () => [...MIGRATIONS],
    getMigrationName: (migration) => migration.name,
    getMigration: async (migration) => migration
};

/** Brings the schema up to date; safe to run at every boot and from several processes on PostgreSQL. */
export async function migrate(knex: Knex): Promise<void> {
    await knex.migrate.latest({ migrationSource: source, tableName: 'knex_migrations' });
}

export async function rollbackAll(knex: Knex): Promise<void> {
    await knex.migrate.rollback({ migrationSource: source, tableName: 'knex_migrations' }, true);
}
