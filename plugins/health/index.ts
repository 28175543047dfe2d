import * as Boom from '@hapi/boom';
import type { Knex } from 'knex';

import { dialect } from '../../lib/db/knex';
import { MIGRATIONS } from '../../lib/db/migrations';
import { bindRoutes, type FamilyPlugin } from '../../lib/route-table';
import { healthTable } from '../../manifest/routes/health';

// Liveness and readiness for load balancers; a detailed report for signed-in users. Readiness is the database
// answering, with every migration of this version applied and none running (another process holds knex's migration
// lock while it migrates), and the server not stopping. A stopping server (manifest/shutdown.ts) first closes its
// listener and waits for the requests in flight, before the other plugins stop their jobs and processes.
export interface HealthPluginOptions {
    knex: Knex;
    version: string;
    drainTimeoutMs?: number;                                    // how long a stopping server waits for requests in flight
}

export const healthPlugin: FamilyPlugin<HealthPluginOptions> = {
    name: 'hostless-health',
    table: healthTable,
    dependencies: ['hostless-auth'],
    register(server, options) {
        const started = Date.now();
        const { knex } = options;
        const probe = async () => {
            const begin = process.hrtime.bigint();
            await knex.raw('SELECT 1');
            return Number(process.hrtime.bigint() - begin) / 1e6;
        };

        let stopping = false;
        let inflight = 0;
        let drained: (() => void) | null = null;
        const counted = new WeakSet<object>();
        server.ext('onRequest', (request, h) => {
            counted.add(request);
            ++inflight;
            return h.continue;
        }, { before: ['hostless-edge', 'hostless-auth'] });
        server.events.on('response', (request) => {
            if (counted.delete(request) && --inflight === 0) {
                drained?.();
            }
        });

        // Runs before every other plugin's stop step: stop accepting, then let the requests in flight finish.
        server.ext('onPreStop', async () => {
            stopping = true;
            if (!server.info.started) {
                return;
            }

            server.listener.close();
            if (inflight > 0) {
                await new Promise<void>((resolve) => {
                    drained = resolve;
                    setTimeout(resolve, options.drainTimeoutMs ?? 10_000).unref();
                });
            }
        }, { before: ['hostless-auth', 'hostless-jobs', 'hostless-runtime', 'hostless-resources', 'hostless-edge'] });

        const names = MIGRATIONS.map((migration) => migration.name);
        const pending = async () => {
            const applied = await knex('knex_migrations').whereIn('name', names).count({ count: '*' }).first() as { count: number | string } | undefined;
            return names.length - Number(applied?.count ?? 0);
        };
        const readiness = async (): Promise<string | null> => {
            if (stopping) {
                return 'The server is stopping';
            }

            try {
                await probe();
            }
            catch {
                return 'The database is unreachable';
            }

            const lock = await knex('knex_migrations_lock').max({ locked: 'is_locked' }).first() as { locked: number | null } | undefined;
            if (Number(lock?.locked ?? 0) > 0) {
                return 'Database migrations are running';
            }

            return await pending() > 0 ? 'Database migrations are pending' : null;
        };

        bindRoutes(server, healthTable, {
            'health.live': { handler: () => ({ status: 'ok' }) },
            'health.ready': {
                handler: async () => {
                    const problem = await readiness().catch(() => 'The database is unreachable');
                    if (problem) {
                        throw Boom.serverUnavailable(problem);
                    }

                    return { status: 'ok' };
                }
            },
            'health.detail': {
                handler: async () => {
                    const latencyMs = await probe();
                    const [migrations] = await knex('knex_migrations').count({ count: '*' });
                    const problem = await readiness();
                    return {
                        status: problem ? 'unready' : 'ok',
                        ...(problem ? { problem } : {}),
                        version: options.version,
                        uptimeSeconds: Math.round((Date.now() - started) / 1000),
                        database: { dialect: dialect(knex), latencyMs: Math.round(latencyMs * 1000) / 1000, migrations: Number(migrations?.count ?? 0), pendingMigrations: await pending() },
                        process: { pid: process.pid, rssBytes: process.memoryUsage().rss, requestsInFlight: inflight }
                    };
                }
            }
        });
    }
};
