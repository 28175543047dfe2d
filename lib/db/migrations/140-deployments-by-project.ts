import type { Knex } from 'knex';

// A project's deployments across its resources, newest first (the diagnostic project_activity page): one index walk.
export async function up(knex: Knex): Promise<void> {
    await knex.schema.alterTable('deployments', (t) => {
        t.index(['project_id', 'created_at', 'id'], 'deployments_project_created');
    });
}

export async function down(knex: Knex): Promise<void> {
    await knex.schema.alterTable('deployments', (t) => {
        t.dropIndex(['project_id', 'created_at', 'id'], 'deployments_project_created');
    });
}
