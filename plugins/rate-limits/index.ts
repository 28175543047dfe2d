import * as Boom from '@hapi/boom';
import type { NamedPlugin, Request, ResponseObject } from '@hapi/hapi';
import type { Knex } from 'knex';

import { periodicJob } from '../../lib/queue/periodic';
import { DatabaseCounter, MemoryCounter, RateLimiter, RedisCounter, type RateLimitsConfig, type RateLimitVerdict } from '../../lib/rate-limit';
import { redisConnection } from '../../lib/redis';

// Rate limits as one step of the request pipeline, after authentication: per credential on every authenticated route
// (memory, or Redis when REDIS_URL is set so processes share the counts), per client address on the rows that name a
// limit (`rateLimit`: sign-in and sign-up), counted in the database so they hold across processes without Redis.
// Every limited answer carries RateLimit-Limit, -Remaining and -Reset; a refusal is 429 with Retry-After.
export interface RateLimitsPluginOptions {
    knex: Knex;
    limits: RateLimitsConfig | null;                            // null: no limit (tests)
    redis: { url: string; prefix: string } | null;
    clock: () => number;
}

declare module '@hapi/hapi' {
    interface PluginsStates {
        rateLimit?: RateLimitVerdict;
    }
}

const PRUNE_JOB = 'rate-limits.prune';
const PRUNE_PERIOD_MS = 3600 * 1000;

const refusals = {
    credential: 'Too many requests with this credential',
    signIn: 'Too many sign-in attempts from this address',
    signUp: 'Too many sign-ups from this address'
} as const;

function headers(target: ResponseObject | Boom.Boom, verdict: RateLimitVerdict): void {
    const values = { 'ratelimit-limit': verdict.limit, 'ratelimit-remaining': verdict.remaining, 'ratelimit-reset': verdict.resetSeconds };
    for (const [name, value] of Object.entries(values)) {
        if (Boom.isBoom(target)) {
            target.output.headers[name] = String(value);
        }
        else {
            target.header(name, String(value));
        }
    }
}

export const rateLimitsPlugin: NamedPlugin<RateLimitsPluginOptions> = {
    name: 'hostless-rate-limits',
    dependencies: ['hostless-auth', 'hostless-jobs'],
    register(server, options) {
        const { limits } = options;
        if (!limits) {
            return;
        }

        const redis = options.redis ? redisConnection(options.redis.url, 'counters') : null;
        if (redis) {
            redis.on('error', (err: Error) => server.log(['error', 'rate-limits'], err));
            server.ext('onPostStop', async () => {
                await redis.quit().catch(() => redis.disconnect());
            });
        }

        const database = new DatabaseCounter(options.knex);
        const limiters = {
            credential: new RateLimiter('credential', limits.credential, redis ? new RedisCounter(redis, options.redis!.prefix) : new MemoryCounter(options.clock), options.clock),
            signIn: new RateLimiter('sign-in', limits.signIn, database, options.clock),
            signUp: new RateLimiter('sign-up', limits.signUp, database, options.clock)
        };

        server.ext('onPostStart', periodicJob(server.plugins['hostless-jobs'].queue, PRUNE_JOB, PRUNE_PERIOD_MS, () => database.prune(options.clock())));

        const subject = (request: Request): [keyof typeof limiters, string] | null => {
            const row = request.route.settings.plugins?.platform;
            if (row?.rateLimit) {
                const address = request.clientAddress();
                return address ? [row.rateLimit, address] : null;
            }

            return row && request.auth.isAuthenticated && request.auth.credentials.credentialId ? ['credential', request.auth.credentials.credentialId] : null;
        };

        server.ext('onPostAuth', async (request, h) => {
            const found = subject(request);
            if (!found) {
                return h.continue;
            }

            const [name, key] = found;
            let verdict: RateLimitVerdict;
            try {
                verdict = await limiters[name].hit(key);
            }
            catch (err) {
                // A counter that cannot be reached (Redis down) lets the request through rather than refuse everyone.
                server.log(['error', 'rate-limits'], err as Error);
                return h.continue;
            }

            request.plugins.rateLimit = verdict;
            if (!verdict.allowed) {
                const rule = limits[name];
                const refusal = Boom.tooManyRequests(`${refusals[name]}: at most ${rule.limit} every ${rule.windowSeconds} seconds; retry in ${verdict.resetSeconds} seconds`);
                refusal.output.headers['retry-after'] = String(verdict.resetSeconds);
                throw refusal;
            }

            return h.continue;
        }, { after: ['hostless-auth'] });

        server.ext('onPreResponse', (request, h) => {
            const verdict = request.plugins.rateLimit;
            if (verdict) {
                headers(request.response, verdict);
            }

            return h.continue;
        });
    }
};
