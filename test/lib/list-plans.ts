import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';
import type { Knex } from 'knex';
import { escapeLiteral } from 'pg';

import { dialect } from '../../lib/db/knex';
import { newId } from '../../lib/ids';
import { caller, createKey, register, type TestUser } from '../helpers/api';
import { createApp } from '../helpers/apps';
import { testServer, type TestServer } from '../helpers/server';

// Lists cost their page, not their table: every statement a list route (and a log read) runs is shown to the database
// for its plan, on tables of at least 20,000 rows after ANALYZE: no full scan, and no sort of what the table holds.
// On PostgreSQL both plans are asked: the one for the statement's values and the one the reader keeps for any values.
// SQLite merges ordered arms without any temporary B-tree. PostgreSQL may sort rows that are already bounded (one row
// per granted resource, a page per arm): a Sort is allowed only over at most arms x (page + 1) estimated rows.
// The statements are the ones the routes really ran.
const { describe, it, before, after } = exports.lab = Lab.script();
const { expect } = Code;

const ROWS = 20_000;

describe('list and log plans', () => {

    let instance: TestServer;
    let knex: Knex;
    let owner: TestUser;
    let token: string;
    let app: { id: string; name: string; projectId: string };
    let projects: string[];
    let jobId: string;
    const call = caller(() => instance.server);

    before({ timeout: 240_000 }, async () => {
        instance = await testServer();
        knex = instance.server.app.knex;
        owner = await register(instance.server, 'owner');
        token = (await createKey(instance.server, owner, ['apps:read', 'projects:read', 'deployments:read', 'logs:read', 'cron-jobs:read', 'workers:read'])).token;
        projects = [owner.projectId];
        for (const name of ['One', 'Two']) {
            projects.push((await call('POST', '/v1/projects', owner.session, { name })).result.id);
        }

        app = await createApp(instance.server, owner);
        jobId = (await call('POST', `/v1/apps/${app.name}/cron-jobs`, owner.session, { name: 'nightly', schedule: '0 3 * * *', command: 'x' })).result.id;
        await fill(knex, owner, projects, app, jobId);
        await knex.raw('ANALYZE');
    });

    after(async () => {
        await instance?.stop();
    });

    /** The statements a request runs through the prepared-statement reader, with their parameters. */
    const capture = async (url: string, authorization = token): Promise<Array<{ sql: string; params: readonly unknown[] }>> => {
        const seen: Array<{ sql: string; params: readonly unknown[] }> = [];
        const reader = instance.server.plugins['hostless-auth'].reader;
        reader.observe((sql, params) => seen.push({ sql, params }));
        try {
            const res = await call('GET', url, authorization);
            expect(res.statusCode, res.payload).to.equal(200);
        }
        finally {
            reader.observe(null);
        }

        return seen;
    };

    /**
     * PostgreSQL's plans of a statement: for its values, and the one plan the reader keeps for any values (its
     * connections set plan_cache_mode = force_generic_plan, lib/db/pg-pipelines.ts), asked of a statement prepared the
     * same way, with the values written in as literals.
     */
    const postgresPlans = async (sql: string, params: readonly unknown[]): Promise<Array<Record<string, any>>> => {
        const forValues = await knex.raw(`EXPLAIN (FORMAT JSON) ${sql}`, params as Knex.RawBinding[]);
        const kept = await knex.transaction(async (trx) => {
            let n = 0;
            await trx.raw('SET LOCAL plan_cache_mode = force_generic_plan');
            await trx.raw(`PREPARE list_plan_check AS ${sql.replace(/\?/g, () => `$${++n}`)}`);
            const literal = (value: unknown): string => typeof value === 'number' ? String(value) : escapeLiteral(Array.isArray(value) ? `{${value.map((item) => `"${String(item)}"`).join(',')}}` : String(value));
            const result = await trx.raw(`EXPLAIN (FORMAT JSON) EXECUTE list_plan_check(${params.map(literal).join(', ')})`);
            await trx.raw('DEALLOCATE list_plan_check');
            return result;
        });
        return [forValues.rows[0]['QUERY PLAN'][0].Plan, kept.rows[0]['QUERY PLAN'][0].Plan];
    };

    const problems = async (sql: string, params: readonly unknown[], sorts = true): Promise<string[]> => {
        if (dialect(knex) === 'postgres') {
            const found: string[] = [];
            const bound = (sql.split(' UNION ALL ').length) * 101;
            const walk = (node: Record<string, any>) => {
                const input = node.Plans?.[0]?.['Plan Rows'] ?? 0;
                if (node['Node Type'] === 'Seq Scan' || (sorts && /Sort$/.test(node['Node Type']) && input > bound)) {
                    found.push(`${node['Node Type']}${node['Relation Name'] ? ` on ${node['Relation Name']}` : ''} (${input} rows)`);
                }

                for (const child of node.Plans ?? []) {
                    walk(child);
                }
            };

            for (const plan of await postgresPlans(sql, params)) {
                walk(plan);
            }

            return found;
        }

        const plan: Array<{ detail: string }> = await knex.raw(`EXPLAIN QUERY PLAN ${sql}`, params as Knex.RawBinding[]);
        return plan.map((step) => step.detail).filter((detail) => (sorts && /TEMP B-TREE/.test(detail)) || /^SCAN (?!.*VIRTUAL TABLE)/.test(detail));
    };

    const expectPlans = async (url: string, options: { sorts?: boolean; authorization?: string } = {}) => {
        const statements = await capture(url, options.authorization);
        expect(statements.length).to.be.above(0);
        for (const statement of statements) {
            expect(await problems(statement.sql, statement.params, options.sorts ?? true), `${url}: ${statement.sql}`).to.equal([]);
            // A LIMIT bound as a parameter makes SQLite prepare the statement again on every run (lib/db/limit.ts).
            if (dialect(knex) !== 'postgres') {
                expect(statement.sql, `${url}: ${statement.sql}`).to.not.match(/LIMIT \?/);
            }
        }
    };

    it('walks indexes in order for the apps a caller reaches: member projects and collaborator grants, merged', async () => {
        await expectPlans('/v1/apps');
        const first = await call('GET', '/v1/apps?limit=10', token);
        const next = /<([^>]+)>/.exec(first.headers.link as string)![1];
        await expectPlans(next);
        await expectPlans(`/v1/apps?projectId=${projects[1]}`);
        await expectPlans(`/v1/projects/${projects[1]}/apps`);
    });

    it('walks indexes in order for projects, members, keys, deployments and cron runs', async () => {
        await expectPlans('/v1/projects');
        await expectPlans(`/v1/projects/${projects[1]}/members`, { authorization: owner.session });
        await expectPlans('/v1/users/me/api-keys', { authorization: owner.session });
        await expectPlans(`/v1/apps/${app.name}/deployments`);
        await expectPlans(`/v1/apps/${app.name}/deployments?status=live`);
        await expectPlans(`/v1/apps/${app.name}/cron-jobs/${jobId}/runs`);
    });

    it('walks indexes in order for a user\'s invitations and a project\'s', async () => {
        await expectPlans('/v1/users/me/invitations', { authorization: owner.session });
        const first = await call('GET', '/v1/users/me/invitations?limit=10', owner.session);
        await expectPlans(/<([^>]+)>/.exec(first.headers.link as string)![1], { authorization: owner.session });
        await expectPlans(`/v1/projects/${projects[1]}/invitations`, { authorization: owner.session });
    });

    it('walks indexes in order for workers and cron jobs, and finds due jobs through next_run_at', async () => {
        await expectPlans('/v1/workers');
        await expectPlans(`/v1/workers?projectId=${projects[1]}`);
        await expectPlans('/v1/cron-jobs');
        await expectPlans(`/v1/cron-jobs?projectId=${projects[2]}`);
        // The scheduler's read of due jobs, as each source makes it: one index range, however many jobs wait.
        for (const [table, active] of [['cron_jobs', { paused: false }], ['app_cron_jobs', { status: 'active' }]] as const) {
            const due = knex(table).select('id', 'next_run_at').where('next_run_at', '<=', '2026-06-01T00:00:00.000Z').where(active).orderBy('next_run_at').limit(100).toSQL();
            expect(await problems(due.sql, due.bindings), table).to.equal([]);
        }
    });

    it('reads logs through indexes: newest first, by level, by time, and by text', async () => {
        await expectPlans(`/v1/apps/${app.name}/logs`);
        await expectPlans(`/v1/apps/${app.name}/logs?level=warn`);
        await expectPlans(`/v1/apps/${app.name}/logs?since=2026-01-01T00:00:00Z&until=2026-12-31T00:00:00Z`);
        // A text search reads the text index (FTS5, or pg_trgm); PostgreSQL may sort the few matches it finds.
        await expectPlans(`/v1/apps/${app.name}/logs?q=connection`, { sorts: dialect(knex) !== 'postgres' });
    });

    it('plans a text search of logs for its words on PostgreSQL, and keeps one plan for pages and other reads', async () => {
        if (dialect(knex) !== 'postgres') {
            return;                                             // SQLite plans each statement once: there is no choice to test
        }

        // The reader's connections for searches leave PostgreSQL its own choice: a search's first runs are planned for
        // their words. The other connections keep one plan (lib/db/pg-pipelines.ts).
        const reader = instance.server.plugins['hostless-auth'].reader;
        for (const word of ['nowhere-in-any-line', 'connection']) {
            expect((await call('GET', `/v1/apps/${app.name}/logs?q=${word}`, token)).statusCode).to.equal(200);
        }

        expect((await call('GET', `/v1/apps/${app.name}/logs?level=warn`, token)).statusCode).to.equal(200);
        const plans = async (plansPerValue: boolean) => (await reader.all<{ statement: string; generic_plans: number; custom_plans: number }>(
            'SELECT statement, generic_plans::int, custom_plans::int FROM pg_prepared_statements WHERE statement LIKE \'SELECT l.% FROM log_lines l %\'', [], { plansPerValue }));
        const searched = await plans(true);
        expect(searched, JSON.stringify(searched)).to.have.length(1);
        expect(searched[0].statement).to.contain('LIKE');
        expect(searched[0].generic_plans).to.equal(0);
        expect(searched[0].custom_plans).to.be.at.least(2);
        const kept = await plans(false);
        expect(kept.length, JSON.stringify(kept)).to.be.above(0);
        expect(kept.every((statement) => !statement.statement.includes('LIKE') && statement.custom_plans === 0), JSON.stringify(kept)).to.be.true();
    });

    it('walks each project\'s own range when all of one project\'s apps are older than all of another\'s', { timeout: 120_000 }, async () => {
        // The bench's layout: rows written project by project, in time order. An index on time alone would look cheap to
        // PostgreSQL for the older project's arm, and walk every newer app to reach its page (migration 150).
        const user = await register(instance.server, 'blocks');
        const blocks = [user.projectId, (await call('POST', '/v1/projects', user.session, { name: 'Newer' })).result.id as string];
        const time = (i: number) => new Date(Date.UTC(2027, 0, 1) + i * 1000).toISOString();     // after every other app: the table stays in time order
        for (const [b, projectId] of blocks.entries()) {
            const rows = Array.from({ length: 10_000 }, (_, i) => ({
                id: newId('app'), name: `block-${b}-${i}`, project_id: projectId, status: 'created', plan: 'starter', region: 'eu-west', instances: 1,
                auto_deploy: false, created_at: time(b * 10_000 + i), updated_at: time(b * 10_000 + i)
            }));
            for (let i = 0; i < rows.length; i += 500) {
                await knex('apps').insert(rows.slice(i, i + 500));
            }
        }

        await knex.raw('ANALYZE');
        const key = (await createKey(instance.server, user, ['apps:read'])).token;
        const statements = await capture('/v1/apps?limit=50', key);
        expect(statements.length).to.be.above(0);
        for (const statement of statements) {
            expect(await problems(statement.sql, statement.params), statement.sql).to.equal([]);
            if (dialect(knex) === 'postgres') {
                // Every walk of the apps' indexes is bounded by its own conditions: none reads apps only to filter them out.
                const result = await knex.raw(`EXPLAIN (FORMAT JSON) ${statement.sql}`, statement.params as Knex.RawBinding[]);
                const filtered: string[] = [];
                const walk = (node: Record<string, any>) => {
                    if (node['Relation Name'] === 'apps' && node.Filter) {
                        filtered.push(`${node['Index Name']}: ${node.Filter}`);
                    }

                    for (const child of node.Plans ?? []) {
                        walk(child);
                    }
                };
                walk(result.rows[0]['QUERY PLAN'][0].Plan);
                expect(filtered, statement.sql).to.equal([]);
            }
        }
    });

    describe('of databases and virtual machines', () => {

        let reader: string;
        let database: { id: string; name: string };
        let cloneId: string;

        before({ timeout: 240_000 }, async () => {
            reader = owner.session;                             // the owner's keys are the fillers' 10,000: a session reads
            ({ database, cloneId } = await fillDatabases(knex, projects));
            await knex.raw('ANALYZE');
        });

        it('walks indexes in order for the databases and machines a caller reaches, a database\'s linked apps and an import\'s logs', async () => {
            for (const url of ['/v1/databases', `/v1/databases?projectId=${projects[1]}`, '/v1/virtual-machines', `/v1/virtual-machines/project/${projects[1]}`,
                `/v1/databases/${database.name}/linked-apps`, `/v1/databases/${database.name}/import/${cloneId}/logs`, `/v1/databases/${database.name}/import/${cloneId}/logs?level=warn`]) {
                await expectPlans(url, { authorization: reader });
            }

            const first = await call('GET', '/v1/virtual-machines?limit=10', reader);
            await expectPlans(/<([^>]+)>/.exec(first.headers.link as string)![1], { authorization: reader });
        });
    });
});

/** Databases and machines in the owner's three projects and elsewhere, links to one database, and an import's log lines, ROWS of each. */
async function fillDatabases(knex: Knex, projects: string[]): Promise<{ database: { id: string; name: string }; cloneId: string }> {
    const time = (i: number) => new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString();
    const batch = async (table: string, rows: object[]) => {
        for (let i = 0; i < rows.length; i += 500) {
            await knex(table).insert(rows.slice(i, i + 500));
        }
    };

    const range = Array.from({ length: ROWS }, (_, i) => i);
    const elsewhere = (await knex('projects').whereNotIn('id', projects).limit(100).pluck('id')) as string[];
    const projectOf = (i: number) => i % 4 === 3 ? elsewhere[i % elsewhere.length] : projects[i % 3];
    const databases = range.map((i) => {
        const id = newId('db');
        return {
            id, name: `filler-db-${i}`, project_id: projectOf(i), status: 'available', engine: 'postgres', version: '16', tier: 'starter', storage_gib: 1,
            driver: 'records', physical_name: `hl_${id.toLowerCase()}`, created_at: time(i), updated_at: time(i)
        };
    });
    await batch('databases', databases);
    await batch('virtual_machines', range.map((i) => ({
        id: newId('vm'), name: 'filler', project_id: projectOf(i), status: 'running', driver: 'records', size: 's-1vcpu-1gb', image: 'debian-12', region: 'eu-west',
        vcpus: 1, memory_mib: 1024, disk_gib: 25, pricing_version: '2026-11-01', ssh_keys: '[]', firewall: '[]', firewall_updated_at: time(i), created_at: time(i), updated_at: time(i)
    })));
    const database = databases[0];
    await batch('database_links', range.map((i) => ({
        resource_type: 'app', resource_id: newId('app'), database_id: i % 2 ? database.id : databases[i].id, resource_name: `filler-${i}`, project_id: database.project_id, created_at: time(i)
    })));
    const imports = range.map((i) => ({
        id: newId('cln'), database_id: databases[i].id, project_id: databases[i].project_id, status: 'succeeded', driver: 'records', source: 'postgresql://u@h:5432/d',
        source_sealed: 'x', created_at: time(i), updated_at: time(i)
    }));
    await batch('database_imports', imports);
    const cloneId = imports[0].id;
    const levels = ['debug', 'info', 'warn', 'error'];
    await batch('log_lines', range.map((i) => ({
        resource_type: 'database', resource_id: database.id, project_id: database.project_id, run_id: i % 2 ? cloneId : null, stream: i % 2 ? 'import' : 'event',
        level: levels[i % 4], message: `pg_restore: processing data for table "public.t${i}"`, timestamp: time(i)
    })));
    return { database: { id: database.id, name: database.name }, cloneId };
}

/** Tables of ROWS rows each: users, sessions, projects (the owner a member of three), memberships, apps, grants (40 the owner's), invitations (half the owner's), keys, deployments, logs, cron jobs and runs. */
async function fill(knex: Knex, owner: TestUser, projects: string[], app: { id: string }, jobId: string): Promise<void> {
    const time = (i: number) => new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString();
    const batch = async (table: string, rows: object[]) => {
        for (let i = 0; i < rows.length; i += 500) {
            await knex(table).insert(rows.slice(i, i + 500));
        }
    };

    const range = Array.from({ length: ROWS }, (_, i) => i);
    const users = range.map((i) => ({ id: newId('usr'), email: `filler-${i}@example.com`, name: 'Filler', password_hash: 'x', created_at: time(i), updated_at: time(i) }));
    await batch('users', users);
    await batch('sessions', range.map((i) => ({ id: newId('ses'), user_id: users[i].id, created_at: time(i), expires_at: '2099-01-01T00:00:00.000Z' })));
    const others = range.map((i) => ({ id: newId('prj'), name: `Other ${i}`, kind: 'team', status: 'active', created_by: null, created_at: time(i), updated_at: time(i) }));
    await batch('projects', others);
    await batch('memberships', range.map((i) => ({ project_id: i % 2 ? projects[1] : others[i].id, user_id: users[i].id, role: 'viewer', created_at: time(i), updated_at: time(i) })));
    const apps = range.map((i) => ({
        id: newId('app'), name: `filler-${i}`, project_id: i % 4 === 3 ? others[i].id : projects[i % 3], status: 'created', plan: 'starter', region: 'eu-west', instances: 1,
        auto_deploy: false, created_at: time(i), updated_at: time(i)
    }));
    await batch('apps', apps);
    await batch('collaborators', apps.map((granted, i) => ({
        id: newId('col'), resource_type: 'app', resource_id: granted.id, project_id: granted.project_id, user_id: i % 4 === 3 && i < 160 ? owner.id : users[i].id,
        permissions: '["view"]', created_at: granted.created_at, updated_at: granted.created_at
    })));
    await batch('invitations', range.map((i) => {
        const target = i % 2 ? projects[1] : others[i].id;
        return {
            id: newId('inv'), resource_type: 'project', resource_id: target, project_id: target, user_id: i % 2 ? users[i].id : owner.id, role: 'viewer', permissions: null,
            invited_by: users[(i + 1) % ROWS].id, created_at: time(i), updated_at: time(i), expires_at: '2099-01-01T00:00:00.000Z'
        };
    }));
    await batch('api_keys', range.map((i) => ({
        id: newId('key'), user_id: i % 2 ? owner.id : users[i].id, name: 'filler', prefix: `svk_f${i}`, secret_hash: '0'.repeat(64), scopes: '["apps:read"]', created_at: time(i)
    })));
    const config = JSON.stringify({ plan: 'starter', region: 'eu-west', instances: 1, buildCommand: null, startCommand: null, repository: null, environment: [], processes: [], databases: [] });
    await batch('deployments', range.map((i) => ({
        id: newId('dep'), resource_type: 'app', resource_id: i % 2 ? app.id : apps[i].id, project_id: projects[0], status: i % 3 ? 'superseded' : 'live', driver: 'records', trigger: 'manual',
        config, created_at: time(i), updated_at: time(i)
    })));
    const levels = ['debug', 'info', 'warn', 'error'];
    await batch('log_lines', range.map((i) => ({
        resource_type: 'app', resource_id: i % 2 ? app.id : apps[i].id, project_id: projects[0], stream: 'runtime', level: levels[i % 4],
        message: i % 6 ? `GET /users/${i} 200` : `error: connection refused ${i}`, timestamp: time(i)
    })));
    await batch('app_cron_jobs', range.map((i) => ({
        id: newId('crn'), app_id: apps[i].id, project_id: apps[i].project_id, name: 'filler', schedule: '0 3 * * *', command: 'x', status: 'paused', created_at: time(i), updated_at: time(i)
    })));
    const runtime = (prefix: 'wrk' | 'crn', i: number) => ({
        id: newId(prefix), name: `filler-${prefix}-${i}`, project_id: i % 4 === 3 ? others[i].id : projects[i % 3], status: 'created', plan: 'starter', region: 'eu-west', instances: 1,
        auto_deploy: false, created_at: time(i), updated_at: time(i)
    });
    await batch('workers', range.map((i) => runtime('wrk', i)));
    await batch('cron_jobs', range.map((i) => ({
        ...runtime('crn', i), schedule: '0 3 * * *', time_zone: 'UTC', paused: i % 2 === 0, next_run_at: i % 2 ? new Date(Date.UTC(2026, 0, 1) + i * 3600_000).toISOString() : null
    })));
    await batch('cron_runs', range.map((i) => ({
        id: newId('run'), job_type: 'app-cron-job', job_id: jobId, resource_type: 'app', resource_id: app.id, project_id: projects[0], status: 'recorded', trigger: 'schedule',
        driver: 'records', scheduled_for: time(i), created_at: time(i)
    })));
}
