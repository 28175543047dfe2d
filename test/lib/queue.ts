import * as ChildProcess from 'node:child_process';
import * as Path from 'node:path';

import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';
import type { Knex } from 'knex';

import { backoffDelay } from '../../lib/queue/backoff';
import { BullmqQueue, type BullmqQueueOptions } from '../../lib/queue/bullmq-queue';
import { DatabaseQueue, type DatabaseQueueOptions } from '../../lib/queue/database-queue';
import type { JobQueue } from '../../lib/queue/types';
import { dropRedisKeys } from '../helpers/redis';
import { postgresUrl, testDatabase, type TestDatabase } from '../helpers/server';

const { describe, it, before, after } = exports.lab = Lab.script();
const { expect } = Code;

// The same tests run against both backends: the database's, and BullMQ's when TEST_REDIS_URL names a Redis.
const redisUrl = process.env.TEST_REDIS_URL ?? null;
type RedisTarget = { url: string; prefix: string } | null;

const until = async (check: () => Promise<boolean>, what: string, timeoutMs = 10_000) => {
    const deadline = Date.now() + timeoutMs;
    while (!await check()) {
        if (Date.now() > deadline) {
            throw new Error(`timed out waiting for ${what}`);
        }

        await new Promise((resolve) => setTimeout(resolve, 10));
    }
};

function fork(mode: 'hang' | 'record', database: TestDatabase['database'], leaseMs: number, redis: RedisTarget): ChildProcess.ChildProcess {
    return ChildProcess.fork(Path.join(__dirname, '..', 'fixtures', 'queue-worker.ts'), [mode, JSON.stringify(database), String(leaseMs), ...(redis ? [JSON.stringify(redis)] : [])], {
        execArgv: ['-r', Path.join(__dirname, '..', '..', 'scripts', 'ts-register.js')],
        stdio: ['ignore', 'inherit', 'inherit', 'ipc']
    });
}

const message = <T>(child: ChildProcess.ChildProcess) => new Promise<T>((resolve, reject) => {
    child.once('message', (value) => resolve(value as T));
    child.once('exit', (code) => reject(new Error(`worker exited with ${code} before answering`)));
});

const testPrefix = () => `hostless-test-${process.pid}-${Date.now().toString(36)}`;

type QueueOptions = Partial<DatabaseQueueOptions & BullmqQueueOptions>;

const suite = (backend: 'database' | 'bullmq') => () => {

    let db: TestDatabase;
    let queues: JobQueue[] = [];
    const made: JobQueue[] = [];
    const prefix = testPrefix();
    const queue = (options: QueueOptions = {}): JobQueue => {
        const created = backend === 'bullmq'
            ? new BullmqQueue({ knex: db.knex, url: redisUrl!, prefix, sweepMs: 50, ...options })
            : new DatabaseQueue({ knex: db.knex, pollMs: 10, ...options });
        queues.push(created);
        made.push(created);
        return created;
    };

    before(async () => {
        db = await testDatabase();
        await db.knex.schema.createTable('job_runs', (t) => {
            t.string('job_id').notNullable();
            t.integer('pid').notNullable();
        });
    });

    after(async () => {
        await Promise.all(made.map((q) => q.close()));
        await db?.stop();
        if (backend === 'bullmq') {
            await dropRedisKeys(redisUrl!, prefix);
        }
    });

    const stopAll = async () => {
        await Promise.all(queues.map((q) => q.stop()));
        queues = [];
    };

    it('runs a job once when it is enqueued twice with one idempotency key', async () => {
        const q = queue();
        let runs = 0;
        q.handle('once', async () => {
            ++runs;
        });
        const first = await q.enqueue('once', { n: 1 }, { idempotencyKey: 'deploy:dep_1' });
        const second = await q.enqueue('once', { n: 2 }, { idempotencyKey: 'deploy:dep_1' });
        expect(second.id).to.equal(first.id);
        expect(second.payload).to.equal({ n: 1 });
        q.start();
        await until(async () => (await q.get(first.id))!.status === 'succeeded', 'the job');
        await stopAll();
        expect(runs).to.equal(1);
    });

    it('retries a failing job with growing delays and puts it in dead-letter with its last error', async () => {
        const q = queue({ backoff: { baseMs: 40, maxMs: 1000 } });
        const runs: number[] = [];
        q.handle('flaky', async () => {
            runs.push(Date.now());
            throw new Error(`provider said no to svk_AbCdEfGhIj_${'x'.repeat(49)} (attempt ${runs.length})`);
        });
        const job = await q.enqueue('flaky', {}, { maxAttempts: 4 });
        q.start();
        await until(async () => (await q.get(job.id))!.status === 'dead', 'dead-letter');
        await stopAll();

        const dead = (await q.get(job.id))!;
        expect(dead.attempts).to.equal(4);
        expect(dead.lastError).to.equal('provider said no to [redacted] (attempt 4)');
        expect(dead.finishedAt).to.exist();
        expect(runs).to.have.length(4);
        const gaps = runs.slice(1).map((at, i) => at - runs[i]);
        expect(gaps[0]).to.be.at.least(20);                     // attempt 1 waits 20-40 ms,
        expect(gaps[2]).to.be.at.least(80);                     // attempt 3 waits 80-160 ms
    });

    it('computes backoff as doubling delays with jitter, capped', () => {
        const options = { baseMs: 1000, maxMs: 8000 };
        expect(backoffDelay(1, options, () => 0)).to.equal(500);
        expect(backoffDelay(1, options, () => 1)).to.equal(1000);
        expect(backoffDelay(3, options, () => 1)).to.equal(4000);
        expect(backoffDelay(10, options, () => 1)).to.equal(8000);
    });

    it('enqueues with the transaction of the change: a rollback leaves no job, a commit runs it', async () => {
        const q = queue();
        let runs = 0;
        q.handle('with-change', async () => {
            ++runs;
        });
        q.start();
        await expect(db.knex.transaction(async (trx) => {
            await q.enqueue('with-change', { first: true }, { trx, idempotencyKey: 'rolled-back' });
            throw new Error('the change failed');
        })).to.reject('the change failed');
        const again = await q.enqueue('with-change', { second: true }, { idempotencyKey: 'rolled-back' });
        expect(again.payload, 'the rolled-back job does not exist').to.equal({ second: true });

        const committed = await db.knex.transaction((trx) => q.enqueue('with-change', {}, { trx }));
        await until(async () => (await q.get(committed.id))!.status === 'succeeded', 'the committed job');
        await until(async () => (await q.get(again.id))!.status === 'succeeded', 'the job enqueued again');
        await stopAll();
        expect(runs).to.equal(2);
    });

    it('runs a scheduled job at its time, not before', async () => {
        const q = queue();
        let ranAt = 0;
        q.handle('later', async () => {
            ranAt = Date.now();
        });
        q.start();
        const runAt = new Date(Date.now() + 300);
        const job = await q.enqueue('later', {}, { runAt });
        await new Promise((resolve) => setTimeout(resolve, 100));
        expect((await q.get(job.id))!.status).to.equal('queued');
        await until(async () => (await q.get(job.id))!.status === 'succeeded', 'the scheduled job');
        await stopAll();
        expect(ranAt).to.be.at.least(runAt.getTime());
    });

    it('keeps a long job\'s lease alive, so another worker does not take it over', async () => {
        // The job outlives four leases; a lease long enough that a busy machine's event loop still renews it in time.
        const [a, b] = [queue({ leaseMs: 500 }), queue({ leaseMs: 500 })];
        let runs = 0;
        const slow = async () => {
            ++runs;
            await new Promise((resolve) => setTimeout(resolve, 2000));
        };
        a.handle('slow', slow);
        b.handle('slow', slow);
        const job = await a.enqueue('slow', {});
        a.start();
        await until(async () => (await a.get(job.id))!.status === 'running', 'the claim');
        b.start();
        await until(async () => (await a.get(job.id))!.status === 'succeeded', 'the slow job');
        await stopAll();
        expect(runs).to.equal(1);
        expect((await a.get(job.id))!.attempts).to.equal(1);
    });

    it('claims again, after its lease, the job of a worker killed with SIGKILL, and finishes it', async () => {
        // BullMQ checks for stalled jobs once per interval per queue, whichever worker's: a queue of its own for this lease.
        const own = `${prefix}-orphan`;
        const q = queue({ leaseMs: 300, prefix: own });
        const job = await q.enqueue('work', { report: 'quarterly' });
        const child = fork('hang', db.database, 300, backend === 'bullmq' ? { url: redisUrl!, prefix: own } : null);
        const started = await message<{ started: string; owner: string | null }>(child);
        expect(started.started).to.equal(job.id);
        child.kill('SIGKILL');
        await new Promise((resolve) => child.once('exit', resolve));

        const orphan = (await q.get(job.id))!;
        expect(orphan).to.include({ status: 'running', attempts: 1 });
        expect(orphan.leaseOwner).to.equal(started.owner);

        const finished: string[] = [];
        q.handle('work', async (payload, context) => {
            finished.push(`${context.id}:${(payload as { report: string }).report}`);
        });
        q.start();
        await until(async () => (await q.get(job.id))!.status === 'succeeded', 'the orphaned job');
        await stopAll();
        expect(finished).to.equal([`${job.id}:quarterly`]);
        expect((await q.get(job.id))!.attempts).to.equal(2);
    });

    it('reports how many jobs are in each state, and the dead ones newest first', async () => {
        const q = queue();
        const counts = await q.counts();
        expect(Object.keys(counts).sort()).to.equal(['dead', 'queued', 'running', 'succeeded']);
        expect(counts.dead).to.be.at.least(1);
        const dead = await q.dead(null, 10);
        expect(dead.total).to.equal(counts.dead);
        expect(dead.jobs[0]).to.include({ type: 'flaky', status: 'dead', lastError: 'provider said no to [redacted] (attempt 4)' });
        expect((await q.dead(new Date(Date.now() + 60_000).toISOString(), 10)).total, 'none died in the future').to.equal(0);
        await stopAll();
    });

    it('moves a job committed after its process stopped with the next worker\'s sweep, once', async () => {
        const gone = queue();
        const job = await db.knex.transaction(async (trx) => {
            const enqueued = await gone.enqueue('swept', { n: 1 }, { trx });
            await gone.close();                                 // the process is gone before the change commits
            return enqueued;
        });
        const [a, b] = [queue(), queue()];
        expect((await a.get(job.id))!.status, 'held until a worker runs it').to.equal('queued');

        let runs = 0;
        for (const q of [a, b]) {
            q.handle('swept', async () => {
                ++runs;
            });
            q.start();
        }

        await until(async () => (await a.get(job.id))?.status === 'succeeded', 'the swept job');
        await new Promise((resolve) => setTimeout(resolve, 200));
        await stopAll();
        expect(runs).to.equal(1);
    });

    if (backend === 'database') {
        // A stop while the claim's statement is on its way: the jobs it leases start and are waited for, rather than
        // running after stop() said the worker was done (a test's database then changed under the next case).
        it('waits, when it stops, for the jobs of a claim already asked for', async () => {
            const q = queue();
            const events: string[] = [];
            q.handle('claimed', async () => {
                events.push('started');
                await new Promise((resolve) => setTimeout(resolve, 50));
                events.push('finished');
            });
            const job = await q.enqueue('claimed', { n: 1 });
            const stop: { done: Promise<void> | null } = { done: null };
            const onQuery = (query: { sql: string }) => {
                if (!stop.done && /^update\b.*\blease_owner\b/i.test(query.sql)) {
                    stop.done = q.stop().then(() => void events.push('stopped'));
                }
            };
            db.knex.on('query', onQuery);
            try {
                q.start();
                await until(() => Promise.resolve(stop.done !== null), 'the claim');
                await stop.done;
            }
            finally {
                db.knex.off('query', onQuery);
            }

            await new Promise((resolve) => setTimeout(resolve, 100));
            expect(events).to.equal(['started', 'finished', 'stopped']);
            expect((await q.get(job.id))!.status).to.equal('succeeded');
        });
    }
};

describe('job queue (database backend)', suite('database'));
describe('job queue (BullMQ backend)', { skip: !redisUrl }, suite('bullmq'));

describe('job queue on PostgreSQL with two processes', { skip: !postgresUrl }, () => {

    let db: TestDatabase;
    let knex: Knex;

    before(async () => {
        db = await testDatabase({ postgres: true });
        knex = db.knex;
        await knex.schema.createTable('job_runs', (t) => {
            t.string('job_id').notNullable();
            t.integer('pid').notNullable();
        });
    });

    after(async () => {
        await db?.stop();
    });

    const drains = (redis: RedisTarget) => async () => {
        await knex('job_runs').delete();
        const q = redis ? new BullmqQueue({ knex, ...redis }) : new DatabaseQueue({ knex });
        try {
            for (let i = 0; i < 1000; i += 100) {
                await Promise.all(Array.from({ length: 100 }, (_, j) => q.enqueue('work', { n: i + j })));
            }

            const workers = [fork('record', db.database, 30_000, redis), fork('record', db.database, 30_000, redis)];
            const done = await Promise.all(workers.map((worker) => message<{ done: number }>(worker)));
            expect(done[0].done + done[1].done).to.equal(1000);

            const [runs] = await knex('job_runs').count({ total: '*' }).countDistinct({ distinct: 'job_id' });
            expect(Number(runs.total)).to.equal(1000);
            expect(Number(runs.distinct)).to.equal(1000);
            expect((await q.counts()).succeeded).to.equal(1000);
        }
        finally {
            await q.close();
            if (redis) {
                await dropRedisKeys(redisUrl!, redis.prefix);
            }
        }
    };

    it('runs each of 1,000 jobs exactly once while two processes drain the queue', drains(null));
    it('runs each of 1,000 jobs exactly once while two processes drain the queue on BullMQ', { skip: !redisUrl }, drains(redisUrl ? { url: redisUrl, prefix: testPrefix() } : null));
});
