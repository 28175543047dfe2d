import type { JobQueue } from './types';

/**
 * A job that runs once per period (an hour, six hours...) per deployment, however many processes schedule it: each
 * run is keyed by its slot (the period's number since the epoch) and schedules the next slot's. Answers the function
 * that schedules the current slot's run (call it when the server starts). See daily.ts for once a day.
 */
export function periodicJob(queue: JobQueue, type: string, periodMs: number, run: () => Promise<unknown>): () => Promise<void> {
    const schedule = (at: number) => {
        const slot = Math.floor(at / periodMs);
        return queue.enqueue(type, {}, { idempotencyKey: `${type}:${slot}`, runAt: new Date(slot * periodMs) });
    };
    queue.handle(type, async () => {
        await run();
        await schedule(Date.now() + periodMs);
    });

    return async () => {
        await schedule(Date.now());
    };
}
