import type { Knex } from 'knex';
import { dialect } from '../knex';

// Apps' own tables become the runtime-resource mechanism's, keyed by (resource_type, resource_id) so sites, workers
// and cron jobs share them: environment variables and custom domains move (rows copied), log lines, metric points
// and spans say which kind they belong to, lists get keyset indexes, log messages a text index, and billing an
// allocation history.
const DAY_MS = 86_400_000;
export const PENDING_DOMAIN_DAYS = 7;

export async function up(knex: Knex): Promise<void> {
    const postgres = dialect(knex) === 'postgres';

    await knex.schema.createTable('env_vars', (t) => {
        t.string('resource_type', 32).notNullable();
        t.string('resource_id', 32).notNullable();
        t.string('name', 128).notNullable();
        t.text('value').notNullable();                            // sealed with ENCRYPTION_KEY
        t.string('created_at', 30).notNullable();
        t.string('updated_at', 30).notNullable();
        t.primary(['resource_type', 'resource_id', 'name']);
    });
    await knex.raw(`INSERT INTO env_vars (resource_type, resource_id, name, value, created_at, updated_at)
        SELECT 'app', app_id, name, value, created_at, updated_at FROM app_env_vars`);
    await knex.schema.dropTable('app_env_vars');

    // A hostname is held by at most one verified claim; pending claims do not block anyone and expire.
    await knex.schema.createTable('domains', (t) => {
        t.string('id', 32).primary();
        t.string('resource_type', 32).notNullable();
        t.string('resource_id', 32).notNullable();
        t.string('project_id', 32).notNullable().references('projects.id').onDelete('CASCADE');
        t.string('hostname', 253).notNullable();
        t.string('status', 16).notNullable();                     // pending | verified | expired
        t.string('verification_token', 64).notNullable();
        t.string('verified_at', 30);
        t.string('checked_at', 30);
        t.text('last_error');
        t.string('expires_at', 30);                               // a pending claim's end
        t.string('created_at', 30).notNullable();
        t.unique(['resource_id', 'hostname']);
        t.index(['resource_id', 'created_at', 'id']);
        t.index(['hostname']);
    });
    await knex.raw('CREATE UNIQUE INDEX domains_verified_hostname ON domains (hostname) WHERE status = \'verified\'');
    const domains = await knex<{ app_id: string; status: string; created_at: string }>('app_domains').select();
    for (const row of domains) {
        const { app_id: appId, ...rest } = row;
        await knex('domains').insert({
            ...rest, resource_type: 'app', resource_id: appId,
            expires_at: row.status === 'pending' ? new Date(Date.parse(row.created_at) + PENDING_DOMAIN_DAYS * DAY_MS).toISOString() : null
        });
    }

    await knex.schema.dropTable('app_domains');

    for (const table of ['log_lines', 'metric_points', 'spans']) {
        await knex.schema.alterTable(table, (t) => {
            t.string('resource_type', 32).notNullable().defaultTo('app');
        });
    }

    // Metric points are bucketed in SQL by their time in milliseconds.
    await knex.schema.alterTable('metric_points', (t) => {
        t.bigInteger('at').notNullable().defaultTo(0);
        t.dropIndex(['resource_id', 'metric', 'timestamp']);
        t.index(['resource_id', 'metric', 'at']);
    });
    const stamps = await knex<{ timestamp: string }>('metric_points').distinct('timestamp');
    for (const point of stamps) {
        await knex('metric_points').where({ timestamp: point.timestamp }).update({ at: Date.parse(point.timestamp) });
    }

    // Newest-first reads walk one index per resource (and per level, merged), whatever the filters.
    await knex.schema.alterTable('log_lines', (t) => {
        t.boolean('truncated').notNullable().defaultTo(false);   // the message was cut at MAX_MESSAGE
        t.dropIndex(['resource_id', 'timestamp']);
        t.index(['resource_id', 'timestamp', 'seq']);
        t.index(['resource_id', 'level', 'timestamp', 'seq']);
        t.index(['run_id', 'seq']);
        t.dropIndex(['run_id']);
    });
    if (postgres) {
        // Substring search through trigrams, when the server offers pg_trgm; without it the search scans (and says so at boot).
        const trigrams = await knex.raw<{ rows: unknown[] }>('SELECT 1 FROM pg_available_extensions WHERE name = \'pg_trgm\'');
        if (trigrams.rows.length) {
            await knex.raw('CREATE EXTENSION IF NOT EXISTS pg_trgm SCHEMA public');
            await knex.raw('CREATE INDEX log_lines_message_trgm ON log_lines USING gin (lower(message) public.gin_trgm_ops)');
        }
    }
    else {
        await knex.raw('CREATE VIRTUAL TABLE log_search USING fts5(message, content=\'log_lines\', content_rowid=\'seq\', tokenize=\'trigram\')');
        await knex.raw('CREATE TRIGGER log_lines_search_insert AFTER INSERT ON log_lines BEGIN INSERT INTO log_search (rowid, message) VALUES (new.seq, new.message); END');
        await knex.raw('CREATE TRIGGER log_lines_search_delete AFTER DELETE ON log_lines BEGIN INSERT INTO log_search (log_search, rowid, message) VALUES (\'delete\', old.seq, old.message); END');
        await knex.raw('INSERT INTO log_search (log_search) VALUES (\'rebuild\')');
    }

    await knex.schema.alterTable('apps', (t) => {
        t.dropIndex(['project_id', 'created_at']);
        t.index(['project_id', 'created_at', 'id']);
    });
    await knex.schema.alterTable('api_keys', (t) => {
        t.dropIndex(['user_id', 'created_at']);
        t.index(['user_id', 'created_at', 'id']);
    });
    await knex.schema.alterTable('memberships', (t) => {
        t.index(['project_id', 'created_at', 'user_id']);
    });
    await knex.schema.alterTable('deployments', (t) => {
        t.dropIndex(['resource_id', 'created_at']);
        t.index(['resource_id', 'created_at', 'id']);
    });
    await knex.schema.alterTable('app_cron_runs', (t) => {
        t.dropIndex(['cron_job_id', 'created_at']);
        t.index(['cron_job_id', 'created_at', 'id']);
    });

    // What billing meters, recorded as it happens: the allocation a resource holds from `at` until its next event.
    await knex.schema.createTable('allocation_events', (t) => {
        t.increments('seq');
        t.string('resource_type', 32).notNullable();
        t.string('resource_id', 32).notNullable();
        t.string('project_id', 32).notNullable();
        t.string('reason', 24).notNullable();                     // created | started | scaled | plan | storage | stopped | deleted | transferred
        t.boolean('running').notNullable();
        t.integer('instances').notNullable();
        t.string('plan', 32);
        t.double('storage_gib').notNullable().defaultTo(0);
        t.string('at', 30).notNullable();
        t.index(['resource_id', 'seq']);
        t.index(['project_id', 'at']);
    });
    const now = new Date().toISOString();
    await knex.raw(`INSERT INTO allocation_events (resource_type, resource_id, project_id, reason, running, instances, plan, storage_gib, at)
        SELECT 'app', id, project_id, 'created', live_deployment_id IS NOT NULL, instances, plan, 0, ? FROM apps`, [now]);
}

export async function down(knex: Knex): Promise<void> {
    const postgres = dialect(knex) === 'postgres';
    await knex.schema.dropTable('allocation_events');
    await knex.schema.alterTable('app_cron_runs', (t) => {
        t.dropIndex(['cron_job_id', 'created_at', 'id']);
        t.index(['cron_job_id', 'created_at']);
    });
    await knex.schema.alterTable('deployments', (t) => {
        t.dropIndex(['resource_id', 'created_at', 'id']);
        t.index(['resource_id', 'created_at']);
    });
    await knex.schema.alterTable('memberships', (t) => {
        t.dropIndex(['project_id', 'created_at', 'user_id']);
    });
    await knex.schema.alterTable('api_keys', (t) => {
        t.dropIndex(['user_id', 'created_at', 'id']);
        t.index(['user_id', 'created_at']);
    });
    await knex.schema.alterTable('apps', (t) => {
        t.dropIndex(['project_id', 'created_at', 'id']);
        t.index(['project_id', 'created_at']);
    });
    if (postgres) {
        await knex.raw('DROP INDEX IF EXISTS log_lines_message_trgm');
    }
    else {
        await knex.raw('DROP TRIGGER log_lines_search_insert');
        await knex.raw('DROP TRIGGER log_lines_search_delete');
        await knex.raw('DROP TABLE log_search');
    }

    await knex.schema.alterTable('log_lines', (t) => {
        t.dropIndex(['run_id', 'seq']);
        t.index(['run_id']);
        t.dropIndex(['resource_id', 'level', 'timestamp', 'seq']);
        t.dropIndex(['resource_id', 'timestamp', 'seq']);
        t.index(['resource_id', 'timestamp']);
        t.dropColumn('truncated');
    });
    await knex.schema.alterTable('metric_points', (t) => {
        t.dropIndex(['resource_id', 'metric', 'at']);
        t.index(['resource_id', 'metric', 'timestamp']);
        t.dropColumn('at');
    });
    for (const table of ['log_lines', 'metric_points', 'spans']) {
        await knex.schema.alterTable(table, (t) => {
            t.dropColumn('resource_type');
        });
    }

    await knex.schema.createTable('app_domains', (t) => {
        t.string('id', 32).primary();
        t.string('app_id', 32).notNullable().references('apps.id').onDelete('CASCADE');
        t.string('project_id', 32).notNullable();
        t.string('hostname', 253).notNullable().unique();
        t.string('status', 16).notNullable();
        t.string('verification_token', 64).notNullable();
        t.string('verified_at', 30);
        t.string('checked_at', 30);
        t.text('last_error');
        t.string('created_at', 30).notNullable();
        t.index(['app_id', 'created_at']);
    });
    await knex.raw(`INSERT INTO app_domains (id, app_id, project_id, hostname, status, verification_token, verified_at, checked_at, last_error, created_at)
        SELECT id, resource_id, project_id, hostname, status, verification_token, verified_at, checked_at, last_error, created_at FROM domains
        WHERE resource_type = 'app' AND status <> 'expired'`);
    await knex.schema.dropTable('domains');
    await knex.schema.createTable('app_env_vars', (t) => {
        t.string('app_id', 32).notNullable().references('apps.id').onDelete('CASCADE');
        t.string('name', 128).notNullable();
        t.text('value').notNullable();
        t.string('created_at', 30).notNullable();
        t.string('updated_at', 30).notNullable();
        t.primary(['app_id', 'name']);
    });
    await knex.raw(`INSERT INTO app_env_vars (app_id, name, value, created_at, updated_at)
        SELECT resource_id, name, value, created_at, updated_at FROM env_vars WHERE resource_type = 'app'`);
    await knex.schema.dropTable('env_vars');
}
