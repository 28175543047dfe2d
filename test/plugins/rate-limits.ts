import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';
import { Redis } from 'ioredis';

import { DatabaseCounter, MemoryCounter, RateLimiter } from '../../lib/rate-limit';
import { loadConfig } from '../../manifest/config';
import type { RateLimitsConfig } from '../../manifest/rate-limits';
import { PASSWORD, register, uniqueEmail, type TestUser } from '../helpers/api';
import { manualClock } from '../helpers/clock';
import { testDatabase, testServer, type TestDatabase, type TestServer } from '../helpers/server';

const { describe, it, before, after } = exports.lab = Lab.script();
const { expect } = Code;

const redisUrl = process.env.TEST_REDIS_URL ?? null;
const limits: RateLimitsConfig = {
    credential: { limit: 3, windowSeconds: 60 },
    signIn: { limit: 2, windowSeconds: 900 },
    signUp: { limit: 50, windowSeconds: 3600 }
};

describe('rate limits', () => {

    describe('settings', () => {

        it('defaults to 600/60 per credential, 30/900 sign-ins and 10/3600 sign-ups per address, and refuses a malformed rule', () => {
            const config = loadConfig({ DATA_DIR: '/tmp/hostless-rate-limit-settings', SESSION_SECRET: 'x'.repeat(32), ENCRYPTION_KEY: 'y'.repeat(32) });
            expect(config.rateLimits).to.equal({
                credential: { limit: 600, windowSeconds: 60 }, signIn: { limit: 30, windowSeconds: 900 }, signUp: { limit: 10, windowSeconds: 3600 }
            });
            expect(config.redisPrefix).to.equal('hostless');
            const own = loadConfig({ DATA_DIR: '/tmp/hostless-rate-limit-settings', SESSION_SECRET: 'x'.repeat(32), ENCRYPTION_KEY: 'y'.repeat(32), RATE_LIMIT_SIGN_IN: '5/60' });
            expect(own.rateLimits!.signIn).to.equal({ limit: 5, windowSeconds: 60 });
            expect(() => loadConfig({ DATA_DIR: '/tmp/hostless-rate-limit-settings', RATE_LIMIT_CREDENTIAL: '600 per minute' }))
                .to.throw('RATE_LIMIT_CREDENTIAL is not valid: set it to requests/seconds, such as 600/60, or leave it unset for the default.');
            expect(() => loadConfig({ DATA_DIR: '/tmp/hostless-rate-limit-settings', RATE_LIMIT_SIGN_UP: '0/60' })).to.throw(/RATE_LIMIT_SIGN_UP is not valid/);
        });

        it('counts fixed windows: the count starts again when the window ends', async () => {
            let now = Date.UTC(2026, 0, 1, 0, 0, 10);
            const limiter = new RateLimiter('t', { limit: 2, windowSeconds: 60 }, new MemoryCounter(() => now), () => now);
            expect(await limiter.hit('a')).to.equal({ allowed: true, limit: 2, remaining: 1, resetSeconds: 50 });
            expect(await limiter.hit('a')).to.equal({ allowed: true, limit: 2, remaining: 0, resetSeconds: 50 });
            expect(await limiter.hit('a')).to.equal({ allowed: false, limit: 2, remaining: 0, resetSeconds: 50 });
            expect((await limiter.hit('b')).allowed, 'another subject has its own count').to.be.true();
            now += 50_000;
            expect(await limiter.hit('a')).to.equal({ allowed: true, limit: 2, remaining: 1, resetSeconds: 60 });
        });
    });

    describe('on the API', () => {

        const clock = manualClock('2026-03-01T10:00:05Z');
        let db: TestDatabase;
        let instances: TestServer[];
        let user: TestUser;

        before(async () => {
            db = await testDatabase();
            // Two processes of one deployment on one database: the per-address counts are the database's.
            instances = [
                await testServer({ database: db.database, rateLimits: limits, trustedProxies: ['10.0.0.0/8'] }, { clock }),
                await testServer({ database: db.database, rateLimits: limits }, { clock })
            ];
            user = await register(instances[0].server, 'limited');
        });

        after(async () => {
            for (const instance of instances ?? []) {
                await instance.stop();
            }

            await db?.stop();
        });

        const me = (index: number, authorization: string) => instances[index].server.inject({ method: 'GET', url: '/v1/users/me', headers: { authorization } });
        const signIn = (index: number, remoteAddress: string, headers: Record<string, string> = {}) =>
            instances[index].server.inject({ method: 'POST', url: '/v1/auth/login', remoteAddress, headers, payload: { email: user.email, password: PASSWORD } });

        it('limits each credential, with RateLimit headers, then 429 with Retry-After until the window ends', async () => {
            clock.advance(60_000);                              // a window the sign-up's own requests did not count in
            const answers = [];
            for (let i = 0; i < 3; ++i) {
                answers.push(await me(0, user.session));
            }

            expect(answers.map((res) => res.statusCode)).to.equal([200, 200, 200]);
            expect(answers.map((res) => res.headers['ratelimit-remaining'])).to.equal(['2', '1', '0']);
            expect(answers[0].headers['ratelimit-limit']).to.equal('3');
            expect(answers[0].headers['ratelimit-reset']).to.equal('55');

            const refused = await me(0, user.session);
            expect(refused.statusCode).to.equal(429);
            expect(refused.result).to.equal({ statusCode: 429, error: 'Too Many Requests', message: 'Too many requests with this credential: at most 3 every 60 seconds; retry in 55 seconds' });
            expect(refused.headers['retry-after']).to.equal('55');
            expect(refused.headers['ratelimit-remaining']).to.equal('0');

            const other = await register(instances[0].server, 'other');
            expect((await me(0, other.session)).statusCode, 'another credential has its own count').to.equal(200);
            expect((await instances[0].server.inject({ method: 'GET', url: '/livez' })).headers['ratelimit-limit'], 'a route outside the tables is not counted').to.not.exist();

            clock.advance(55_000);
            expect((await me(0, user.session)).statusCode).to.equal(200);
        });

        it('limits sign-ins per client address across processes, counted in the database', async () => {
            expect((await signIn(0, '203.0.113.7')).statusCode).to.equal(200);
            const second = await signIn(1, '203.0.113.7');
            expect(second.statusCode, 'the other process counts the same address').to.equal(200);
            expect(second.headers['ratelimit-remaining']).to.equal('0');
            const refused = await signIn(0, '203.0.113.7');
            expect(refused.statusCode).to.equal(429);
            expect((refused.result as { message: string }).message).to.startWith('Too many sign-in attempts from this address: at most 2 every 900 seconds');
            expect(Number(refused.headers['retry-after'])).to.be.within(1, 900);
            expect((await signIn(1, '203.0.113.8')).statusCode, 'another address has its own count').to.equal(200);

            const wrong = await instances[1].server.inject({ method: 'POST', url: '/v1/auth/login', remoteAddress: '203.0.113.8', payload: { email: user.email, password: 'not the password' } });
            expect(wrong.statusCode, 'a failed attempt counts too').to.equal(401);
            expect((await signIn(1, '203.0.113.8')).statusCode).to.equal(429);

            const rows = await db.knex('rate_limit_counters').where('key', 'like', 'sign-in:203.0.113.7:%');
            expect(rows.map((row) => Number(row.count))).to.equal([3]);
        });

        it('counts the address a trusted proxy forwards, and the proxy itself otherwise', async () => {
            const viaProxy = (forwarded: string) => signIn(0, '10.1.2.3', { 'x-forwarded-for': forwarded });
            expect((await viaProxy('198.51.100.1')).statusCode).to.equal(200);
            expect((await viaProxy('198.51.100.1')).statusCode).to.equal(200);
            expect((await viaProxy('198.51.100.1')).statusCode).to.equal(429);
            expect((await viaProxy('198.51.100.2')).statusCode, 'each forwarded address has its own count').to.equal(200);

            // The second process trusts no proxy: X-Forwarded-For is ignored and the connection's address counts.
            const untrusted = (forwarded: string) => signIn(1, '10.9.9.9', { 'x-forwarded-for': forwarded });
            expect((await untrusted('198.51.100.3')).statusCode).to.equal(200);
            expect((await untrusted('198.51.100.4')).statusCode).to.equal(200);
            expect((await untrusted('198.51.100.5')).statusCode).to.equal(429);
        });

        it('limits sign-ups per address, and deletes the counts of passed windows', async () => {
            const signUp = (remoteAddress: string) => instances[0].server.inject({ method: 'POST', url: '/v1/auth/register', remoteAddress, payload: { email: uniqueEmail('rl'), password: PASSWORD } });
            const statuses = [];
            for (let i = 0; i < limits.signUp.limit + 1; ++i) {
                statuses.push((await signUp('192.0.2.44')).statusCode);
            }

            expect(statuses.slice(0, -1).every((status) => status === 201)).to.be.true();
            const refused = await signUp('192.0.2.44');
            expect(refused.statusCode).to.equal(429);
            expect((refused.result as { message: string }).message).to.startWith('Too many sign-ups from this address: at most 50 every 3600 seconds');

            const before = await db.knex('rate_limit_counters').count({ n: '*' }).first();
            clock.advance(3600_000);
            expect(await new DatabaseCounter(db.knex).prune(clock.now().getTime())).to.equal(Number(before!.n));
            expect((await signUp('192.0.2.44')).statusCode, 'a new window').to.equal(201);
        });
    });

    describe('with Redis', { skip: !redisUrl }, () => {

        let instances: TestServer[];
        let db: TestDatabase;
        let redis: Redis;
        const clock = manualClock('2026-03-01T10:00:05Z');
        const prefix = `hostless-test-${process.pid}-${Date.now()}`;

        before(async () => {
            db = await testDatabase();
            const settings = { database: db.database, rateLimits: limits, redisUrl, redisPrefix: prefix, sessionSecret: 's'.repeat(64), encryptionKey: 'e'.repeat(64) };
            instances = [await testServer(settings, { clock }), await testServer(settings, { clock })];
            redis = new Redis(redisUrl!);
        });

        after(async () => {
            for (const instance of instances ?? []) {
                await instance.stop();
            }

            await db?.stop();
            const keys = await redis.keys(`${prefix}:*`);
            if (keys.length) {
                await redis.del(...keys);
            }

            await redis.quit();
        });

        it('shares the per-credential counts between processes', async () => {
            const user = await register(instances[0].server, 'shared');
            clock.advance(60_000);
            const statuses = [];
            for (let i = 0; i < 4; ++i) {
                statuses.push((await instances[i % 2].server.inject({ method: 'GET', url: '/v1/users/me', headers: { authorization: user.session } })).statusCode);
            }

            expect(statuses).to.equal([200, 200, 200, 429]);
            expect(await redis.keys(`${prefix}:rate:credential:*`), "the sign-up's window and this one").to.have.length(2);
        });
    });
});
