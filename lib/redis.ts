import type * as IORedis from 'ioredis';

// One Redis connection of this process, to REDIS_URL. BullMQ's blocking connections need commands that wait for a
// reconnection rather than fail (`queue`); the rate limit counters would
// rather fail after one retry and let the request through.
export function redisConnection(url: string, use: 'queue' | 'counters'): IORedis.Redis {
    // ioredis is loaded with the first connection: a process without REDIS_URL never holds it.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { Redis: Client } = require('ioredis') as typeof IORedis;
    return new Client(url, {
        maxRetriesPerRequest: use === 'queue' ? null : 1,
        connectionName: `hostless-${use}`
    });
}
