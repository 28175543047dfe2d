import type { Knex } from 'knex';
import type { Redis } from 'ioredis';

// Rate limits as fixed windows: at most `limit` requests per subject (a credential, a client address) in each window
// of `windowSeconds`, counted by a counter the deployment's processes share (the database, Redis) or by this
// process alone (memory). A verdict carries what the RateLimit-* headers tell the client.

export interface RateLimitRule {
    limit: number;
    windowSeconds: number;
}

/** The deployment's limits (RATE_LIMIT_CREDENTIAL, RATE_LIMIT_SIGN_IN, RATE_LIMIT_SIGN_UP). */
export interface RateLimitsConfig {
    credential: RateLimitRule;                                  // per API key, session or OAuth grant
    signIn: RateLimitRule;                                      // per client address, POST /v1/auth/login
    signUp: RateLimitRule;                                      // per client address, POST /v1/auth/register
}

export interface RateLimitVerdict {
    allowed: boolean;
    limit: number;
    remaining: number;
    resetSeconds: number;                                       // until the window ends: RateLimit-Reset and Retry-After
}

/** Adds one to a window's count and answers the new count; the count may be forgotten after `expiresAt` (ms, by the
 * limiter's clock), that is in `ttlMs`. */
export interface RateCounter {
    increment(key: string, expiresAt: number, ttlMs: number): Promise<number>;
}

export class RateLimiter {
    constructor(private readonly name: string, private readonly rule: RateLimitRule, private readonly counter: RateCounter, private readonly clock: () => number = Date.now) { }

    async hit(subject: string): Promise<RateLimitVerdict> {
        const windowMs = this.rule.windowSeconds * 1000;
        const now = this.clock();
        const start = Math.floor(now / windowMs) * windowMs;
        const count = await this.counter.increment(`${this.name}:${subject}:${start}`, start + windowMs, start + windowMs - now);
        return {
            allowed: count <= this.rule.limit,
            limit: this.rule.limit,
            remaining: Math.max(0, this.rule.limit - count),
            resetSeconds: Math.max(1, Math.ceil((start + windowMs - now) / 1000))
        };
    }
}

/** This process's counts: a deployment of one process, or several without Redis (each then allows the limit). */
export class MemoryCounter implements RateCounter {
    private readonly counts = new Map<string, { count: number; expiresAt: number }>();
    private nextSweep = 0;

    constructor(private readonly clock: () => number = Date.now) { }

    increment(key: string, expiresAt: number): Promise<number> {
        const now = this.clock();
        if (now >= this.nextSweep) {                            // forget passed windows, at most once a second
            this.nextSweep = now + 1000;
            for (const [name, entry] of this.counts) {
                if (entry.expiresAt <= now) {
                    this.counts.delete(name);
                }
            }
        }

        const entry = this.counts.get(key) ?? { count: 0, expiresAt };
        entry.count += 1;
        this.counts.set(key, entry);
        return Promise.resolve(entry.count);
    }
}

/** Counts in Redis, shared by every process that names the same Redis and prefix. */
export class RedisCounter implements RateCounter {
    constructor(private readonly redis: Redis, private readonly prefix: string) { }

    async increment(key: string, _expiresAt: number, ttlMs: number): Promise<number> {
        const name = `${this.prefix}:rate:${key}`;
        const results = await this.redis.multi().incr(name).pexpire(name, ttlMs, 'NX').exec();
        const [err, count] = results![0];
        if (err) {
            throw err;
        }

        return Number(count);
    }
}

/** Counts in the rate_limit_counters table: shared by every process on the database, without Redis. */
export class DatabaseCounter implements RateCounter {
    constructor(private readonly knex: Knex) { }

    async increment(key: string, expiresAt: number): Promise<number> {
        const [row] = await this.knex<{ key: string; count: number | string; expires_at: string }>('rate_limit_counters')
            .insert({ key, count: 1, expires_at: new Date(expiresAt).toISOString() })
            .onConflict('key')
            .merge({ count: this.knex.raw('rate_limit_counters.count + 1') })
            .returning('count');
        return Number(row.count);
    }

    /** Deletes the counts of windows that have passed. */
    async prune(now: number): Promise<number> {
        return this.knex('rate_limit_counters').where('expires_at', '<=', new Date(now).toISOString()).delete();
    }
}
