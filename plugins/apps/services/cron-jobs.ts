import * as Boom from '@hapi/boom';
import type { Knex } from 'knex';

import { nextRun } from '../../../lib/cron';
import { isUniqueViolation } from '../../../lib/db/errors';
import { newId } from '../../../lib/ids';
import type { Page } from '../../../lib/pagination';
import type { JobContext } from '../../../lib/queue/types';
import { targetOf } from '../../../lib/resources/deployments';
import type { RuntimeFamily } from '../../../lib/resources/family';
import type { PageRequest } from '../../../lib/lists';
import { nowIso } from '../../../lib/time';
import { App } from '../models/app';
import { AppCronJob, AppCronRun, type RunStatus } from '../models/cron-job';

// Cron jobs of an app. Each active job has exactly one pending "fire" job on the queue, keyed by the time it is due,
// so a reschedule or a restart never runs a schedule twice; a fire records a run, has the driver run the command,
// and queues the next fire. "Run now" records a manual run the same way. A run under a driver that executes
// nothing (records) ends `recorded` with no exit code: nothing is reported that was not observed.
export const FIRE_JOB = 'app-cron.fire';
export const RUN_JOB = 'app-cron.run';

export interface CronJobInput {
    name: string;
    schedule: string;
    command: string;
}

export interface CronJobPatch {
    schedule?: string;
    command?: string;
    status?: 'active' | 'paused';
}

export class CronJobsService {
    constructor(private readonly family: RuntimeFamily<App>) { }

    private get knex(): Knex {
        return this.family.services.knex;
    }

    async list(app: App): Promise<AppCronJob[]> {
        return await AppCronJob.query(this.knex).where({ app_id: app.id }).orderBy('name');
    }

    async create(app: App, input: CronJobInput): Promise<AppCronJob> {
        const now = nowIso();
        try {
            return await this.knex.transaction(async (trx) => {
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

    async update(job: AppCronJob, input: CronJobPatch): Promise<AppCronJob> {
        return this.knex.transaction(async (trx) => {
            const changed = await AppCronJob.query(trx).patchAndFetchById(job.id, { ...input, updatedAt: nowIso() });
            return this.schedule(trx, changed);
        });
    }

    async remove(job: AppCronJob): Promise<void> {
        await AppCronJob.query(this.knex).deleteById(job.id);
    }

    async runNow(job: AppCronJob): Promise<AppCronRun> {
        return this.knex.transaction(async (trx) => {
            const run = await this.record(trx, job, 'manual', null);
            await this.family.services.queue.enqueue(RUN_JOB, { runId: run.id }, { trx, idempotencyKey: `app-cron-run:${run.id}` });
            return run;
        });
    }

    async runs(job: AppCronJob, page: PageRequest): Promise<Page<AppCronRun>> {
        return this.family.services.lists.page({ table: 'app_cron_runs', scope: { cron_job_id: job.id }, load: (row) => AppCronRun.fromDatabaseJson(row) }, page);
    }

    /** The fire job: runs the schedule that was due, unless the job changed since it was queued. */
    async fire(payload: { cronJobId: string; scheduledFor: string }, context: JobContext): Promise<void> {
        const job = await AppCronJob.query(this.knex).findById(payload.cronJobId);
        if (!job || job.status !== 'active' || job.nextRunAt !== payload.scheduledFor) {
            return;
        }

        const run = await this.knex.transaction(async (trx) => {
            const recorded = await this.record(trx, job, 'schedule', payload.scheduledFor);
            await this.schedule(trx, job, new Date(Math.max(Date.now(), Date.parse(payload.scheduledFor))));
            return recorded;
        });
        await this.execute(run.id, context);
    }

    /** Runs a recorded run through the driver; a run already finished is left alone. */
    async execute(runId: string, context: JobContext): Promise<void> {
        const run = await AppCronRun.query(this.knex).findById(runId);
        const job = run && await AppCronJob.query(this.knex).findById(run.cronJobId);
        const app = job && await App.query(this.knex).findById(job.appId);
        if (!run || !job || !app || !['queued', 'running'].includes(run.status)) {
            return;
        }

        await AppCronRun.query(this.knex).patch({ status: 'running', startedAt: nowIso() }).where({ id: runId });
        const { exitCode } = await this.family.services.driver.run(targetOf('app', app), job.command, this.family.context(app, { runId }, context.signal));
        const status: RunStatus = exitCode === null ? 'recorded' : exitCode === 0 ? 'succeeded' : 'failed';
        await this.knex.transaction(async (trx) => {
            await AppCronRun.query(trx).patch({ status, exitCode, finishedAt: nowIso() }).where({ id: runId });
            await AppCronJob.query(trx).patch({ lastRunAt: nowIso() }).where({ id: job.id });
            // A run the driver did not execute (records) reports nothing: there is no outcome to tell.
            if (status === 'succeeded' || status === 'failed') {
                await this.family.services.events.emit(trx, {
                    type: status === 'succeeded' ? 'cron-run.succeeded' : 'cron-run.failed', projectId: job.projectId,
                    resource: { type: 'app-cron-job', id: job.id, name: `${app.name} / ${job.name}` },
                    data: { runId, trigger: run.trigger, exitCode }
                });
            }
        });
    }

    private async record(trx: Knex.Transaction, job: AppCronJob, trigger: 'schedule' | 'manual', scheduledFor: string | null): Promise<AppCronRun> {
        return AppCronRun.query(trx).insertAndFetch({
            id: newId('run'), cronJobId: job.id, appId: job.appId, projectId: job.projectId, status: 'queued', trigger, driver: this.family.services.driver.name,
            exitCode: null, scheduledFor, startedAt: null, finishedAt: null, createdAt: nowIso()
        });
    }

    /** Sets the next run time and queues its fire (or clears it when paused). */
    private async schedule(trx: Knex.Transaction, job: AppCronJob, after = new Date()): Promise<AppCronJob> {
        if (job.status !== 'active') {
            return AppCronJob.query(trx).patchAndFetchById(job.id, { nextRunAt: null });
        }

        const next = nextRun(job.schedule, after).toISOString();
        await this.family.services.queue.enqueue(FIRE_JOB, { cronJobId: job.id, scheduledFor: next }, { trx, runAt: new Date(next), idempotencyKey: `app-cron:${job.id}:${next}` });
        return AppCronJob.query(trx).patchAndFetchById(job.id, { nextRunAt: next });
    }
}
