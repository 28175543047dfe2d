import type { Clock } from '../../lib/scheduler/clock';

/** A clock a test sets and moves: what the scheduler reads as now, never the time the test takes. */
export interface ManualClock extends Clock {
    set(at: string | Date): void;
    advance(ms: number): void;
}

export function manualClock(start: string | Date = new Date()): ManualClock {
    let now = new Date(start).getTime();
    return {
        now: () => new Date(now),
        set: (at) => {
            now = new Date(at).getTime();
        },
        advance: (ms) => {
            now += ms;
        }
    };
}
