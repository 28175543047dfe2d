import type { Knex } from 'knex';

// Sites, and what the edge needs: one name space for every kind served on `<name>.<SITES_DOMAIN>` (apps included,
// backfilled), the content-addressed file store (a stored file is counted by the deployment files that name it and
// removed only at zero), each deployment's files, the visual builder's document and assets, and what the edge
// measures beyond metric points (unique visitors as a daily salted hash, requests per path per day). Metric points
// gain a sample count, so a point may carry an aggregate (a sum of durations over `samples` requests).
export async function up(knex: Knex): Promise<void> {
    await knex.schema.createTable('sites', (t) => {
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
        t.string('source', 16).notNullable();                     // repository | upload | visual-builder
        t.boolean('spa').notNullable().defaultTo(false);          // unknown paths answer /index.html instead of the 404 page
        t.string('created_at', 30).notNullable();
        t.string('updated_at', 30).notNullable();
        t.index(['project_id', 'created_at', 'id']);
        t.index(['created_at', 'id']);
    });

    // Kinds served by the edge share one name space: a name is held by one resource of any of them.
    await knex.schema.createTable('edge_names', (t) => {
        t.string('name', 63).primary();
        t.string('resource_type', 32).notNullable();
        t.string('resource_id', 32).notNullable();
        t.string('created_at', 30).notNullable();
        t.index(['resource_id']);
    });
    await knex.raw('INSERT INTO edge_names (name, resource_type, resource_id, created_at) SELECT name, \'app\', id, created_at FROM apps');

    await knex.schema.createTable('stored_files', (t) => {
        t.string('hash', 64).primary();                           // sha256 of the content, hex
        t.bigInteger('size').notNullable();
        t.integer('refs').notNullable();                          // deployment files and assets naming it
        t.string('created_at', 30).notNullable();
        t.index(['refs']);
    });

    await knex.schema.createTable('deployment_files', (t) => {
        t.string('deployment_id', 32).notNullable();
        t.string('path', 1024).notNullable();                     // `/index.html`, `/docs/a.css`
        t.string('hash', 64).notNullable();
        t.bigInteger('size').notNullable();
        t.string('content_type', 128).notNullable();
        t.string('gzip_hash', 64);                                // a gzip variant, for compressible files
        t.bigInteger('gzip_size');
        t.primary(['deployment_id', 'path']);
    });

    // What made each site deployment and what it stored: the build statistics of one deployment.
    await knex.schema.createTable('site_builds', (t) => {
        t.string('deployment_id', 32).primary();
        t.string('site_id', 32).notNullable();
        t.string('source', 16).notNullable();                     // upload | visual-builder | redeploy
        t.bigInteger('archive_bytes');
        t.integer('files').notNullable();
        t.bigInteger('bytes').notNullable();
        t.integer('new_files').notNullable();                     // contents the store did not hold yet
        t.bigInteger('new_bytes').notNullable();
        t.integer('compressed_files').notNullable();
        t.integer('duration_ms').notNullable();                   // reading, checking and storing the files
        t.boolean('pruned').notNullable().defaultTo(false);       // its files were released (beyond the last kept)
        t.string('created_at', 30).notNullable();
        t.index(['site_id', 'created_at']);
    });

    await knex.schema.createTable('site_builder_projects', (t) => {
        t.string('site_id', 32).primary().references('sites.id').onDelete('CASCADE');
        t.integer('version').notNullable();
        t.text('document').notNullable();
        t.string('updated_by', 32);
        t.string('created_at', 30).notNullable();
        t.string('updated_at', 30).notNullable();
    });

    await knex.schema.createTable('site_builder_assets', (t) => {
        t.string('id', 32).primary();
        t.string('site_id', 32).notNullable().references('sites.id').onDelete('CASCADE');
        t.string('name', 128).notNullable();
        t.string('hash', 64).notNullable();
        t.bigInteger('size').notNullable();
        t.string('content_type', 128).notNullable();
        t.string('created_at', 30).notNullable();
        t.unique(['site_id', 'name']);
    });

    await knex.schema.createTable('edge_salts', (t) => {
        t.string('day', 10).primary();
        t.string('salt', 64).notNullable();
    });

    await knex.schema.createTable('edge_visitors', (t) => {
        t.string('resource_type', 32).notNullable();
        t.string('resource_id', 32).notNullable();
        t.string('day', 10).notNullable();
        t.string('visitor', 32).notNullable();                    // a hash of the day's salt, the resource, address and agent
        t.primary(['resource_id', 'day', 'visitor']);
    });

    await knex.schema.createTable('edge_paths', (t) => {
        t.string('resource_type', 32).notNullable();
        t.string('resource_id', 32).notNullable();
        t.string('day', 10).notNullable();
        t.string('path', 512).notNullable();
        t.bigInteger('requests').notNullable();
        t.bigInteger('bytes').notNullable();
        t.primary(['resource_id', 'day', 'path']);
    });

    await knex.schema.alterTable('metric_points', (t) => {
        t.integer('samples').notNullable().defaultTo(1);
    });
}

export async function down(knex: Knex): Promise<void> {
    await knex.schema.alterTable('metric_points', (t) => {
        t.dropColumn('samples');
    });
    for (const table of ['edge_paths', 'edge_visitors', 'edge_salts', 'site_builder_assets', 'site_builder_projects', 'site_builds', 'deployment_files', 'stored_files', 'edge_names', 'sites']) {
        await knex.schema.dropTable(table);
    }
}
