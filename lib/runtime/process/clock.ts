import { setTimeout as sleep } from 'node:timers/promises';

// Every clock the process runtime reads (health-check deadlines, restart backoff, the sampler's period) is this
// one, so tests control time instead of waiting for it.
export interface RuntimeClock {
    now(): number;                                              // epoch ms
    sleep(ms: number, signal?: AbortSignal): Promise<void>;     // rejects when the signal aborts
}

export const systemRuntimeClock: RuntimeClock = {
    now: () => Date.now(),
    sleep: async (ms, signal) => {
        await sleep(ms, undefined, signal ? { signal } : {});
    }
};
