import { applyHeapGrowth } from '../lib/heap';
import { loadConfig, type Config } from '../manifest/config';

// What every bench server process shares: it announces itself to the load generator with `info`, answers `usage`
// with its CPU time so far and its peak resident set (the load generator divides CPU by the requests it sent), and
// on `stop` runs `stop` and exits.
export interface Usage {
    cpuUs: number;                                              // user + system CPU of this process so far, in microseconds
    maxRssMb: number;                                           // its peak resident set so far
}

export function usage(): Usage {
    const { userCPUTime, systemCPUTime, maxRSS } = process.resourceUsage();
    return { cpuUs: userCPUTime + systemCPUTime, maxRssMb: maxRSS / 1024 };
}

export function serve(info: object, stop: () => Promise<void>): void {
    process.send!(info);
    process.on('message', (message) => {
        if (message === 'usage') {
            process.send!({ usage: usage() });
        }

        if (message === 'stop') {
            void stop().then(() => process.exit(0));
        }
    });
}

// The per-credential rate limit stays on, so every request pays for its counter as in a deployment, but with a limit
// no bench reaches (the default, 600 a minute, would answer most of a round with 429).
export const BENCH_RATE_LIMIT = '9999999/60';

// The log search rounds read lines dated months back, which the default retention (30 days) would delete at start.
export const BENCH_LOG_RETENTION_DAYS = '3650';

/**
 * A bench server's configuration from its settings, on a port of the system's choosing, with the heap held as
 * `npm start` holds it (HEAP_GROWING_PERCENT, lib/heap.ts): set HEAP_GROWING_PERCENT in the bench's own environment
 * to measure another setting (0: V8's own growth).
 */
export function benchConfig(env: Record<string, string>): Config {
    const heap = process.env.HEAP_GROWING_PERCENT;
    const config = { ...loadConfig({ ...env, ...heap === undefined ? {} : { HEAP_GROWING_PERCENT: heap } }), port: 0 };
    applyHeapGrowth(config.heapGrowingPercent ?? 0);
    return config;
}
