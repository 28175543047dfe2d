import * as ChildProcess from 'node:child_process';
import * as Crypto from 'node:crypto';
import * as Fs from 'node:fs';
import * as Os from 'node:os';
import * as Path from 'node:path';

import type { Server } from '@hapi/hapi';
import knexFactory, { type Knex } from 'knex';

import { createKnex, otherDatabase, type DatabaseConfig } from '../../lib/db/knex';
import { migrate } from '../../lib/db/migrate';
import type { RuntimeDriver } from '../../lib/runtime/driver';
import type { Clock } from '../../lib/scheduler/clock';
import { DEFAULT_PRICE_LIST } from '../../lib/plans';
import { DEFAULT_VM_CATALOGUE } from '../../lib/vm/catalogue';
import type { Config } from '../../manifest/config';
import { deployment, type DeploymentOptions } from '../../manifest';

// Every test file builds its servers through deployment(), the real plugin list, with configuration passed in
// rather than read from the environment. The database is a fresh SQLite file in a temp folder, or, when the suite
// runs with TEST_DB=postgres, a fresh schema in TEST_POSTGRES_URL's database.
export const LOG_DIR = Path.join(__dirname, '..', '..', '.test-output', 'logs');
const logFile = Path.join(LOG_DIR, `run-${process.pid}.log`);

export const postgresUrl = process.env.TEST_POSTGRES_URL ?? null;
export const usePostgres = process.env.TEST_DB === 'postgres';
if (usePostgres && !postgresUrl) {
    throw new Error('TEST_DB=postgres needs TEST_POSTGRES_URL, e.g. postgres://postgres@127.0.0.1:5432/test');
}

export function testConfig(dataDir: string, overrides: Partial<Config> = {}): Config {
    return {
        nodeEnv: 'test',
        production: false,
        host: '127.0.0.1',
        port: 0,
        mcpPort: 0,
        publicUrl: 'http://localhost:3000',
        mcpPublicUrl: 'http://localhost:3001',
        apiBaseUrl: 'http://localhost:3000',
        mcpReadOnly: false,
        mcpAllowedTools: null,
        mcpAllowedOrigins: ['http://localhost:3001', 'http://localhost:3000'],
        mcpAdminToolsEnabled: true,
        trustedProxies: [],
        dataDir,
        database: { client: 'sqlite', filename: Path.join(dataDir, 'hostless.sqlite') },
        redisUrl: null,
        sessionSecret: Crypto.randomBytes(32).toString('hex'),
        encryptionKey: Crypto.randomBytes(32).toString('hex'),
        signupEnabled: true,
        passwordCost: 1024,                                     // scrypt's cheapest sane cost: tests sign in thousands of times
        jobs: { mode: 'api', concurrency: 4 },                  // tests start workers themselves when they need them
        securityEventRetentionDays: 365,
        logRetentionDays: 3650,                                 // tests write lines dated long ago: only the retention test prunes
        outbound: { allowlist: [] },
        github: { apiUrl: 'https://api.github.com', clientId: 'test-github-client', clientSecret: 'test-github-secret' },
        gitlab: { url: 'https://gitlab.com', clientId: 'test-gitlab-client', clientSecret: 'test-gitlab-secret' },
        bitbucket: { edition: 'cloud', url: 'https://bitbucket.org', apiUrl: 'https://api.bitbucket.org/2.0', clientId: 'test-bitbucket-client', clientSecret: 'test-bitbucket-secret' },
        slack: { webhookHosts: ['hooks.slack.com', '127.0.0.1'], allowHttpLoopback: true },  // tests only: plain http to a fake Slack on 127.0.0.1
        runtime: { driver: 'records', recordsStepDelayMs: 0 },
        prices: DEFAULT_PRICE_LIST,
        dnsServers: [],
        reviewAppHours: 72,
        oauth: { assistant: { id: 'chatgpt', name: 'ChatGPT', redirectPrefixes: ['https://chatgpt.com/connector_platform_oauth_redirect', 'https://chatgpt.com/aip/'] }, legacy: null, metadataDocuments: true },
        notifications: { smtpUrl: null, from: 'Hostless <no-reply@localhost>', retentionDays: 90 },
        sites: { domain: 'localhost', flushMs: 50 },
        databases: { provisionerUrl: null, publicHost: null, publicPort: null, binDir: null, importTimeoutMs: 3_600_000 },
        vms: { driver: 'records', catalogue: DEFAULT_VM_CATALOGUE },
        apiKeys: { maxLifetimeDays: null },
        secretScanning: { keysUrl: 'https://api.github.com/meta/public_keys/secret_scanning' },
        payments: { stripe: null, paystack: null },
        ...overrides
    };
}

/** Both diagnostic groups on (MCP_DEVELOPER_TOOLS_ENABLED, MCP_CONTEXT_TOOLS_ENABLED): the generated route checks cover their routes. */
export const DIAGNOSTICS_ON: Partial<Config> = { mcpDeveloperToolsEnabled: true, mcpContextToolsEnabled: true };

export interface TestServer {
    server: Server;
    config: Config;
    logs: string[];
    stop(): Promise<void>;
}

export async function testServer(overrides: Partial<Config> = {}, options: { start?: boolean; driver?: RuntimeDriver; clock?: Clock; plugins?: DeploymentOptions['plugins'] } = {}): Promise<TestServer> {
    const dataDir = Fs.mkdtempSync(Path.join(Os.tmpdir(), 'hostless-test-'));
    const fresh = overrides.database ? null : await migratedDatabase(dataDir);
    const config = testConfig(dataDir, {
        ...(fresh ? { database: fresh.database } : {}),
        ...overrides
    });
    const logs: string[] = [];
    Fs.mkdirSync(LOG_DIR, { recursive: true });
    const server = await deployment({
        config,
        ...(options.start ? { start: true } : {}),
        ...(options.driver ? { driver: options.driver } : {}),
        ...(options.clock ? { clock: options.clock } : {}),
        ...(options.plugins ? { plugins: options.plugins } : {}),
        ...(options.clock ? { clock: options.clock } : {}),
        log: (line) => {
            logs.push(line);
            Fs.appendFileSync(logFile, line);
        }
    });

    return {
        server,
        config,
        logs,
        stop: async () => {
            await server.stop();
            await fresh?.drop();
            Fs.rmSync(dataDir, { recursive: true, force: true });
        }
    };
}

export interface TestDatabase {
    knex: Knex;
    database: DatabaseConfig;
    stop(): Promise<void>;
}

/** A migrated database without a server: SQLite in a temp folder, or a PostgreSQL database of its own (`postgres: true`
 * forces PostgreSQL whatever the pass, for tests that exist to prove something about it). */
export async function testDatabase(options: { postgres?: boolean } = {}): Promise<TestDatabase> {
    const dataDir = Fs.mkdtempSync(Path.join(Os.tmpdir(), 'hostless-db-'));
    const fresh = await migratedDatabase(dataDir, options.postgres ?? usePostgres);
    const knex = createKnex(fresh.database);
    return {
        knex,
        database: fresh.database,
        stop: async () => {
            await knex.destroy();
            await fresh.drop();
            Fs.rmSync(dataDir, { recursive: true, force: true });
        }
    };
}

/** Two servers on one fresh PostgreSQL database, sharing a clock: what several processes of one deployment look like. */
export interface ServerPair {
    db: TestDatabase;
    servers: [TestServer, TestServer];
}

/** Starts a ServerPair in the section's `before` and stops it in its `after`; the fields are set once `before` ran. */
export function serversSharingPostgres(hooks: { before(fn: () => Promise<void>): void; after(fn: () => Promise<void>): void }, clock: Clock): ServerPair {
    const pair = {} as ServerPair;
    hooks.before(async () => {
        pair.db = await testDatabase({ postgres: true });
        pair.servers = [await testServer({ database: pair.db.database }, { clock }), await testServer({ database: pair.db.database }, { clock })];
    });
    hooks.after(async () => {
        for (const server of pair.servers ?? []) {
            await server.stop();
        }

        await pair.db?.stop();
    });
    return pair;
}

// Every server and test database starts from a copy of one migrated in this process, not from its own migration run:
// SQLite copies a migrated file (about 1 ms against 50), PostgreSQL clones a migrated template database (CREATE
// DATABASE ... TEMPLATE, about 50 ms against 400 ms of migrations and 55 ms to drop a schema). The migrations
// themselves still run here, once per process, through migrate(), as deployment() runs them at boot, and step by step
// in test/lib/migrations.ts. A PostgreSQL database is named after this process (`hostless_t_<pid>_...`): one a killed
// run left behind is dropped by the next run's first template, and the template goes when this process exits.
export interface MigratedDatabase {
    database: DatabaseConfig;
    drop(): Promise<void>;
}

const templates: { sqlite?: Promise<string>; postgres?: Promise<string> } = {};

/** A migrated database of this pass's kind (SQLite in `dataDir`), for a server given it as `database`; drop() ends it. */
export async function migratedDatabase(dataDir: string, onPostgres = usePostgres): Promise<MigratedDatabase> {
    if (!onPostgres) {
        const filename = Path.join(dataDir, 'hostless.sqlite');
        Fs.copyFileSync(await (templates.sqlite ??= sqliteTemplate()), filename);
        return { database: { client: 'sqlite', filename }, drop: async () => { } };
    }

    const template = await (templates.postgres ??= postgresTemplate());
    const name = `hostless_t_${process.pid}_${Crypto.randomBytes(5).toString('hex')}`;
    await admin((db) => db.raw('CREATE DATABASE ?? TEMPLATE ??', [name, template]));
    return {
        database: { client: 'postgres', connectionString: otherDatabase(postgresUrl!, name) },
        drop: () => dropPostgresDatabase(name)
    };
}

async function sqliteTemplate(): Promise<string> {
    const dir = Fs.mkdtempSync(Path.join(Os.tmpdir(), 'hostless-template-'));
    const filename = Path.join(dir, 'hostless.sqlite');
    const knex = createKnex({ client: 'sqlite', filename });
    await migrate(knex);
    await knex.destroy();                                       // the last connection's close folds the WAL into the file
    process.once('exit', () => Fs.rmSync(dir, { recursive: true, force: true }));
    return filename;
}

async function postgresTemplate(): Promise<string> {
    await admin(async (db) => {
        const { rows } = await db.raw<{ rows: Array<{ datname: string }> }>('SELECT datname FROM pg_database WHERE datname LIKE \'hostless\\_t%\'');
        for (const { datname } of rows) {
            const pid = Number(/^hostless_t(?:mpl)?_(\d+)/.exec(datname)?.[1]);
            if (pid && pid !== process.pid && !alive(pid)) {
                await dropDatabase(db, datname);
            }
        }
    });

    const name = `hostless_tmpl_${process.pid}`;
    await admin((db) => db.raw('CREATE DATABASE ??', [name]));
    const knex = createKnex({ client: 'postgres', connectionString: otherDatabase(postgresUrl!, name) });
    try {
        await migrate(knex);
    }
    finally {
        await knex.destroy();                                   // a template is cloned only while nobody is connected to it
    }

    // Dropped at exit, with any database of this process a test left behind, by a short synchronous child: an exiting
    // process can run nothing asynchronous.
    const script = `const { Client } = require('pg');
        const c = new Client(process.argv[1]);
        c.connect()
            .then(() => c.query("SELECT datname FROM pg_database WHERE datname LIKE 'hostless\\\\_t\\\\_${process.pid}\\\\_%'"))
            .then(async ({ rows }) => {
                for (const { datname } of rows) await c.query('DROP DATABASE IF EXISTS "' + datname + '" WITH (FORCE)');
                await c.query('DROP DATABASE IF EXISTS "${name}" WITH (FORCE)');
            })
            .finally(() => c.end());`;
    process.once('exit', () => {
        ChildProcess.spawnSync(process.execPath, ['-e', script, postgresUrl!], { cwd: __dirname, stdio: 'ignore', timeout: 10_000 });
    });
    return name;
}

function alive(pid: number): boolean {
    try {
        process.kill(pid, 0);
        return true;
    }
    catch (err) {
        return (err as NodeJS.ErrnoException).code === 'EPERM';
    }
}

const dropDatabase = (db: Knex, name: string) => db.raw('DROP DATABASE IF EXISTS ?? WITH (FORCE)', [name]);

/** Drops a database on TEST_POSTGRES_URL's server, whoever is still connected to it. */
export async function dropPostgresDatabase(name: string): Promise<void> {
    await admin((db) => dropDatabase(db, name));
}

async function admin<T>(work: (db: Knex) => Promise<T>): Promise<T> {
    const db = knexFactory({ client: 'pg', connection: postgresUrl!, pool: { min: 0, max: 1 } });
    try {
        return await work(db);
    }
    finally {
        await db.destroy();
    }
}
