import type { Knex } from 'knex';

import { DEFAULT_TIME_ZONE, latestRun, nextRun } from '../cron';
import { isUniqueViolation } from '../db/errors';
import type { PlatformEvents } from '../events';
import { newId } from '../ids';
import type { Lists, PageRequest } from '../lists';
import type { Page } from '../pagination';
import type { JobContext, JobQueue } from '../queue/types';
import type { LogStore } from '../resources/logs';
import type { DriverContext, DriverTarget, RuntimeDriver } from '../runtime/driver';
import { systemClock, type Clock } from './clock';
import { CronRun, type RunStatus, type RunTrigger } from './runs';

// One scheduler for every scheduled job (standalone cron jobs, the apps' cron jobs): each kind registers a source
// (the table holding its jobs and what a run of one executes), and every server process that runs background work
// ticks. A tick reads the jobs whose `next_run_at` has come and claims each due time in one transaction: it inserts
// the run, whose unique key on (job_id, scheduled_for) makes any second claim of the same due time fail, moves
// `next_run_at` on only if it is still the one read (so a pause, an edit or another process's claim wins cleanly),
// and queues the run's execution on the job queue. No process's timer decides anything: timers only wake ticks.
// After downtime, the due times that passed while no scheduler ran produce one catch-up run per job, for the most
// recent of them; the others are skipped (docs/cron-jobs.md). Every time it reads comes from the injected clock.
export const RUN_JOB = 'cron.run';

export interface RunWork {
    target: DriverTarget;
    command: string;
    label?: string;                                             // what events call the job (default: the target's name)
}

export interface ScheduleSource {
    type: string;                                               // cron_runs.job_type: `cron-job`, `app-cron-job`
    table: string;                                              // its jobs: id, project_id, schedule, next_run_at, last_run_at
    active: Readonly<Record<string, unknown>>;                  // the columns of a job that may fire: `{ paused: false }`
    timeZoneColumn?: string;                                    // where a job's time zone is (default: every job in UTC)
    resource: { type: string; column: string };                 // the resource its runs' log lines belong to
    /** What a run of the job executes, read when it runs; null when the job is gone. */
    load(db: Knex, jobId: string): Promise<RunWork | null>;
}

export interface SchedulerOptions {
    knex: Knex;
    queue: JobQueue;
    driver: RuntimeDriver;
    logs: LogStore;
    lists: Lists;
    clock?: Clock;
    batch?: number;                                             // due jobs claimed per source per read (default 100)
    pollMs?: number;                                            // the longest a running scheduler waits between ticks (default 5 s)
    onError?: (err: unknown) => void;
    events?: PlatformEvents;                                    // told of each run's outcome (cron-run.succeeded, cron-run.failed)
}

/** A job as a tick reads it. */
interface DueJob {
    id: string;
    project_id: string;
    resource_id: string;
    schedule: string;
    time_zone: string | null;
    next_run_at: string;
}

/** The job a run belongs to, for a manual run. */
export interface ScheduledJob {
    id: string;
    resourceId: string;
    projectId: string;
}

class LostClaim extends Error { }

const CATCH_UP_STEPS = 1000;

/**
 * The most recent due time at or before `now`, walking forward from the recorded one as the schedule produces them,
 * and how many earlier ones it skips (null: over CATCH_UP_STEPS, after which the walk jumps to the latest).
 */
function latestDue(schedule: string, zone: string, due: Date, now: Date): { latest: Date; skipped: number | null } {
    let latest = due;
    for (let skipped = 0; skipped < CATCH_UP_STEPS; ++skipped) {
        const next = nextRun(schedule, latest, zone);
        if (next > now) {
            return { latest, skipped };
        }

        latest = next;
    }

    const jumped = latestRun(schedule, now, zone);
    return { latest: jumped > latest ? jumped : latest, skipped: null };
}

export class Scheduler {
    readonly clock: Clock;
    private readonly sources = new Map<string, ScheduleSource>();
    private readonly batch: number;
    private readonly pollMs: number;
    private readonly onError: (err: unknown) => void;
    private running = false;
    private timer: NodeJS.Timeout | null = null;
    private loop: Promise<void> | null = null;
    private again = false;

    constructor(private readonly options: SchedulerOptions) {
        this.clock = options.clock ?? systemClock;
        this.batch = options.batch ?? 100;
        this.pollMs = options.pollMs ?? 5_000;
        this.onError = options.onError ?? (() => { });
    }

    register(source: ScheduleSource): void {
        if (this.sources.has(source.type)) {
            throw new Error(`A schedule source for ${source.type} is registered twice`);
        }

        this.sources.set(source.type, source);
    }

    /** The first due time of a schedule after now (the clock's), as stored in `next_run_at`. */
    nextRunAt(schedule: string, timeZone = DEFAULT_TIME_ZONE): string {
        return nextRun(schedule, this.clock.now(), timeZone).toISOString();
    }

    /** Claims every due time that has come, once each, whichever processes tick; answers how many runs this tick claimed. */
    async tick(): Promise<number> {
        const now = this.clock.now();
        let claimed = 0;
        for (const source of this.sources.values()) {
            for (let pass = 0; pass < 10; ++pass) {
                const due = await this.due(source, now);
                for (const job of due) {
                    claimed += await this.claim(source, job, now) ? 1 : 0;
                }

                if (due.length < this.batch) {
                    break;
                }
            }
        }

        return claimed;
    }

    /** A run asked for now, whatever the schedule (a paused job included): queued like a scheduled one. */
    async runNow(type: string, job: ScheduledJob, trx?: Knex.Transaction): Promise<CronRun> {
        const source = this.source(type);
        const record = async (db: Knex.Transaction) => {
            const run = await CronRun.query(db).insertAndFetch(this.newRun(source, job, 'manual', null));
            await this.options.queue.enqueue(RUN_JOB, { runId: run.id }, { trx: db, idempotencyKey: `cron-run:${run.id}` });
            return run;
        };

        return trx ? record(trx) : this.options.knex.transaction(record);
    }

    async runs(jobId: string, page: PageRequest): Promise<Page<CronRun>> {
        return this.options.lists.page({ table: 'cron_runs', scope: { job_id: jobId }, load: (row) => CronRun.fromDatabaseJson(row) }, page);
    }

    /** The queue job: runs a claimed run through the driver; a run already finished is left alone. */
    async execute(runId: string, job: JobContext): Promise<void> {
        const { knex, driver } = this.options;
        const run = await CronRun.query(knex).findById(runId);
        if (!run || !['queued', 'running'].includes(run.status)) {
            return;
        }

        const source = this.sources.get(run.jobType);
        const work = source ? await source.load(knex, run.jobId) : null;
        const context = this.context(run, job.signal);
        if (!source || !work) {
            await context.log('run', 'error', 'The job was removed before its run started: nothing was run');
            await this.finish(run, 'failed', null);
            return;
        }

        await CronRun.query(knex).patch({ status: 'running', startedAt: this.clock.now().toISOString() }).where({ id: runId });
        let exitCode: number | null;
        try {
            ({ exitCode } = await driver.run(work.target, work.command, context));
        }
        catch (err) {
            if (job.attempt < job.maxAttempts) {
                throw err;
            }

            await context.log('run', 'error', 'The platform could not complete the run; it was retried and gave up');
            await this.finish(run, 'failed', null);
            return;
        }

        const status: RunStatus = exitCode === null ? 'recorded' : exitCode === 0 ? 'succeeded' : 'failed';
        await knex.transaction(async (trx) => {
            const finishedAt = await this.finish(run, status, exitCode, trx);
            await trx(source.table).where({ id: run.jobId }).update({ last_run_at: finishedAt });
            // A run the driver did not execute (records) has no outcome to tell.
            if (status !== 'recorded' && this.options.events) {
                await this.options.events.emit(trx, {
                    type: status === 'succeeded' ? 'cron-run.succeeded' : 'cron-run.failed', projectId: run.projectId,
                    resource: { type: source.type, id: run.jobId, name: work.label ?? work.target.name },
                    data: { runId: run.id, trigger: run.trigger, exitCode }
                });
            }
        });
    }

    get started(): boolean {
        return this.running;
    }

    /** Ticks until stopped: at once, then when the earliest due time comes, and at least every pollMs (jobs other processes change). */
    start(): void {
        if (!this.running) {
            this.running = true;
            this.wake();
        }
    }

    /** Looks again at once (a job's next run changed here). */
    wake(): void {
        if (!this.running) {
            return;
        }

        if (this.loop) {
            this.again = true;
            return;
        }

        this.after(0);
    }

    async stop(): Promise<void> {
        this.running = false;
        if (this.timer) {
            clearTimeout(this.timer);
            this.timer = null;
        }

        await this.loop;
    }

    private after(delay: number): void {
        if (this.timer) {
            clearTimeout(this.timer);
        }

        this.timer = setTimeout(() => {
            this.timer = null;
            this.loop = this.round().finally(() => {
                this.loop = null;
            });
        }, delay);
        this.timer.unref();
    }

    private async round(): Promise<void> {
        this.again = false;
        let delay = this.pollMs;
        try {
            await this.tick();
            const earliest = await this.earliest();
            if (earliest) {
                delay = Math.min(this.pollMs, Math.max(250, Date.parse(earliest) - this.clock.now().getTime()));
            }
        }
        catch (err) {
            this.onError(err);
        }

        if (this.running) {
            this.after(this.again ? 0 : delay);
        }
    }

    private async earliest(): Promise<string | null> {
        let earliest: string | null = null;
        for (const source of this.sources.values()) {
            const row = await this.options.knex(source.table).min({ at: 'next_run_at' }).where(source.active).first() as { at: string | null } | undefined;
            if (row?.at && (!earliest || row.at < earliest)) {
                earliest = row.at;
            }
        }

        return earliest;
    }

    private async due(source: ScheduleSource, now: Date): Promise<DueJob[]> {
        return this.options.knex(source.table)
            .select({
                id: 'id', project_id: 'project_id', resource_id: source.resource.column, schedule: 'schedule', next_run_at: 'next_run_at',
                time_zone: source.timeZoneColumn ?? this.options.knex.raw('NULL')
            })
            .where('next_run_at', '<=', now.toISOString()).where(source.active)
            .orderBy('next_run_at').limit(this.batch);
    }

    /** One due time of one job, claimed at most once on the platform: true when this call claimed it. */
    private async claim(source: ScheduleSource, job: DueJob, now: Date): Promise<boolean> {
        const zone = job.time_zone ?? DEFAULT_TIME_ZONE;
        let missed: { latest: Date; skipped: number | null };
        let following: string;
        try {
            missed = latestDue(job.schedule, zone, new Date(job.next_run_at), now);
            following = nextRun(job.schedule, missed.latest, zone).toISOString();
        }
        catch (err) {
            this.onError(new Error(`The schedule of ${source.type} ${job.id} cannot be read: ${(err as Error).message}`));
            return false;
        }

        const scheduledFor = missed.latest.toISOString();
        const trigger: RunTrigger = missed.skipped === 0 ? 'schedule' : 'catch-up';
        const run = this.newRun(source, { id: job.id, resourceId: job.resource_id, projectId: job.project_id }, trigger, scheduledFor);
        try {
            return await this.options.knex.transaction(async (trx) => {
                const inserted = await this.insertOnce(trx, run);
                const moved = await trx(source.table).where({ id: job.id, next_run_at: job.next_run_at }).where(source.active).update({ next_run_at: following });
                if (!moved) {
                    throw new LostClaim();                      // paused, edited, deleted or claimed meanwhile: undo the insert
                }

                if (inserted && trigger === 'catch-up') {
                    const skipped = missed.skipped === null ? 'Over a thousand' : `${missed.skipped}`;
                    await this.options.logs.write(trx, this.line(run, 'info', `Catch-up run for ${scheduledFor} (${job.schedule}, ${zone}): ${skipped} earlier due time(s) from ` +
                        `${job.next_run_at} on passed while no scheduler ran and were skipped; only the latest runs`));
                }

                if (inserted) {
                    await this.options.queue.enqueue(RUN_JOB, { runId: run.id }, { trx, idempotencyKey: `cron-run:${run.id}` });
                }

                return inserted;
            });
        }
        catch (err) {
            if (err instanceof LostClaim) {
                return false;
            }

            throw err;
        }
    }

    /** The run's insert in a savepoint, so a second claim's unique violation leaves the transaction usable. */
    private async insertOnce(trx: Knex.Transaction, run: ReturnType<Scheduler['newRun']>): Promise<boolean> {
        try {
            await trx.transaction(async (savepoint) => {
                await CronRun.query(savepoint).insert(run);
            });
            return true;
        }
        catch (err) {
            if (isUniqueViolation(err)) {
                return false;
            }

            throw err;
        }
    }

    private newRun(source: ScheduleSource, job: ScheduledJob, trigger: RunTrigger, scheduledFor: string | null) {
        return {
            id: newId('run'), jobType: source.type, jobId: job.id, resourceType: source.resource.type, resourceId: job.resourceId, projectId: job.projectId,
            status: 'queued' as RunStatus, trigger, driver: this.options.driver.name, exitCode: null, scheduledFor,
            startedAt: null, finishedAt: null, createdAt: this.clock.now().toISOString()
        };
    }

    private async finish(run: CronRun, status: RunStatus, exitCode: number | null, db: Knex = this.options.knex): Promise<string> {
        const finishedAt = this.clock.now().toISOString();
        await CronRun.query(db).patch({ status, exitCode, finishedAt }).where({ id: run.id });
        return finishedAt;
    }

    private line(run: Pick<CronRun, 'id' | 'resourceType' | 'resourceId' | 'projectId'>, level: 'info' | 'error', message: string) {
        return {
            resourceType: run.resourceType, resourceId: run.resourceId, projectId: run.projectId, runId: run.id, stream: 'run' as const, level, message,
            timestamp: this.clock.now().toISOString()
        };
    }

    /** A driver context whose log lines belong to the run and its resource. */
    private context(run: CronRun, signal: AbortSignal): DriverContext {
        return {
            signal,
            log: (stream, level, message) => this.options.logs.write(this.options.knex, {
                resourceType: run.resourceType, resourceId: run.resourceId, projectId: run.projectId, runId: run.id, stream, level, message,
                timestamp: this.clock.now().toISOString()
            })
        };
    }

    private source(type: string): ScheduleSource {
        const source = this.sources.get(type);
        if (!source) {
            throw new Error(`No schedule source is registered for ${type}`);
        }

        return source;
    }
}
