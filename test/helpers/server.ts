import * as Crypto from 'node:crypto';
import * as Fs from 'node:fs';
import * as Os from 'node:os';
import * as Path from 'node:path';

import type { Server } from '@hapi/hapi';
import knexFactory, { type Knex } from 'knex';

import { createKnex, type DatabaseConfig } from '../../lib/db/knex';
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
    const schema = usePostgres && !overrides.database ? await createSchema() : null;
    const config = testConfig(dataDir, {
        ...(schema ? { database: { client: 'postgres', connectionString: postgresUrl!, searchPath: schema } } : {}),
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
            if (schema) {
                await dropSchema(schema);
            }

            Fs.rmSync(dataDir, { recursive: true, force: true });
        }
    };
}

export interface TestDatabase {
    knex: Knex;
    database: DatabaseConfig;
    stop(): Promise<void>;
}

/** A migrated database without a server: SQLite in a temp folder, or a fresh PostgreSQL schema (`postgres: true`
 * forces PostgreSQL whatever the pass, for tests that exist to prove something about it). */
export async function testDatabase(options: { postgres?: boolean } = {}): Promise<TestDatabase> {
    const onPostgres = options.postgres ?? usePostgres;
    const dataDir = Fs.mkdtempSync(Path.join(Os.tmpdir(), 'hostless-db-'));
    const schema = onPostgres ? await createSchema() : null;
    const database: DatabaseConfig = schema
        ? { client: 'postgres', connectionString: postgresUrl!, searchPath: schema }
        : { client: 'sqlite', filename: Path.join(dataDir, 'hostless.sqlite') };
    const knex = createKnex(database);
    await migrate(knex);
    return {
        knex,
        database,
        stop: async () => {
            await knex.destroy();
            if (schema) {
                await dropSchema(schema);
            }

            Fs.rmSync(dataDir, { recursive: true, force: true });
        }
    };
}

/** Two servers on one fresh PostgreSQL schema, sharing a clock: what several processes of one deployment look like. */
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

async function createSchema(): Promise<string> {
    const schema = `t_${Crypto.randomBytes(6).toString('hex')}`;
    const admin = knexFactory({ client: 'pg', connection: postgresUrl! });
    try {
        await admin.raw(`CREATE SCHEMA ${schema}`);
    }
    finally {
        await admin.destroy();
    }

    return schema;
}

async function dropSchema(schema: string): Promise<void> {
    const admin = knexFactory({ client: 'pg', connection: postgresUrl! });
    try {
        await admin.raw(`DROP SCHEMA ${schema} CASCADE`);
    }
    finally {
        await admin.destroy();
    }
}
