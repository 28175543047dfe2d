import type { Knex } from 'knex';

// Managed databases: the database as the platform records it (its credentials sealed with ENCRYPTION_KEY), its
// imports (the source's connection URL sealed too; only a form without the password is shown), and the runtime
// resources that link it.
export async function up(knex: Knex): Promise<void> {
    await knex.schema.createTable('databases', (t) => {
        t.string('id', 32).primary();
        t.string('name', 63).notNullable().unique();
        t.string('project_id', 32).notNullable().references('projects.id').onDelete('CASCADE');
        t.string('status', 16).notNullable();                     // provisioning | available | paused | importing | deleting | failed
        t.string('engine', 16).notNullable();
        t.string('version', 8).notNullable();
        t.string('tier', 16).notNullable();
        t.integer('storage_gib').notNullable();
        t.string('driver', 16).notNullable();                     // the provisioner that made it: records | postgres
        t.string('physical_name', 63).notNullable().unique();     // hl_<id>: its role and database on the server
        t.text('credentials');                                    // sealed {username, password, host, port}; null under records
        t.text('error');
        t.string('created_at', 30).notNullable();
        t.string('updated_at', 30).notNullable();
        t.index(['project_id', 'created_at', 'id']);
    });

    await knex.schema.createTable('database_imports', (t) => {
        t.string('id', 32).primary();                             // cln_...: the {cloneId} of the import routes
        t.string('database_id', 32).notNullable().references('databases.id').onDelete('CASCADE');
        t.string('project_id', 32).notNullable();
        t.string('status', 16).notNullable();                     // queued | running | succeeded | failed
        t.string('driver', 16).notNullable();
        t.string('source', 2048).notNullable();                   // the source URL without its password
        t.text('source_sealed').notNullable();                    // the source URL, sealed, for the job
        t.text('error');
        t.string('created_at', 30).notNullable();
        t.string('started_at', 30);
        t.string('finished_at', 30);
        t.string('updated_at', 30).notNullable();
        t.index(['database_id', 'created_at', 'id']);
    });

    await knex.schema.createTable('database_links', (t) => {
        t.string('resource_type', 32).notNullable();
        t.string('resource_id', 32).notNullable();
        t.string('database_id', 32).notNullable().references('databases.id').onDelete('CASCADE');
        t.string('resource_name', 63).notNullable();
        t.string('project_id', 32).notNullable();
        t.string('created_at', 30).notNullable();
        t.primary(['resource_type', 'resource_id', 'database_id']);
        t.index(['database_id', 'created_at', 'resource_id']);
    });
}

export async function down(knex: Knex): Promise<void> {
    for (const table of ['database_links', 'database_imports', 'databases']) {
        await knex.schema.dropTable(table);
    }
}
