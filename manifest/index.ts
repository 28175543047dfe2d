import type { Server } from '@hapi/hapi';
import type { Knex } from 'knex';

import { compose } from '../lib/compose';
import type { RuntimeDriver } from '../lib/runtime/driver';
import { createKnex } from '../lib/db/knex';
import { migrate } from '../lib/db/migrate';
import { apiManifest } from './api';
import { loadConfig, type Config } from './config';

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

    const server = await compose(apiManifest(config, knex, options.log ?? ((line) => process.stdout.write(line)), options.driver));
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
