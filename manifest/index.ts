import type { Server } from '@hapi/hapi';
import type { Knex } from 'knex';

import { compose, type Manifest } from '../lib/compose';
import type { RuntimeDriver } from '../lib/runtime/driver';
import type { Clock } from '../lib/scheduler/clock';
import { createKnex } from '../lib/db/knex';
import { migrate } from '../lib/db/migrate';
import { acquireServerLock } from '../lib/db/server-lock';
import { httpApiClient, injectApiClient } from '../lib/mcp/api-client';
import { apiManifest } from './api';
import { ConfigError, loadConfig, loadMcpConfig, type Config, type McpConfig } from './config';
import { mcpManifest } from './mcp';

declare module '@hapi/hapi' {
    interface ServerApplicationState {
        config: Config;
        knex: Knex;
    }
}

export interface DeploymentOptions {
    start?: boolean;
    config?: Config;                                            // tests pass it; otherwise it is read from the environment
    log?: (line: string) => void;                               // where log lines go (default: stdout)
    driver?: RuntimeDriver;                                     // a runtime driver instead of the configured one
    clock?: Clock;                                              // the server's now: the scheduler's and credentials' (tests move it)
    plugins?: Manifest['register']['plugins'];                  // families beyond the platform's, registered after them
}

/** The API server, composed from its manifest on a migrated database: initialized, or started with `start`. */
export async function deployment(options: DeploymentOptions = {}): Promise<Server> {
    const config = options.config ?? loadConfig(process.env);
    const log = options.log ?? ((line: string) => process.stdout.write(line));
    const knex = createKnex(config.database, log);              // creates a SQLite database's folder
    let lock: { release: () => void } | null = null;
    try {
        lock = options.start ? sqliteServerLock(config) : null;
        await migrate(knex);
    }
    catch (err) {
        await knex.destroy();
        lock?.release();
        throw err;
    }

    const manifest = apiManifest(config, knex, log, options.driver, options.clock);
    const server = await compose({ ...manifest, register: { plugins: [...manifest.register.plugins, ...options.plugins ?? []] } });
    server.app.config = config;
    server.app.knex = knex;
    server.ext('onPostStop', async () => {
        await knex.destroy();
        lock?.release();
    });

    if (options.start) {
        await server.start().catch((err: unknown) => {
            lock?.release();
            throw err;
        });
    }
    else {
        await server.initialize();
    }

    return server;
}

/** A server that opens a port on SQLite holds its database alone (lib/db/server-lock.ts). */
function sqliteServerLock(config: Config): { release: () => void } | null {
    const { database } = config;
    if (database.client !== 'sqlite' || database.filename === ':memory:') {
        return null;
    }

    const lock = acquireServerLock(database.filename);
    if ('holder' in lock) {
        throw new ConfigError(`Another Hostless server (process ${lock.holder}) already serves the SQLite database ${database.filename}: SQLite is one server. ` +
            'To run more than one API process, use PostgreSQL (set DATABASE_URL); `npm run cli` and JOBS_MODE=worker processes may run beside the one server.');
    }

    return lock;
}

export interface McpDeploymentOptions {
    start?: boolean;
    config?: McpConfig;                                         // tests pass it; otherwise it is read from the environment
    api?: Server;                                               // the API server of this process: reached through inject()
    log?: (line: string) => void;
}

/** The MCP server, reaching the API in-process when given its server, else over HTTP at API_BASE_URL. */
export async function mcpDeployment(options: McpDeploymentOptions = {}): Promise<Server> {
    const config = options.config ?? loadMcpConfig(process.env);
    const api = options.api
        ? injectApiClient(options.api, config.apiBaseUrl, options.api.plugins['hostless-auth'].introspect)
        : httpApiClient(config.apiBaseUrl);
    const server = await compose(mcpManifest(config, api, options.log ?? ((line) => process.stdout.write(line))));
    if (options.start) {
        await server.start();
    }
    else {
        await server.initialize();
    }

    return server;
}
