import type { Knex } from 'knex';

// The job queue, behind one interface: the database backend now, BullMQ on Redis as a second backend later.
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

export type JobHandler = (payload: any, context: JobContext) => Promise<void>;

export interface JobQueue {
    readonly backend: 'database' | 'bullmq';
    handle(type: string, handler: JobHandler): void;
    enqueue(type: string, payload: object, options?: EnqueueOptions): Promise<JobRecord>;
    get(id: string): Promise<JobRecord | undefined>;
    counts(): Promise<Record<JobStatus, number>>;
    start(): void;
    stop(): Promise<void>;
}
