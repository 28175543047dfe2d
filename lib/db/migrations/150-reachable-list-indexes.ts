import type { Knex } from 'knex';

// Apps and sites are listed by what a caller reaches: one walk of (project_id, created_at, id) per project. Their
// index on (created_at, id) alone served none of those walks, but PostgreSQL's planner could take it for an arm (rows
// written in time order make its heap look cheap to visit) and walk every newer app of every project to find one
// project's page: 156 ms instead of 0.4 ms for a page of 50 on the bench's 100,000 apps. Without it, each arm has one
// ordered path. A caller reaching more than MAX_ARMS sources (lib/lists.ts) has the reachable set sorted, as before.
const TABLES = ['apps', 'sites'];

export async function up(knex: Knex): Promise<void> {
    for (const table of TABLES) {
        await knex.schema.alterTable(table, (t) => {
            t.dropIndex(['created_at', 'id']);
        });
    }
}

export async function down(knex: Knex): Promise<void> {
    for (const table of TABLES) {
        await knex.schema.alterTable(table, (t) => {
            t.index(['created_at', 'id']);
        });
    }
}
