import type { Knex } from 'knex';

// Workers: background processes without a public port, a runtime kind like apps (lib/resources), so their
// environment, deployments, logs, metrics, collaborators and allocation live in the shared tables.

/** The columns every runtime resource's table has (lib/resources/model.ts), as of this migration. */
export function runtimeColumns(t: Knex.CreateTableBuilder): void {
    t.string('id', 32).primary();
    t.string('name', 63).notNullable().unique();
    t.string('project_id', 32).notNullable().references('projects.id').onDelete('CASCADE');
    t.string('status', 16).notNullable();
    t.string('plan', 32).notNullable();
    t.string('region', 32).notNullable();
    t.integer('instances').notNullable();
    t.text('build_command');
    t.text('start_command');
    t.string('repo_provider', 16);
    t.string('repo_name', 201);
    t.string('repo_branch', 255);
    t.boolean('auto_deploy').notNullable();
    t.string('live_deployment_id', 32);
    t.string('created_at', 30).notNullable();
    t.string('updated_at', 30).notNullable();
    t.index(['project_id', 'created_at', 'id']);
}

export async function up(knex: Knex): Promise<void> {
    await knex.schema.createTable('workers', (t) => {
        runtimeColumns(t);
    });
}

export async function down(knex: Knex): Promise<void> {
    await knex.schema.dropTable('workers');
}
