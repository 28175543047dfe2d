// The time the scheduler reads, injected: the system's in a server, one a test sets and moves.
export interface Clock {
    now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };
