import type { NamedPlugin } from '@hapi/hapi';
import type { Knex } from 'knex';

import { DatabaseQueue } from '../../lib/queue/database-queue';

// The job queue of this process. Families register their handlers at registration; workers start with the server
// (mode `all`), never (mode `api`), or when a worker-only process asks (mode `worker`, see manifest/start.ts).
export interface JobsPluginOptions {
    knex: Knex;
    mode: 'all' | 'api' | 'worker';
    concurrency: number;
    leaseMs?: number;
    pollMs?: number;
}

export const jobsPlugin: NamedPlugin<JobsPluginOptions> = {
    name: 'hostless-jobs',
    register(server, options) {
        const queue = new DatabaseQueue({
            knex: options.knex,
            concurrency: options.concurrency,
            ...(options.leaseMs ? { leaseMs: options.leaseMs } : {}),
            ...(options.pollMs ? { pollMs: options.pollMs } : {}),
            onError: (err) => server.log(['error', 'jobs'], err as Error)
        });

        server.expose('queue', queue);
        server.expose('mode', options.mode);
        if (options.mode === 'all') {
            server.ext('onPostStart', () => queue.start());
        }

        server.ext('onPreStop', () => queue.stop());
    }
};
