import type { Knex } from 'knex';

// The job queue, behind one interface: the database backend (database-queue.ts), or BullMQ on Redis when REDIS_URL is
// set (bullmq-queue.ts).
export type JobStatus = 'queued' | 'running' | 'succeeded' | 'dead';

export interface JobRecord {
    id: string;
    type: string;
    payload: unknown;
    status: JobStatus;
    idempotencyKey: string | null;
    runAt: string;
    attempts: number;
    maxAttempts: number;
    lastError: string | null;
    leaseOwner: string | null;
    leaseExpiresAt: string | null;
    createdAt: string;
    updatedAt: string;
    finishedAt: string | null;
}

export interface EnqueueOptions {
    runAt?: Date;
    idempotencyKey?: string;                                    // a second enqueue with the same key returns the first job
    maxAttempts?: number;
    trx?: Knex.Transaction;                                     // enqueue with the change that needs the job, or not at all
}

export interface JobContext {
    id: string;
    attempt: number;
    maxAttempts: number;                                        // a handler may give up cleanly on its last attempt
    signal: AbortSignal;                                        // aborted when the lease is lost or the queue stops
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- each handler names the payload shape its producer enqueues
export type JobHandler = (payload: any, context: JobContext) => Promise<void>;

/** Dead jobs, newest first: how many died (since a time, or ever) and the latest of them. */
export interface DeadJobs {
    total: number;
    jobs: JobRecord[];
}

export interface JobQueue {
    readonly backend: 'database' | 'bullmq';
    handle(type: string, handler: JobHandler): void;
    enqueue(type: string, payload: object, options?: EnqueueOptions): Promise<JobRecord>;
    get(id: string): Promise<JobRecord | undefined>;
    counts(): Promise<Record<JobStatus, number>>;
    dead(since: string | null, limit: number): Promise<DeadJobs>;
    start(): void;
    stop(): Promise<void>;                                      // stops running jobs; enqueue and reads still work
    close(): Promise<void>;                                     // stops, and lets go of what the backend holds (connections)
}
