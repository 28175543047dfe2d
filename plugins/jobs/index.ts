import type { NamedPlugin } from '@hapi/hapi';
import type { Knex } from 'knex';

import type * as Bullmq from '../../lib/queue/bullmq-queue';
import { DatabaseQueue } from '../../lib/queue/database-queue';

// The job queue of this process: BullMQ on Redis when REDIS_URL is set, else the database's. Families register their handlers at registration; workers start with the server
// (mode `all`), never (mode `api`), or when a worker-only process asks (mode `worker`, see manifest/start.ts).
export interface JobsPluginOptions {
    knex: Knex;
    mode: 'all' | 'api' | 'worker';
    concurrency: number;
    leaseMs?: number;
    pollMs?: number;
    redis?: { url: string; prefix: string } | null;
}

export const jobsPlugin: NamedPlugin<JobsPluginOptions> = {
    name: 'hostless-jobs',
    register(server, options) {
        const common = {
            knex: options.knex,
            concurrency: options.concurrency,
            ...(options.leaseMs ? { leaseMs: options.leaseMs } : {}),
            onError: (err: unknown) => server.log(['error', 'jobs'], err as Error)
        };
        const queue = options.redis
            // BullMQ and ioredis are loaded only by a process that uses them (REDIS_URL).
            // eslint-disable-next-line @typescript-eslint/no-require-imports
            ? new (require('../../lib/queue/bullmq-queue') as typeof Bullmq).BullmqQueue({ ...common, url: options.redis.url, prefix: options.redis.prefix })
            : new DatabaseQueue({ ...common, ...(options.pollMs ? { pollMs: options.pollMs } : {}) });

        server.expose('queue', queue);
        server.expose('mode', options.mode);
        if (options.mode === 'all') {
            server.ext('onPostStart', () => queue.start());
        }

        server.ext('onPreStop', () => queue.stop());
        server.ext('onPostStop', () => queue.close());
    }
};
