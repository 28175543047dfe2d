import { Redis } from 'ioredis';

// One Redis connection of this process, to REDIS_URL. BullMQ's blocking connections need commands that wait for a
// reconnection rather than fail (`queue`); the rate limit counters would
// rather fail after one retry and let the request through.
export function redisConnection(url: string, use: 'queue' | 'counters'): Redis {
    return new Redis(url, {
        maxRetriesPerRequest: use === 'queue' ? null : 1,
        connectionName: `hostless-${use}`
    });
}
