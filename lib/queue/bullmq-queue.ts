import { Job, Queue, Worker, type JobState } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Knex } from 'knex';

import { sha256 } from '../crypto';
import { isUniqueViolation } from '../db/errors';
import { newId } from '../ids';
import { redact } from '../redact';
import { redisConnection } from '../redis';
import { backoffDelay, type BackoffOptions } from './backoff';
import type { DeadJobs, EnqueueOptions, JobContext, JobHandler, JobQueue, JobRecord, JobStatus } from './types';

// The job queue on Redis, through BullMQ (REDIS_URL). A job enqueued inside a database transaction goes to the
// job_outbox table with the change that needs it and is moved into BullMQ after the commit; a worker's sweep moves
// what a process that died between commit and move left behind. Job ids are fixed before the move (an idempotency
// key's digest, else a new id), and BullMQ adds a job id once, so a job moved twice still runs once. Leases are
// BullMQ's locks: a job whose worker died is taken up again by the stalled-job check.
export interface BullmqQueueOptions {
    knex: Knex;
    url: string;
    prefix: string;                                             // REDIS_PREFIX: every key is `<prefix>:jobs:...`
    concurrency?: number;
    leaseMs?: number;
    maxAttempts?: number;
    backoff?: BackoffOptions;
    stopTimeoutMs?: number;
    sweepMs?: number;
    onError?: (err: unknown) => void;
}

interface Data {
    payload: unknown;
    idempotencyKey: string | null;
    runAt: string;
}

interface OutboxRow {
    id: string;
    type: string;
    payload: string;
    idempotency_key: string | null;
    run_at: string;
    max_attempts: number | string;
    created_at: string;
}

const QUEUE_NAME = 'jobs';
const KEEP_SUCCEEDED_SECONDS = 7 * 24 * 3600;                   // a finished job's record (and its idempotency key) stays a week
const iso = (ms: number) => new Date(ms).toISOString();

const STATUS: Partial<Record<JobState | 'unknown', JobStatus>> = { active: 'running', completed: 'succeeded', failed: 'dead' };

function toRecord(job: Job<Data>, state: JobState | 'unknown'): JobRecord {
    const status = STATUS[state] ?? 'queued';
    const finished = status === 'succeeded' || status === 'dead';
    return {
        id: job.id!,
        type: job.name,
        payload: job.data.payload,
        status,
        idempotencyKey: job.data.idempotencyKey,
        runAt: job.data.runAt,
        attempts: Math.max(job.attemptsStarted ?? 0, job.attemptsMade),
        maxAttempts: job.opts.attempts ?? 1,
        lastError: job.failedReason || null,
        leaseOwner: null,
        leaseExpiresAt: null,
        createdAt: iso(job.timestamp),
        updatedAt: iso(job.finishedOn ?? job.processedOn ?? job.timestamp),
        finishedAt: finished && job.finishedOn ? iso(job.finishedOn) : null
    };
}

function outboxRecord(row: OutboxRow): JobRecord {
    return {
        id: row.id, type: row.type, payload: JSON.parse(row.payload), status: 'queued', idempotencyKey: row.idempotency_key, runAt: row.run_at,
        attempts: 0, maxAttempts: Number(row.max_attempts), lastError: null, leaseOwner: null, leaseExpiresAt: null,
        createdAt: row.created_at, updatedAt: row.created_at, finishedAt: null
    };
}

export class BullmqQueue implements JobQueue {
    readonly backend = 'bullmq' as const;

    private readonly knex: Knex;
    private readonly settings: Required<Omit<BullmqQueueOptions, 'knex' | 'url' | 'prefix' | 'onError'>>;
    private readonly onError: (err: unknown) => void;
    private readonly handlers = new Map<string, JobHandler>();
    private readonly inFlight = new Set<AbortController>();
    private readonly connection: Redis;
    private readonly queue: Queue<Data>;
    private worker: Worker<Data> | null = null;
    private sweeper: NodeJS.Timeout | null = null;
    private closed = false;

    constructor(private readonly options: BullmqQueueOptions) {
        this.knex = options.knex;
        this.onError = options.onError ?? (() => { });
        this.settings = {
            concurrency: options.concurrency ?? 4,
            leaseMs: options.leaseMs ?? 30_000,
            maxAttempts: options.maxAttempts ?? 5,
            backoff: options.backoff ?? { baseMs: 1_000, maxMs: 10 * 60_000 },
            stopTimeoutMs: options.stopTimeoutMs ?? 10_000,
            sweepMs: options.sweepMs ?? 1_000
        };
        this.connection = redisConnection(options.url, 'queue');
        this.connection.on('error', this.onError);
        this.queue = new Queue<Data>(QUEUE_NAME, { connection: this.connection, prefix: options.prefix });
        this.queue.on('error', this.onError);
    }

    handle(type: string, handler: JobHandler): void {
        this.handlers.set(type, handler);
    }

    async enqueue(type: string, payload: object, options: EnqueueOptions = {}): Promise<JobRecord> {
        const id = options.idempotencyKey ? `k-${sha256(options.idempotencyKey).toString('base64url')}` : newId('job');
        if (options.idempotencyKey) {
            const existing = await this.get(id, options.trx);
            if (existing) {
                return existing;
            }
        }

        const row: OutboxRow = {
            id, type, payload: JSON.stringify(payload), idempotency_key: options.idempotencyKey ?? null, run_at: iso(options.runAt?.getTime() ?? Date.now()),
            max_attempts: options.maxAttempts ?? this.settings.maxAttempts, created_at: iso(Date.now())
        };
        if (!options.trx) {
            await this.add(row);
            return (await this.get(id)) ?? outboxRecord(row);
        }

        try {
            // A savepoint, so a duplicate key inside the caller's transaction does not poison it.
            await options.trx.transaction((sp) => sp('job_outbox').insert(row));
        }
        catch (err) {
            if (options.idempotencyKey && isUniqueViolation(err)) {
                return (await this.get(id, options.trx))!;
            }

            throw err;
        }

        void options.trx.executionPromise.then(() => this.relay([id]), () => { });
        return outboxRecord(row);
    }

    async get(id: string, db: Knex = this.knex): Promise<JobRecord | undefined> {
        const job = await Job.fromId<Data>(this.queue, id);
        if (job) {
            return toRecord(job, await job.getState());
        }

        const row = await db<OutboxRow>('job_outbox').where({ id }).first();
        return row ? outboxRecord(row) : undefined;
    }

    async counts(): Promise<Record<JobStatus, number>> {
        const counts = await this.queue.getJobCounts('waiting', 'delayed', 'prioritized', 'waiting-children', 'active', 'completed', 'failed');
        const outbox = await this.knex('job_outbox').count({ n: '*' }).first<{ n: number | string }>();
        return {
            queued: (counts.waiting ?? 0) + (counts.delayed ?? 0) + (counts.prioritized ?? 0) + (counts['waiting-children'] ?? 0) + Number(outbox.n),
            running: counts.active ?? 0,
            succeeded: counts.completed ?? 0,
            dead: counts.failed ?? 0
        };
    }

    async dead(since: string | null, limit: number): Promise<DeadJobs> {
        const from = since ? Date.parse(since) : 0;
        // BullMQ keeps failed jobs in a sorted set scored by when they failed.
        const total = since ? await this.connection.zcount(this.queue.keys.failed, from, '+inf') : await this.queue.getFailedCount();
        const jobs = await this.queue.getJobs(['failed'], 0, Math.max(0, limit - 1), false) as Array<Job<Data>>;
        return { total, jobs: jobs.filter((job) => (job.finishedOn ?? 0) >= from).map((job) => toRecord(job, 'failed')) };
    }

    start(): void {
        if (this.worker || this.closed) {
            return;
        }

        this.worker = new Worker<Data>(QUEUE_NAME, (job, _token, signal) => this.run(job, signal), {
            connection: this.connection,
            prefix: this.options.prefix,
            concurrency: this.settings.concurrency,
            lockDuration: this.settings.leaseMs,
            stalledInterval: this.settings.leaseMs,
            maxStalledCount: 1,
            settings: { backoffStrategy: (attemptsMade: number) => backoffDelay(attemptsMade, this.settings.backoff) }
        });
        this.worker.on('error', this.onError);
        this.sweeper = setInterval(() => void this.relay(null), this.settings.sweepMs);
        this.sweeper.unref();
    }

    /** Stops taking jobs and waits for running ones (up to stopTimeoutMs; an unfinished one is taken up again later). */
    async stop(): Promise<void> {
        if (this.sweeper) {
            clearInterval(this.sweeper);
            this.sweeper = null;
        }

        const worker = this.worker;
        this.worker = null;
        if (worker) {
            const timedOut = await Promise.race([worker.close().then(() => false), new Promise<boolean>((resolve) => setTimeout(() => resolve(true), this.settings.stopTimeoutMs).unref())]);
            if (timedOut) {
                for (const abort of this.inFlight) {
                    abort.abort(new Error('The queue is stopping'));
                }

                await worker.close(true);
            }
        }
    }

    /** Stops, then closes the Redis connections: jobs committed after this are moved by another process's sweep. */
    async close(): Promise<void> {
        if (this.closed) {
            return;
        }

        this.closed = true;
        await this.stop();
        await this.queue.close();
        await this.connection.quit().catch(() => this.connection.disconnect());
    }

    private async add(row: OutboxRow): Promise<void> {
        const runAt = Date.parse(row.run_at);
        await this.queue.add(row.type, { payload: JSON.parse(row.payload), idempotencyKey: row.idempotency_key, runAt: row.run_at }, {
            jobId: row.id,
            delay: Math.max(0, runAt - Date.now()),
            attempts: Number(row.max_attempts),
            backoff: { type: 'custom' },
            removeOnComplete: { age: KEEP_SUCCEEDED_SECONDS },
            removeOnFail: false,
            stackTraceLimit: 0
        });
    }

    /** Moves committed outbox rows (these ids, or the oldest hundred) into BullMQ, then deletes them. */
    private async relay(ids: string[] | null): Promise<void> {
        if (this.closed) {
            return;                                             // a later sweep, in another process, moves them
        }

        try {
            const query = this.knex<OutboxRow>('job_outbox').orderBy('created_at').limit(100);
            const rows = await (ids ? query.whereIn('id', ids) : query);
            for (const row of rows) {
                await this.add(row);
                await this.knex('job_outbox').where({ id: row.id }).delete();
            }
        }
        catch (err) {
            this.onError(err);
        }
    }

    private async run(job: Job<Data>, signal?: AbortSignal): Promise<void> {
        const abort = new AbortController();
        signal?.addEventListener('abort', () => abort.abort(signal.reason), { once: true });
        this.inFlight.add(abort);
        const context: JobContext = { id: job.id!, attempt: Math.max(1, job.attemptsStarted ?? job.attemptsMade + 1), maxAttempts: job.opts.attempts ?? 1, signal: abort.signal };
        try {
            const handler = this.handlers.get(job.name);
            if (!handler) {
                throw new Error(`No handler for job type ${job.name}`);
            }

            await handler(job.data.payload, context);
        }
        catch (err) {
            // BullMQ keeps the message (and a stack) with the job: only the redacted message is handed over.
            const message = redact(err instanceof Error ? err.message : String(err)).slice(0, 2000);
            const failure = new Error(message);
            failure.stack = message;
            throw failure;
        }
        finally {
            this.inFlight.delete(abort);
        }
    }
}
