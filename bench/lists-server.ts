// The server side of the list and log benchmarks: one API server on SQLite or on PostgreSQL (a fresh schema in
// BENCH_POSTGRES_URL), filled so that the same request differs only in how much lies behind it:
// - two users of the same shape (five member projects each) who reach 100 and 100,000 apps;
// - two apps of one project holding 10,000 and 1,000,000 log lines, of which 1% contain the searched word.
// Rows are written in bulk with knex (the API would take an hour for 100,000 apps); every request measured then goes
// through the full pipeline with an API key. Usage: node lists-server.js sqlite|postgres
import * as Crypto from 'node:crypto';
import * as Fs from 'node:fs';
import * as Os from 'node:os';
import * as Path from 'node:path';

import type { Server } from '@hapi/hapi';
import knexFactory, { type Knex } from 'knex';

import { newId } from '../lib/ids';
import { deployment } from '../manifest';
import type { Config } from '../manifest/config';
import { BENCH_LOG_RETENTION_DAYS, BENCH_RATE_LIMIT, benchConfig, serve } from './serve';

const PROJECTS = 5;                                             // member projects per user, the personal one included
export const SEARCH_WORD = 'upstream-timeout';                  // in 1% of the lines
const CHUNK = 400;                                              // rows per INSERT: SQLite allows 500 terms in a compound SELECT
const LOG_LEVELS = ['info', 'info', 'info', 'warn', 'error', 'debug'] as const;

interface Filled {
    port: number;
    tokens: { small: string; large: string; logs: string };
    logApps: { small: string; large: string };
    counts: { smallApps: number; largeApps: number; smallLines: number; largeLines: number };
}

async function database(kind: string): Promise<{ config: Partial<Config>; drop(): Promise<void> }> {
    if (kind !== 'postgres') {
        return { config: {}, drop: async () => { } };
    }

    const url = process.env.BENCH_POSTGRES_URL ?? process.env.TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
    const schema = `bench_${Crypto.randomBytes(5).toString('hex')}`;
    const admin = knexFactory({ client: 'pg', connection: url });
    await admin.raw(`CREATE SCHEMA ${schema}`);
    await admin.destroy();
    return {
        config: { database: { client: 'postgres', connectionString: url, searchPath: schema } },
        drop: async () => {
            const again = knexFactory({ client: 'pg', connection: url });
            await again.raw(`DROP SCHEMA ${schema} CASCADE`);
            await again.destroy();
        }
    };
}

async function inject<T>(server: Server, method: string, url: string, authorization: string | null, payload?: object): Promise<T> {
    const res = await server.inject({ method, url, ...(authorization ? { headers: { authorization } } : {}), ...(payload ? { payload } : {}) });
    if (res.statusCode >= 300) {
        throw new Error(`${method} ${url}: ${res.statusCode} ${res.payload}`);
    }

    return res.result as T;
}

/** A user with PROJECTS member projects, each holding `perProject` apps written in bulk, and a key to list them. */
async function userWithApps(server: Server, knex: Knex, label: string, perProject: number): Promise<{ token: string; session: string; projects: string[] }> {
    const registered = await inject<{ user: { id: string }; accessToken: string }>(server, 'POST', '/v1/auth/register', null, { email: `${label}@bench.test`, password: 'bench password' });
    const session = `Bearer ${registered.accessToken}`;
    const projects = (await inject<Array<{ id: string }>>(server, 'GET', '/v1/projects', session)).map((project) => project.id);
    while (projects.length < PROJECTS) {
        projects.push((await inject<{ id: string }>(server, 'POST', '/v1/projects', session, { name: `${label} ${projects.length}` })).id);
    }

    const start = Date.parse('2026-01-01T00:00:00.000Z');
    for (const [p, projectId] of projects.entries()) {
        const rows = Array.from({ length: perProject }, (_, i) => {
            const at = new Date(start + (p * perProject + i) * 1000).toISOString();
            return {
                id: newId('app'), name: `${label}-${p}-${i}`, project_id: projectId, status: 'created', plan: 'starter', region: 'eu-west',
                instances: 1, build_command: null, start_command: null, repo_provider: null, repo_name: null, repo_branch: null,
                auto_deploy: false, live_deployment_id: null, created_at: at, updated_at: at
            };
        });
        if (rows.length) {
            await knex.batchInsert('apps', rows, CHUNK);
        }
    }

    const key = await inject<{ token: string }>(server, 'POST', '/v1/users/me/api-keys', session, { name: label, scopes: ['apps:read', 'logs:read'] });
    return { token: key.token, session, projects };
}

/** An app with `lines` log lines written in bulk, 1% of them holding SEARCH_WORD. */
async function appWithLogs(server: Server, knex: Knex, owner: { session: string; projects: string[] }, name: string, lines: number): Promise<void> {
    const projectId = owner.projects[0];
    const app = await inject<{ id: string }>(server, 'POST', '/v1/apps', owner.session, { name, projectId });
    const start = Date.parse('2026-02-01T00:00:00.000Z');
    const batch = 2000;
    for (let from = 0; from < lines; from += batch) {
        const rows = Array.from({ length: Math.min(batch, lines - from) }, (_, j) => {
            const i = from + j;
            const message = i % 100 === 0
                ? `GET /api/orders/${i} failed: ${SEARCH_WORD} after 30000 ms (attempt ${i % 7})`
                : `GET /api/items/${i % 5000} 200 in ${i % 97} ms request ${i.toString(36)} worker ${i % 8}`;
            return {
                resource_type: 'app', resource_id: app.id, project_id: projectId, deployment_id: null, run_id: null, stream: 'runtime',
                level: LOG_LEVELS[i % LOG_LEVELS.length], message, truncated: false, timestamp: new Date(start + i * 10).toISOString()
            };
        });
        await knex.batchInsert('log_lines', rows, CHUNK);
    }
}

async function main(): Promise<void> {
    const kind = process.argv[2] === 'postgres' ? 'postgres' : 'sqlite';
    const large = Number(process.env.BENCH_LARGE_APPS ?? 100_000);
    const largeLines = Number(process.env.BENCH_LARGE_LINES ?? 1_000_000);
    const dataDir = Fs.mkdtempSync(Path.join(Os.tmpdir(), 'hostless-bench-lists-'));
    const db = await database(kind);
    const config = { ...benchConfig({ DATA_DIR: dataDir, PASSWORD_HASH_COST: '1024', RATE_LIMIT_CREDENTIAL: BENCH_RATE_LIMIT, LOG_RETENTION_DAYS: BENCH_LOG_RETENTION_DAYS }), ...db.config };
    const server = await deployment({ config, log: () => { } });
    const knex = server.app.knex;

    const small = await userWithApps(server, knex, 'small', 100 / PROJECTS);
    const many = await userWithApps(server, knex, 'large', large / PROJECTS);
    const logs = await userWithApps(server, knex, 'logs', 0);     // the log apps' owner: the list users reach exactly their apps
    await appWithLogs(server, knex, logs, 'logs-small', 10_000);
    await appWithLogs(server, knex, logs, 'logs-large', largeLines);
    await server.plugins['hostless-resources'].services.logs.maintain();
    await knex.raw('ANALYZE');

    server.route({ method: 'GET', path: '/bench/trivial', options: { auth: false, handler: () => ({ ok: true }) } });
    await server.start();
    const filled: Filled = {
        port: server.info.port as number,
        tokens: { small: small.token, large: many.token, logs: logs.token },
        logApps: { small: 'logs-small', large: 'logs-large' },
        counts: { smallApps: 100, largeApps: large, smallLines: 10_000, largeLines }
    };
    serve(filled, async () => {
        await server.stop();
        await db.drop();
        Fs.rmSync(dataDir, { recursive: true, force: true });
    });
}

if (require.main === module) {
    main().catch((err: Error) => {
        console.error(err.message.slice(0, 500));
        process.exit(1);
    });
}
