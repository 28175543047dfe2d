import * as Fs from 'node:fs';
import * as Os from 'node:os';
import * as Path from 'node:path';

import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';
import knexFactory, { type Knex } from 'knex';

import { createKnex } from '../../lib/db/knex';
import { MIGRATIONS } from '../../lib/db/migrations';
import { postgresUrl, usePostgres } from '../helpers/server';

// Migrations that move data are tested on a database filled under the schema before them: the rows arrive in their
// new tables, and rolling back returns them.
const { describe, it, before, after } = exports.lab = Lab.script();
const { expect } = Code;

type Migration = typeof MIGRATIONS[number];

const source = (migrations: readonly Migration[]): Knex.MigrationSource<Migration> => ({
    getMigrations: async () => [...migrations],
    getMigrationName: (migration) => migration.name,
    getMigration: async (migration) => migration
});

const upTo = (name: string) => MIGRATIONS.slice(0, MIGRATIONS.findIndex((migration) => migration.name === name) + 1);

/** An empty database to migrate step by step: a fresh PostgreSQL schema, or a SQLite file in a temp folder. */
async function scratchDatabase(): Promise<{ knex: Knex; cleanup: () => Promise<void> }> {
    if (usePostgres) {
        const schema = `m_${Math.random().toString(36).slice(2, 10)}`;
        const admin = knexFactory({ client: 'pg', connection: postgresUrl! });
        await admin.raw(`CREATE SCHEMA ${schema}`);
        const knex = createKnex({ client: 'postgres', connectionString: postgresUrl!, searchPath: schema });
        return {
            knex,
            cleanup: async () => {
                await knex.destroy();
                await admin.raw(`DROP SCHEMA ${schema} CASCADE`);
                await admin.destroy();
            }
        };
    }

    const dir = Fs.mkdtempSync(Path.join(Os.tmpdir(), 'hostless-migrate-'));
    const knex = createKnex({ client: 'sqlite', filename: Path.join(dir, 'old.sqlite') });
    return {
        knex,
        cleanup: async () => {
            await knex.destroy();
            Fs.rmSync(dir, { recursive: true, force: true });
        }
    };
}

describe('migration 004-runtime-resources', () => {

    let knex: Knex;
    let cleanup: () => Promise<void>;

    before(async () => {
        ({ knex, cleanup } = await scratchDatabase());
        await knex.migrate.latest({ migrationSource: source(upTo('003-apps')), tableName: 'knex_migrations' });
    });

    after(async () => {
        await cleanup?.();
    });

    it('copies environment variables and domains into the shared tables, and back on rollback', async () => {
        const at = '2026-11-01T10:00:00.000Z';
        await knex('users').insert({ id: 'usr_0000000000000001', email: 'old@example.com', name: 'Old', password_hash: 'x', created_at: at, updated_at: at });
        await knex('projects').insert({ id: 'prj_0000000000000001', name: 'Old', kind: 'personal', status: 'active', created_by: null, created_at: at, updated_at: at });
        await knex('apps').insert({
            id: 'app_0000000000000001', name: 'legacy', project_id: 'prj_0000000000000001', status: 'live', plan: 'standard', region: 'eu-west', instances: 3,
            auto_deploy: false, live_deployment_id: 'dep_0000000000000001', created_at: at, updated_at: at
        });
        await knex('app_env_vars').insert([
            { app_id: 'app_0000000000000001', name: 'A', value: 'sealed-a', created_at: at, updated_at: at },
            { app_id: 'app_0000000000000001', name: 'B', value: 'sealed-b', created_at: at, updated_at: at }
        ]);
        await knex('app_domains').insert([
            { id: 'dom_0000000000000001', app_id: 'app_0000000000000001', project_id: 'prj_0000000000000001', hostname: 'old.example.com', status: 'verified', verification_token: 't1', verified_at: at, created_at: at },
            { id: 'dom_0000000000000002', app_id: 'app_0000000000000001', project_id: 'prj_0000000000000001', hostname: 'new.example.com', status: 'pending', verification_token: 't2', created_at: at }
        ]);
        await knex('log_lines').insert({ resource_id: 'app_0000000000000001', project_id: 'prj_0000000000000001', stream: 'runtime', level: 'info', message: 'legacy line about unicorns', timestamp: at });
        await knex('metric_points').insert({ resource_id: 'app_0000000000000001', metric: 'cpu-usage', timestamp: at, value: 12 });

        await knex.migrate.latest({ migrationSource: source(upTo('004-runtime-resources')), tableName: 'knex_migrations' });

        expect(await knex('env_vars').orderBy('name').select('resource_type', 'resource_id', 'name', 'value')).to.equal([
            { resource_type: 'app', resource_id: 'app_0000000000000001', name: 'A', value: 'sealed-a' },
            { resource_type: 'app', resource_id: 'app_0000000000000001', name: 'B', value: 'sealed-b' }
        ]);
        const domains = await knex('domains').orderBy('id').select('id', 'resource_type', 'resource_id', 'hostname', 'status', 'expires_at');
        expect(domains).to.equal([
            { id: 'dom_0000000000000001', resource_type: 'app', resource_id: 'app_0000000000000001', hostname: 'old.example.com', status: 'verified', expires_at: null },
            { id: 'dom_0000000000000002', resource_type: 'app', resource_id: 'app_0000000000000001', hostname: 'new.example.com', status: 'pending', expires_at: '2026-11-08T10:00:00.000Z' }
        ]);
        expect((await knex('log_lines').first()).resource_type).to.equal('app');
        expect(Number((await knex('metric_points').first()).at)).to.equal(Date.parse(at));
        const event = await knex('allocation_events').first();
        expect(event).to.include({ resource_id: 'app_0000000000000001', reason: 'created', instances: 3, plan: 'standard' });
        expect(!!event.running).to.be.true();
        if (!usePostgres) {
            expect((await knex.raw('SELECT rowid FROM log_search WHERE log_search MATCH ?', ['"unicorns"'])).length, 'old lines are searchable').to.equal(1);
        }

        await knex.migrate.rollback({ migrationSource: source(upTo('004-runtime-resources')), tableName: 'knex_migrations' });
        expect(await knex('app_env_vars').orderBy('name').pluck('value')).to.equal(['sealed-a', 'sealed-b']);
        expect(await knex('app_domains').orderBy('id').pluck('hostname')).to.equal(['old.example.com', 'new.example.com']);
        expect(await knex.schema.hasTable('env_vars')).to.be.false();
    });
});

describe('migration 046-cron-jobs', () => {

    let knex: Knex;
    let cleanup: () => Promise<void>;

    before(async () => {
        ({ knex, cleanup } = await scratchDatabase());
        await knex.migrate.latest({ migrationSource: source(upTo('045-workers')), tableName: 'knex_migrations' });
    });

    after(async () => {
        await cleanup?.();
    });

    it('moves the apps\' cron runs into the scheduler\'s table, drops their queued fires, and moves them back on rollback', async () => {
        const at = '2026-11-01T10:00:00.000Z';
        await knex('users').insert({ id: 'usr_0000000000000001', email: 'old@example.com', name: 'Old', password_hash: 'x', created_at: at, updated_at: at });
        await knex('projects').insert({ id: 'prj_0000000000000001', name: 'Old', kind: 'personal', status: 'active', created_by: null, created_at: at, updated_at: at });
        await knex('apps').insert({ id: 'app_0000000000000001', name: 'legacy', project_id: 'prj_0000000000000001', status: 'live', plan: 'standard', region: 'eu-west', instances: 1, auto_deploy: false, created_at: at, updated_at: at });
        await knex('app_cron_jobs').insert({
            id: 'crn_0000000000000001', app_id: 'app_0000000000000001', project_id: 'prj_0000000000000001', name: 'nightly', schedule: '0 3 * * *', command: 'x',
            status: 'active', next_run_at: '2026-11-02T03:00:00.000Z', created_at: at, updated_at: at
        });
        await knex('app_cron_runs').insert([
            { id: 'run_0000000000000001', cron_job_id: 'crn_0000000000000001', app_id: 'app_0000000000000001', project_id: 'prj_0000000000000001', status: 'recorded', trigger: 'schedule', driver: 'records', scheduled_for: '2026-11-01T03:00:00.000Z', created_at: at },
            { id: 'run_0000000000000002', cron_job_id: 'crn_0000000000000001', app_id: 'app_0000000000000001', project_id: 'prj_0000000000000001', status: 'queued', trigger: 'manual', driver: 'records', created_at: at }
        ]);
        const job = (type: string, key: string) => ({ id: `job_${key.padStart(16, '0')}`, type, payload: '{}', status: 'queued', idempotency_key: key, run_at: at, attempts: 0, max_attempts: 5, created_at: at, updated_at: at });
        await knex('jobs').insert([job('app-cron.fire', '1'), job('app-cron.run', '2')]);

        await knex.migrate.latest({ migrationSource: source(upTo('046-cron-jobs')), tableName: 'knex_migrations' });
        expect(await knex('cron_runs').orderBy('id').select('id', 'job_type', 'job_id', 'resource_type', 'resource_id', 'trigger', 'scheduled_for')).to.equal([
            { id: 'run_0000000000000001', job_type: 'app-cron-job', job_id: 'crn_0000000000000001', resource_type: 'app', resource_id: 'app_0000000000000001', trigger: 'schedule', scheduled_for: '2026-11-01T03:00:00.000Z' },
            { id: 'run_0000000000000002', job_type: 'app-cron-job', job_id: 'crn_0000000000000001', resource_type: 'app', resource_id: 'app_0000000000000001', trigger: 'manual', scheduled_for: null }
        ]);
        expect(await knex('jobs').orderBy('id').pluck('type')).to.equal(['cron.run']);
        expect(await knex.schema.hasTable('app_cron_runs')).to.be.false();

        await knex.migrate.rollback({ migrationSource: source(upTo('046-cron-jobs')), tableName: 'knex_migrations' });
        expect(await knex('app_cron_runs').orderBy('id').pluck('id')).to.equal(['run_0000000000000001', 'run_0000000000000002']);
        expect(await knex('jobs').pluck('type')).to.equal(['app-cron.run']);
        expect(await knex.schema.hasTable('cron_runs')).to.be.false();
    });
});
