import type { Knex } from 'knex';

import { runtimeColumns } from './045-workers';

// Standalone cron jobs (a runtime kind with a schedule), and one table of runs for every scheduled job, the apps'
// cron jobs included: the scheduler (lib/scheduler) claims a due time by inserting its run, and the unique key on
// (job_id, scheduled_for) makes a second claim of the same due time fail, whichever process makes it. The apps'
// runs move into it; their pending queue fires are dropped (the scheduler reads next_run_at instead).
export async function up(knex: Knex): Promise<void> {
    await knex.schema.createTable('cron_jobs', (t) => {
        runtimeColumns(t);
        t.string('schedule', 120).notNullable();
        t.string('time_zone', 64).notNullable();
        t.boolean('paused').notNullable().defaultTo(false);
        t.string('next_run_at', 30);                              // null while paused
        t.string('last_run_at', 30);
        t.index(['next_run_at']);
    });

    await knex.schema.alterTable('app_cron_jobs', (t) => {
        t.index(['next_run_at']);
    });

    await knex.schema.createTable('cron_runs', (t) => {
        t.string('id', 32).primary();
        t.string('job_type', 32).notNullable();                   // cron-job | app-cron-job
        t.string('job_id', 32).notNullable();
        t.string('resource_type', 32).notNullable();              // whose logs and cascade: cron-job | app
        t.string('resource_id', 32).notNullable();
        t.string('project_id', 32).notNullable();
        t.string('status', 16).notNullable();                     // queued | running | succeeded | failed | recorded
        t.string('trigger', 16).notNullable();                    // schedule | catch-up | manual
        t.string('driver', 16).notNullable();
        t.integer('exit_code');
        t.string('scheduled_for', 30);                            // the due time it was claimed for; null for manual runs
        t.string('started_at', 30);
        t.string('finished_at', 30);
        t.string('created_at', 30).notNullable();
        t.unique(['job_id', 'scheduled_for']);
        t.index(['job_id', 'created_at', 'id']);
        t.index(['resource_id']);
    });

    await knex.raw(`INSERT INTO cron_runs (id, job_type, job_id, resource_type, resource_id, project_id, status, trigger, driver, exit_code, scheduled_for, started_at, finished_at, created_at)
        SELECT id, 'app-cron-job', cron_job_id, 'app', app_id, project_id, status, trigger, driver, exit_code, scheduled_for, started_at, finished_at, created_at FROM app_cron_runs`);
    await knex.schema.dropTable('app_cron_runs');
    await knex('jobs').where({ type: 'app-cron.fire' }).whereIn('status', ['queued', 'running']).delete();
    await knex('jobs').where({ type: 'app-cron.run' }).whereIn('status', ['queued', 'running']).update({ type: 'cron.run' });
}

export async function down(knex: Knex): Promise<void> {
    await knex.schema.createTable('app_cron_runs', (t) => {
        t.string('id', 32).primary();
        t.string('cron_job_id', 32).notNullable().references('app_cron_jobs.id').onDelete('CASCADE');
        t.string('app_id', 32).notNullable();
        t.string('project_id', 32).notNullable();
        t.string('status', 16).notNullable();
        t.string('trigger', 16).notNullable();
        t.string('driver', 16).notNullable();
        t.integer('exit_code');
        t.string('scheduled_for', 30);
        t.string('started_at', 30);
        t.string('finished_at', 30);
        t.string('created_at', 30).notNullable();
        t.index(['cron_job_id', 'created_at', 'id']);
    });
    await knex.raw(`INSERT INTO app_cron_runs (id, cron_job_id, app_id, project_id, status, trigger, driver, exit_code, scheduled_for, started_at, finished_at, created_at)
        SELECT r.id, r.job_id, r.resource_id, r.project_id, r.status, CASE WHEN r.trigger = 'manual' THEN 'manual' ELSE 'schedule' END, r.driver, r.exit_code,
            r.scheduled_for, r.started_at, r.finished_at, r.created_at
        FROM cron_runs r JOIN app_cron_jobs j ON j.id = r.job_id WHERE r.job_type = 'app-cron-job'`);
    await knex('jobs').where({ type: 'cron.run' }).whereIn('status', ['queued', 'running']).update({ type: 'app-cron.run' });
    await knex.schema.dropTable('cron_runs');
    await knex.schema.alterTable('app_cron_jobs', (t) => {
        t.dropIndex(['next_run_at']);
    });
    await knex.schema.dropTable('cron_jobs');
}
