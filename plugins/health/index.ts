import * as Boom from '@hapi/boom';
import type { Knex } from 'knex';

import { dialect } from '../../lib/db/knex';
import { bindRoutes, type FamilyPlugin } from '../../lib/route-table';
import { healthTable } from '../../manifest/routes/health';

// Liveness and readiness for load balancers; a detailed report for signed-in users.
export interface HealthPluginOptions {
    knex: Knex;
    version: string;
}

export const healthPlugin: FamilyPlugin<HealthPluginOptions> = {
    name: 'hostless-health',
    table: healthTable,
    dependencies: ['hostless-auth'],
    register(server, options) {
        const started = Date.now();
        const probe = async () => {
            const begin = process.hrtime.bigint();
            await options.knex.raw('SELECT 1');
            return Number(process.hrtime.bigint() - begin) / 1e6;
        };

        bindRoutes(server, healthTable, {
            'health.live': { handler: () => ({ status: 'ok' }) },
            'health.ready': {
                handler: async () => {
                    try {
                        await probe();
                        return { status: 'ok' };
                    }
                    catch {
                        throw Boom.serverUnavailable('Database unreachable');
                    }
                }
            },
            'health.detail': {
                handler: async () => {
                    const latencyMs = await probe();
                    const [migrations] = await options.knex('knex_migrations').count({ count: '*' });
                    return {
                        status: 'ok',
                        version: options.version,
                        uptimeSeconds: Math.round((Date.now() - started) / 1000),
                        database: { dialect: dialect(options.knex), latencyMs: Math.round(latencyMs * 1000) / 1000, migrations: Number(migrations?.count ?? 0) }
                    };
                }
            }
        });
    }
};
