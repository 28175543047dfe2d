import * as Os from 'node:os';

import type { Knex } from 'knex';

import { randomBase62 } from '../base62';
import { dialect } from '../db/knex';
import { isUniqueViolation } from '../db/errors';
import { newId } from '../ids';
import { redact } from '../redact';
import { backoffDelay, type BackoffOptions } from './backoff';
import type { DeadJobs, EnqueueOptions, JobContext, JobHandler, JobQueue, JobRecord, JobStatus } from './types';

// Jobs in a table. A worker claims ready jobs (or jobs whose lease expired: their worker died) in one UPDATE,
// holding a lease it renews while the handler runs. On PostgreSQL the claim locks with FOR UPDATE SKIP LOCKED, so
// any number of processes drain one queue and no job runs twice; on SQLite one process runs the jobs.
export interface DatabaseQueueOptions {
    knex: Knex;
    concurrency?: number;
    leaseMs?: number;
    pollMs?: number;
    maxAttempts?: number;
    backoff?: BackoffOptions;
    stopTimeoutMs?: number;
    onError?: (err: unknown) => void;
}

interface Row {
    id: string;
    type: string;
    payload: string;
    status: JobStatus;
    idempotency_key: string | null;
    run_at: string;
    attempts: number | string;
    max_attempts: number | string;
    last_error: string | null;
    lease_owner: string | null;
    lease_expires_at: string | null;
    created_at: string;
    updated_at: string;
    finished_at: string | null;
}

const toRecord = (row: Row): JobRecord => ({
    id: row.id,
    type: row.type,
    payload: JSON.parse(row.payload),
    status: row.status,
    idempotencyKey: row.idempotency_key,
    runAt: row.run_at,
    attempts: Number(row.attempts),
    maxAttempts: Number(row.max_attempts),
    lastError: row.last_error,
    leaseOwner: row.lease_owner,
    leaseExpiresAt: row.lease_expires_at,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    finishedAt: row.finished_at
});

const iso = (ms: number) => new Date(ms).toISOString();

export class DatabaseQueue implements JobQueue {
    readonly backend = 'database' as const;
    readonly owner = `${Os.hostname()}:${process.pid}:${randomBase62(6)}`;

    private readonly knex: Knex;
    private readonly settings: Required<Omit<DatabaseQueueOptions, 'knex' | 'onError'>>;
    private readonly onError: (err: unknown) => void;
    private readonly handlers = new Map<string, JobHandler>();
    private readonly inFlight = new Map<string, { promise: Promise<void>; abort: AbortController }>();
    private running = false;
    private claiming = false;
    private claimInFlight: Promise<void> = Promise.resolve();  // the claim being asked: stop() lets it start its jobs first
    private timer: NodeJS.Timeout | null = null;

    constructor(options: DatabaseQueueOptions) {
        this.knex = options.knex;
        this.onError = options.onError ?? (() => { });
        this.settings = {
            concurrency: options.concurrency ?? 4,
            leaseMs: options.leaseMs ?? 30_000,
            pollMs: options.pollMs ?? 500,
            maxAttempts: options.maxAttempts ?? 5,
            backoff: options.backoff ?? { baseMs: 1_000, maxMs: 10 * 60_000 },
            stopTimeoutMs: options.stopTimeoutMs ?? 10_000
        };
    }

    handle(type: string, handler: JobHandler): void {
        this.handlers.set(type, handler);
    }

    async enqueue(type: string, payload: object, options: EnqueueOptions = {}): Promise<JobRecord> {
        const db = options.trx ?? this.knex;
        const now = Date.now();
        const row = {
            id: newId('job'), type, payload: JSON.stringify(payload), status: 'queued', idempotency_key: options.idempotencyKey ?? null,
            run_at: iso(options.runAt?.getTime() ?? now), attempts: 0, max_attempts: options.maxAttempts ?? this.settings.maxAttempts,
            last_error: null, lease_owner: null, lease_expires_at: null, created_at: iso(now), updated_at: iso(now), finished_at: null
        };

        try {
            // A savepoint, so a duplicate key inside the caller's transaction does not poison it.
            await (options.trx ? options.trx.transaction((sp) => sp('jobs').insert(row)) : db('jobs').insert(row));
        }
        catch (err) {
            if (options.idempotencyKey && isUniqueViolation(err)) {
                const existing = await db<Row>('jobs').where({ idempotency_key: options.idempotencyKey }).first();
                return toRecord(existing!);
            }

            throw err;
        }

        if (!options.trx) {
            this.wake();
        }
        else {
            void options.trx.executionPromise.then(() => this.wake(), () => { });
        }

        return toRecord(row as Row);
    }

    async get(id: string): Promise<JobRecord | undefined> {
        const row = await this.knex<Row>('jobs').where({ id }).first();
        return row ? toRecord(row) : undefined;
    }

    async counts(): Promise<Record<JobStatus, number>> {
        const rows = await this.knex('jobs').select('status').count({ count: '*' }).groupBy('status');
        const counts: Record<JobStatus, number> = { queued: 0, running: 0, succeeded: 0, dead: 0 };
        for (const row of rows as Array<{ status: JobStatus; count: number | string }>) {
            counts[row.status] = Number(row.count);
        }

        return counts;
    }

    async dead(since: string | null, limit: number): Promise<DeadJobs> {
        const query = this.knex<Row>('jobs').where('status', 'dead');
        if (since) {
            query.where('updated_at', '>=', since);
        }

        const total = await query.clone().count({ n: '*' }).first<{ n: number | string }>();
        const rows = await query.orderBy('updated_at', 'desc').limit(limit);
        return { total: Number(total.n), jobs: rows.map(toRecord) };
    }

    start(): void {
        if (!this.running) {
            this.running = true;
            this.wake();
        }
    }

    /** Stops claiming, then waits for running jobs (up to stopTimeoutMs), those of a claim in flight included; an
     * unfinished job is claimed again later. */
    async stop(): Promise<void> {
        this.running = false;
        if (this.timer) {
            clearTimeout(this.timer);
            this.timer = null;
        }

        // Jobs a claim already asked for are leased to this worker: they start, and are waited for with the others,
        // all within the one wait.
        const timeout = new Promise<void>((resolve) => setTimeout(resolve, this.settings.stopTimeoutMs).unref());
        const pending = this.claimInFlight.then(() => Promise.all([...this.inFlight.values()].map((job) => job.promise)));
        await Promise.race([pending, timeout]);
        for (const job of this.inFlight.values()) {
            job.abort.abort(new Error('The queue is stopping'));
        }
    }

    /** The database belongs to the server: nothing more to let go of. */
    close(): Promise<void> {
        return this.stop();
    }

    private wake(): void {
        if (this.running && !this.claiming) {
            setImmediate(() => void this.tick());
        }
    }

    private async tick(): Promise<void> {
        if (!this.running || this.claiming) {
            return;
        }

        this.claiming = true;
        let claimed: Row[] = [];
        const capacity = this.settings.concurrency - this.inFlight.size;
        this.claimInFlight = (async () => {
            try {
                if (capacity > 0) {
                    claimed = await this.claim(capacity);
                    for (const row of claimed) {
                        this.run(toRecord(row));
                    }
                }
            }
            catch (err) {
                this.onError(err);
            }
            finally {
                this.claiming = false;
            }
        })();
        await this.claimInFlight;

        if (this.running) {
            if (this.timer) {
                clearTimeout(this.timer);
            }

            // A full batch means more may be ready: look again at once; otherwise poll.
            const delay = capacity > 0 && claimed.length === capacity ? 0 : this.settings.pollMs;
            this.timer = setTimeout(() => void this.tick(), delay);
        }
    }

    private async claim(limit: number): Promise<Row[]> {
        const now = Date.now();
        const ready = (q: Knex.QueryBuilder) => q
            .where((q2) => void q2.where('status', 'queued').andWhere('run_at', '<=', iso(now)))
            .orWhere((q2) => void q2.where('status', 'running').andWhere('lease_expires_at', '<=', iso(now)));
        const candidates = ready(this.knex('jobs').select('id')).orderBy('run_at').orderBy('id').limit(limit);
        if (dialect(this.knex) === 'postgres') {
            candidates.forUpdate().skipLocked();
        }

        return this.knex('jobs')
            .whereIn('id', candidates)
            .andWhere((q) => void ready(q))
            .update({
                status: 'running', lease_owner: this.owner, lease_expires_at: iso(now + this.settings.leaseMs),
                attempts: this.knex.raw('attempts + 1'), updated_at: iso(now)
            })
            .returning('*');
    }

    private run(job: JobRecord): void {
        const abort = new AbortController();
        const heartbeat = setInterval(() => void this.renew(job, abort), Math.max(10, Math.floor(this.settings.leaseMs / 3)));
        const context: JobContext = { id: job.id, attempt: job.attempts, maxAttempts: job.maxAttempts, signal: abort.signal };
        const promise = (async () => {
            try {
                const handler = this.handlers.get(job.type);
                if (!handler) {
                    throw new Error(`No handler for job type ${job.type}`);
                }

                await handler(job.payload, context);
                clearInterval(heartbeat);
                await this.settle(job, { status: 'succeeded', finished_at: iso(Date.now()), last_error: null });
            }
            catch (err) {
                clearInterval(heartbeat);
                const message = redact(err instanceof Error ? err.message : String(err)).slice(0, 2000);
                const dead = job.attempts >= job.maxAttempts;
                await this.settle(job, dead
                    ? { status: 'dead', finished_at: iso(Date.now()), last_error: message }
                    : { status: 'queued', run_at: iso(Date.now() + backoffDelay(job.attempts, this.settings.backoff)), last_error: message });
            }
        })()
            .catch(this.onError)
            .finally(() => {
                clearInterval(heartbeat);
                this.inFlight.delete(job.id);
                this.wake();
            });

        this.inFlight.set(job.id, { promise, abort });
    }

    /** Extends the lease while the handler runs; a lease taken over by another worker aborts this run. */
    private async renew(job: JobRecord, abort: AbortController): Promise<void> {
        try {
            const renewed = await this.knex('jobs')
                .where({ id: job.id, lease_owner: this.owner, status: 'running' })
                .update({ lease_expires_at: iso(Date.now() + this.settings.leaseMs), updated_at: iso(Date.now()) });
            if (!renewed) {
                abort.abort(new Error('The job\'s lease was lost'));
            }
        }
        catch (err) {
            this.onError(err);
        }
    }

    private async settle(job: JobRecord, fields: Record<string, string | null>): Promise<void> {
        await this.knex('jobs')
            .where({ id: job.id, lease_owner: this.owner, status: 'running' })
            .update({ ...fields, lease_owner: null, lease_expires_at: null, updated_at: iso(Date.now()) });
    }
}
