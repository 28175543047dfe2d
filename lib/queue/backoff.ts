export interface BackoffOptions {
    baseMs: number;
    maxMs: number;
}

/** Exponential backoff with full jitter in its upper half: attempt 1 waits about base, then doubling, capped. */
export function backoffDelay(attempt: number, options: BackoffOptions, random = Math.random): number {
    const ceiling = Math.min(options.maxMs, options.baseMs * 2 ** Math.max(0, attempt - 1));
    return Math.round(ceiling / 2 + random() * ceiling / 2);
}
