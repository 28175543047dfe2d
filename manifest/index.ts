import type { Server } from '@hapi/hapi';
import type { Knex } from 'knex';

import { compose, type Manifest } from '../lib/compose';
import type { RuntimeDriver } from '../lib/runtime/driver';
import type { Clock } from '../lib/scheduler/clock';
import { createKnex } from '../lib/db/knex';
import { migrate } from '../lib/db/migrate';
import { httpApiClient, injectApiClient } from '../lib/mcp/api-client';
import { apiManifest } from './api';
import { loadConfig, loadMcpConfig, type Config, type McpConfig } from './config';
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
    clock?: Clock;                                              // what the scheduler reads as now (tests move it)
    plugins?: Manifest['register']['plugins'];                  // families beyond the platform's, registered after them
}

/** The API server, composed from its manifest on a migrated database: initialized, or started with `start`. */
export async function deployment(options: DeploymentOptions = {}): Promise<Server> {
    const config = options.config ?? loadConfig(process.env);
    const knex = createKnex(config.database);
    try {
        await migrate(knex);
    }
    catch (err) {
        await knex.destroy();
        throw err;
    }

    const manifest = apiManifest(config, knex, options.log ?? ((line) => process.stdout.write(line)), options.driver, options.clock);
    const server = await compose({ ...manifest, register: { plugins: [...manifest.register.plugins, ...options.plugins ?? []] } });
    server.app.config = config;
    server.app.knex = knex;
    server.ext('onPostStop', () => knex.destroy());

    if (options.start) {
        await server.start();
    }
    else {
        await server.initialize();
    }

    return server;
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
