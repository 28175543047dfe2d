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

// The bench's servers hold the heap as `npm start` does (HEAP_GROWING_PERCENT, lib/heap.ts): set it in the bench's own
// environment to measure another setting (0: V8's own growth).
export const HEAP_ENV: Record<string, string> = process.env.HEAP_GROWING_PERCENT === undefined ? {} : { HEAP_GROWING_PERCENT: process.env.HEAP_GROWING_PERCENT };
