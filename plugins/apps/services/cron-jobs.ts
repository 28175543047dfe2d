import * as Boom from '@hapi/boom';
import type { Knex } from 'knex';

import { nextRun } from '../../../lib/cron';
import { isUniqueViolation } from '../../../lib/db/errors';
import { newId } from '../../../lib/ids';
import { pageQuery, toPage, type Page } from '../../../lib/pagination';
import type { JobContext } from '../../../lib/queue/types';
import { nowIso } from '../../../lib/time';
import type { App } from '../models/app';
import { AppCronJob, AppCronRun } from '../models/cron-job';
import { target, type AppsService } from './apps';
import type { AppsContext } from './context';

// Cron jobs of an app. Each active job has exactly one pending "fire" job on the queue, keyed by the time it is due,
// so a reschedule or a restart never runs a schedule twice; a fire records a run, has the driver run the command,
// and queues the next fire. "Run now" records a manual run the same way.
export const FIRE_JOB = 'app-cron.fire';
export const RUN_JOB = 'app-cron.run';

export class CronJobsService {
    constructor(private readonly context: AppsContext, private readonly apps: AppsService) { }

    async list(app: App): Promise<AppCronJob[]> {
        return await AppCronJob.query(this.context.knex).where({ app_id: app.id }).orderBy('name');
    }

    async get(app: App, id: string): Promise<AppCronJob> {
        const job = await AppCronJob.query(this.context.knex).findOne({ id, app_id: app.id });
        if (!job) {
            throw Boom.notFound('App cron job not found');
        }

        return job;
    }

    async create(app: App, input: { name: string; schedule: string; command: string }): Promise<AppCronJob> {
        const now = nowIso();
        try {
            return await this.context.knex.transaction(async (trx) => {
                const job = await AppCronJob.query(trx).insertAndFetch({
                    id: newId('crn'), appId: app.id, projectId: app.projectId, ...input, status: 'active', nextRunAt: null, lastRunAt: null, createdAt: now, updatedAt: now
                });
                return this.schedule(trx, job);
            });
        }
        catch (err) {
            throw isUniqueViolation(err) ? Boom.conflict(`${app.name} already has a cron job named ${input.name}`) : err;
        }
    }

    async update(app: App, id: string, input: { schedule?: string; command?: string; status?: 'active' | 'paused' }): Promise<AppCronJob> {
        await this.get(app, id);
        return this.context.knex.transaction(async (trx) => {
            const job = await AppCronJob.query(trx).patchAndFetchById(id, { ...input, updatedAt: nowIso() });
            return this.schedule(trx, job);
        });
    }

    async remove(app: App, id: string): Promise<void> {
        await this.get(app, id);
        await AppCronJob.query(this.context.knex).deleteById(id);
    }

    async runNow(app: App, id: string): Promise<AppCronRun> {
        const job = await this.get(app, id);
        return this.context.knex.transaction(async (trx) => {
            const run = await this.record(trx, job, 'manual', null);
            await this.context.queue.enqueue(RUN_JOB, { runId: run.id }, { trx, idempotencyKey: `app-cron-run:${run.id}` });
            return run;
        });
    }

    async runs(job: AppCronJob, page: { limit: number; cursor?: string }): Promise<Page<AppCronRun>> {
        return toPage(await pageQuery(AppCronRun.query(this.context.knex).where({ cron_job_id: job.id }), page), page.limit);
    }

    async getRun(job: AppCronJob, runId: string): Promise<AppCronRun> {
        const run = await AppCronRun.query(this.context.knex).findOne({ id: runId, cron_job_id: job.id });
        if (!run) {
            throw Boom.notFound('Cron run not found');
        }

        return run;
    }

    /** The fire job: runs the schedule that was due, unless the job changed since it was queued. */
    async fire(payload: { cronJobId: string; scheduledFor: string }, context: JobContext): Promise<void> {
        const job = await AppCronJob.query(this.context.knex).findById(payload.cronJobId);
        if (!job || job.status !== 'active' || job.nextRunAt !== payload.scheduledFor) {
            return;
        }

        const run = await this.context.knex.transaction(async (trx) => {
            const recorded = await this.record(trx, job, 'schedule', payload.scheduledFor);
            await this.schedule(trx, job, new Date(Math.max(Date.now(), Date.parse(payload.scheduledFor))));
            return recorded;
        });
        await this.execute(run.id, context);
    }

    /** Runs a recorded run through the driver; a run already finished is left alone. */
    async execute(runId: string, context: JobContext): Promise<void> {
        const run = await AppCronRun.query(this.context.knex).findById(runId);
        const job = run && await AppCronJob.query(this.context.knex).findById(run.cronJobId);
        const app = job && await this.apps.get(job.appId).catch(() => null);
        if (!run || !job || !app || run.status === 'succeeded' || run.status === 'failed') {
            return;
        }

        await AppCronRun.query(this.context.knex).patch({ status: 'running', startedAt: nowIso() }).where({ id: runId });
        const { exitCode } = await this.context.driver.run(target(app), job.command, this.apps.logContext(app, { runId }, context.signal));
        await AppCronRun.query(this.context.knex).patch({ status: exitCode === 0 ? 'succeeded' : 'failed', exitCode, finishedAt: nowIso() }).where({ id: runId });
        await AppCronJob.query(this.context.knex).patch({ lastRunAt: nowIso() }).where({ id: job.id });
    }

    private async record(trx: Knex.Transaction, job: AppCronJob, trigger: 'schedule' | 'manual', scheduledFor: string | null): Promise<AppCronRun> {
        return AppCronRun.query(trx).insertAndFetch({
            id: newId('run'), cronJobId: job.id, appId: job.appId, projectId: job.projectId, status: 'queued', trigger, driver: this.context.driver.name,
            exitCode: null, scheduledFor, startedAt: null, finishedAt: null, createdAt: nowIso()
        });
    }

    /** Sets the next run time and queues its fire (or clears it when paused). */
    private async schedule(trx: Knex.Transaction, job: AppCronJob, after = new Date()): Promise<AppCronJob> {
        if (job.status !== 'active') {
            return AppCronJob.query(trx).patchAndFetchById(job.id, { nextRunAt: null });
        }

        const next = nextRun(job.schedule, after).toISOString();
        await this.context.queue.enqueue(FIRE_JOB, { cronJobId: job.id, scheduledFor: next }, { trx, runAt: new Date(next), idempotencyKey: `app-cron:${job.id}:${next}` });
        return AppCronJob.query(trx).patchAndFetchById(job.id, { nextRunAt: next });
    }
}
