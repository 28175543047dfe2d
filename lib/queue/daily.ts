import type { JobQueue } from './types';

const day = (date: Date) => date.toISOString().slice(0, 10);

/**
 * A job that runs once a day per deployment, however many processes schedule it: each run is keyed by its UTC date
 * and schedules the next day's. Answers the function that schedules today's run (call it when the server starts).
 */
export function dailyJob(queue: JobQueue, type: string, run: () => Promise<unknown>): () => Promise<void> {
    const schedule = (date: Date) => queue.enqueue(type, {}, { idempotencyKey: `${type}:${day(date)}`, runAt: date });
    queue.handle(type, async () => {
        await run();
        const tomorrow = new Date();
        tomorrow.setUTCHours(24, 0, 0, 0);
        await schedule(tomorrow);
    });

    return async () => {
        await schedule(new Date());
    };
}
