import type { Knex } from 'knex';

// Apps and everything that hangs off them. Deployments, log lines, metric points and spans name their resource by
// type and id, so the families that follow (sites, workers, cron jobs) share these tables and the runtime drivers.
export async function up(knex: Knex): Promise<void> {
    await knex.schema.createTable('apps', (t) => {
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
        t.index(['project_id', 'created_at']);
        t.index(['created_at', 'id']);
    });

    await knex.schema.createTable('app_env_vars', (t) => {
        t.string('app_id', 32).notNullable().references('apps.id').onDelete('CASCADE');
        t.string('name', 128).notNullable();
        t.text('value').notNullable();                            // sealed with ENCRYPTION_KEY
        t.string('created_at', 30).notNullable();
        t.string('updated_at', 30).notNullable();
        t.primary(['app_id', 'name']);
    });

    await knex.schema.createTable('app_domains', (t) => {
        t.string('id', 32).primary();
        t.string('app_id', 32).notNullable().references('apps.id').onDelete('CASCADE');
        t.string('project_id', 32).notNullable();
        t.string('hostname', 253).notNullable().unique();
        t.string('status', 16).notNullable();                     // pending | verified
        t.string('verification_token', 64).notNullable();
        t.string('verified_at', 30);
        t.string('checked_at', 30);
        t.text('last_error');
        t.string('created_at', 30).notNullable();
        t.index(['app_id', 'created_at']);
    });

    await knex.schema.createTable('app_processes', (t) => {
        t.string('id', 32).primary();
        t.string('app_id', 32).notNullable().references('apps.id').onDelete('CASCADE');
        t.string('project_id', 32).notNullable();
        t.string('name', 63).notNullable();
        t.text('command').notNullable();
        t.integer('instances').notNullable();
        t.string('created_at', 30).notNullable();
        t.string('updated_at', 30).notNullable();
        t.unique(['app_id', 'name']);
    });

    await knex.schema.createTable('app_cron_jobs', (t) => {
        t.string('id', 32).primary();
        t.string('app_id', 32).notNullable().references('apps.id').onDelete('CASCADE');
        t.string('project_id', 32).notNullable();
        t.string('name', 63).notNullable();
        t.string('schedule', 120).notNullable();
        t.text('command').notNullable();
        t.string('status', 16).notNullable();                     // active | paused
        t.string('next_run_at', 30);
        t.string('last_run_at', 30);
        t.string('created_at', 30).notNullable();
        t.string('updated_at', 30).notNullable();
        t.unique(['app_id', 'name']);
    });

    await knex.schema.createTable('app_cron_runs', (t) => {
        t.string('id', 32).primary();
        t.string('cron_job_id', 32).notNullable().references('app_cron_jobs.id').onDelete('CASCADE');
        t.string('app_id', 32).notNullable();
        t.string('project_id', 32).notNullable();
        t.string('status', 16).notNullable();                     // queued | running | succeeded | failed
        t.string('trigger', 16).notNullable();                    // schedule | manual
        t.string('driver', 16).notNullable();
        t.integer('exit_code');
        t.string('scheduled_for', 30);
        t.string('started_at', 30);
        t.string('finished_at', 30);
        t.string('created_at', 30).notNullable();
        t.index(['cron_job_id', 'created_at']);
    });

    await knex.schema.createTable('review_apps', (t) => {
        t.string('id', 32).primary();
        t.string('app_id', 32).notNullable().references('apps.id').onDelete('CASCADE');
        t.string('project_id', 32).notNullable();
        t.integer('pull_request').notNullable();
        t.string('branch', 255).notNullable();
        t.string('title', 300).notNullable();
        t.string('status', 16).notNullable();                     // deploying | live | failed
        t.string('deployment_id', 32);
        t.string('expires_at', 30).notNullable();
        t.string('created_at', 30).notNullable();
        t.string('updated_at', 30).notNullable();
        t.unique(['app_id', 'pull_request']);
    });

    await knex.schema.createTable('deployments', (t) => {
        t.string('id', 32).primary();
        t.string('resource_type', 16).notNullable();              // app | site | worker | cron-job
        t.string('resource_id', 32).notNullable();
        t.string('project_id', 32).notNullable().references('projects.id').onDelete('CASCADE');
        t.string('review_app_id', 32);
        t.string('status', 16).notNullable();                     // queued | building | deploying | live | failed | canceled | superseded
        t.string('driver', 16).notNullable();
        t.string('trigger', 16).notNullable();                    // manual | rerun | review | auto
        t.string('rerun_of', 32);
        t.string('commit_sha', 64);
        t.string('branch', 255);
        t.text('config').notNullable();                           // the configuration snapshot, secrets sealed
        t.text('error');
        t.string('created_at', 30).notNullable();
        t.string('building_at', 30);
        t.string('deploying_at', 30);
        t.string('finished_at', 30);
        t.string('updated_at', 30).notNullable();
        t.index(['resource_id', 'created_at']);
    });

    await knex.schema.createTable('log_lines', (t) => {
        t.increments('seq');
        t.string('resource_id', 32).notNullable();
        t.string('project_id', 32).notNullable();
        t.string('deployment_id', 32);
        t.string('run_id', 32);
        t.string('stream', 16).notNullable();                     // build | release | runtime | run
        t.string('level', 8).notNullable();                       // debug | info | warn | error
        t.text('message').notNullable();
        t.string('timestamp', 30).notNullable();
        t.index(['resource_id', 'timestamp']);
        t.index(['deployment_id', 'stream']);
        t.index(['run_id']);
    });

    await knex.schema.createTable('metric_points', (t) => {
        t.string('resource_id', 32).notNullable();
        t.string('metric', 32).notNullable();
        t.string('timestamp', 30).notNullable();
        t.double('value').notNullable();
        t.index(['resource_id', 'metric', 'timestamp']);
    });

    await knex.schema.createTable('spans', (t) => {
        t.string('resource_id', 32).notNullable();
        t.string('project_id', 32).notNullable();
        t.string('trace_id', 32).notNullable();
        t.string('span_id', 16).notNullable();
        t.string('parent_span_id', 16);
        t.string('name', 255).notNullable();
        t.string('kind', 16).notNullable();
        t.string('start_time', 30).notNullable();
        t.string('end_time', 30).notNullable();
        t.string('status_code', 8).notNullable();                 // UNSET | OK | ERROR
        t.text('status_message');
        t.text('attributes').notNullable();
        t.primary(['trace_id', 'span_id']);
        t.index(['resource_id', 'start_time']);
    });

    await knex.schema.createTable('service_files', (t) => {
        t.string('id', 32).primary();
        t.string('app_id', 32).notNullable().references('apps.id').onDelete('CASCADE');
        t.string('project_id', 32).notNullable();
        t.integer('version').notNullable();
        t.string('format', 8).notNullable();                      // yaml | json
        t.text('content').notNullable();
        t.string('created_by', 32);
        t.string('committed_sha', 64);
        t.string('committed_at', 30);
        t.string('created_at', 30).notNullable();
        t.unique(['app_id', 'version']);
    });

    await knex.schema.createTable('git_connections', (t) => {
        t.string('id', 32).primary();
        t.string('project_id', 32).notNullable().references('projects.id').onDelete('CASCADE');
        t.string('provider', 16).notNullable();
        t.string('account_login', 100).notNullable();
        t.text('token').notNullable();                            // sealed with ENCRYPTION_KEY
        t.string('created_by', 32);
        t.string('created_at', 30).notNullable();
        t.string('updated_at', 30).notNullable();
        t.unique(['project_id', 'provider']);
    });
}

export async function down(knex: Knex): Promise<void> {
    for (const table of ['git_connections', 'service_files', 'spans', 'metric_points', 'log_lines', 'deployments', 'review_apps', 'app_cron_runs', 'app_cron_jobs', 'app_processes', 'app_domains', 'app_env_vars', 'apps']) {
        await knex.schema.dropTable(table);
    }
}
