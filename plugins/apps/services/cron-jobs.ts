import * as Boom from '@hapi/boom';
import type { Knex } from 'knex';

import { isUniqueViolation } from '../../../lib/db/errors';
import { newId } from '../../../lib/ids';
import type { PageRequest } from '../../../lib/lists';
import type { Page } from '../../../lib/pagination';
import { targetOf } from '../../../lib/resources/deployments';
import type { RuntimeFamily } from '../../../lib/resources/family';
import type { CronRun } from '../../../lib/scheduler/runs';
import type { Scheduler, ScheduleSource } from '../../../lib/scheduler/scheduler';
import { nowIso } from '../../../lib/time';
import { App } from '../models/app';
import { AppCronJob } from '../models/cron-job';

// Cron jobs of an app, on the platform's one scheduler (lib/scheduler): an active job's `next_run_at` is its next due
// time (UTC), which the scheduler claims once and runs through the runtime driver; a paused job has none. "Run now"
// queues a manual run the same way. A run under a driver that executes nothing (records) ends `recorded` with no exit
// code: nothing is reported that was not observed.
export const APP_CRON_JOB = 'app-cron-job';

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

/** What the scheduler needs to know about the apps' cron jobs: where they are, and what a run executes. */
export const appCronSource: ScheduleSource = {
    type: APP_CRON_JOB,
    table: 'app_cron_jobs',
    active: { status: 'active' },
    resource: { type: 'app', column: 'app_id' },
    async load(db, jobId) {
        const job = await AppCronJob.query(db).findById(jobId);
        const app = job && await App.query(db).findById(job.appId);
        return job && app ? { target: targetOf('app', app), command: job.command, label: `${app.name} / ${job.name}` } : null;
    }
};

const refOfJob = (job: { id: string; name: string; projectId: string }) => ({ type: APP_CRON_JOB, id: job.id, projectId: job.projectId, name: job.name });

// Each cron job's allocation is recorded for billing (lib/resources/allocation.ts): it counts while it is active.
export class CronJobsService {
    constructor(private readonly family: RuntimeFamily<App>) { }

    private get knex(): Knex {
        return this.family.services.knex;
    }

    private get scheduler(): Scheduler {
        return this.family.services.scheduler;
    }

    async list(app: App): Promise<AppCronJob[]> {
        return await AppCronJob.query(this.knex).where({ app_id: app.id }).orderBy('name');
    }

    async create(app: App, input: CronJobInput): Promise<AppCronJob> {
        const now = nowIso();
        try {
            const job = await this.knex.transaction(async (trx) => {
                const created = await AppCronJob.query(trx).insertAndFetch({
                    id: newId('crn'), appId: app.id, projectId: app.projectId, ...input, status: 'active', nextRunAt: this.scheduler.nextRunAt(input.schedule),
                    lastRunAt: null, createdAt: now, updatedAt: now
                });
                await this.family.services.allocation.record(trx, refOfJob(created), 'created', { running: true, instances: 1, plan: null });
                return created;
            });
            this.scheduler.wake();
            return job;
        }
        catch (err) {
            throw isUniqueViolation(err) ? Boom.conflict(`${app.name} already has a cron job named ${input.name}`) : err;
        }
    }

    /** A changed schedule or a resume sets the next due time from now; a pause clears it. */
    async update(job: AppCronJob, input: CronJobPatch): Promise<AppCronJob> {
        const status = input.status ?? job.status;
        const schedule = input.schedule ?? job.schedule;
        const rescheduled = input.schedule !== undefined || input.status !== undefined;
        const changed = await this.knex.transaction(async (trx) => {
            const patched = await AppCronJob.query(trx).patchAndFetchById(job.id, {
                ...input, ...(rescheduled ? { nextRunAt: status === 'active' ? this.scheduler.nextRunAt(schedule) : null } : {}), updatedAt: nowIso()
            });
            if (status !== job.status) {
                await this.family.services.allocation.record(trx, refOfJob(job), status === 'active' ? 'started' : 'stopped', { running: status === 'active' });
            }

            return patched;
        });
        this.scheduler.wake();
        return changed;
    }

    async remove(job: AppCronJob): Promise<void> {
        await this.knex.transaction(async (trx) => {
            await trx('cron_runs').where({ job_type: APP_CRON_JOB, job_id: job.id }).delete();
            await AppCronJob.query(trx).deleteById(job.id);
            await this.family.services.allocation.record(trx, refOfJob(job), 'deleted', { running: false, instances: 0 });
        });
    }

    /** The app is being deleted: its cron jobs end with it, in its transaction. */
    async appRemoved(trx: Knex.Transaction, app: App): Promise<void> {
        for (const job of await AppCronJob.query(trx).where({ app_id: app.id })) {
            await this.family.services.allocation.record(trx, refOfJob(job), 'deleted', { running: false, instances: 0 });
        }
    }

    async runNow(job: AppCronJob): Promise<CronRun> {
        return this.scheduler.runNow(APP_CRON_JOB, { id: job.id, resourceId: job.appId, projectId: job.projectId });
    }

    async runs(job: AppCronJob, page: PageRequest): Promise<Page<CronRun>> {
        return this.scheduler.runs(job.id, page);
    }
}
