import * as Boom from '@hapi/boom';

import { DEFAULT_TIME_ZONE } from '../../lib/cron';
import { Deployment, targetOf } from '../../lib/resources/deployments';
import type { KindInput } from '../../lib/resources/family';
import type { RuntimeServices } from '../../lib/resources/services';
import type { ScheduleSource } from '../../lib/scheduler/scheduler';
import { nowIso } from '../../lib/time';
import { CronJob } from './model';

// A standalone cron job's schedule: its columns on create and patch, its state machine (active <-> paused), and what
// the scheduler runs for it: the command of its live deployment's recorded configuration, or, before anything is
// live, its current settings.
export const CRON_JOB = 'cron-job';

export const cronJobSource: ScheduleSource = {
    type: CRON_JOB,
    table: 'cron_jobs',
    active: { paused: false },
    timeZoneColumn: 'time_zone',
    resource: { type: CRON_JOB, column: 'id' },
    async load(db, jobId) {
        const job = await CronJob.query(db).findById(jobId);
        if (!job) {
            return null;
        }

        const live = job.liveDeploymentId ? await Deployment.query(db).findById(job.liveDeploymentId) : undefined;
        const target = targetOf(CRON_JOB, job, live?.config);
        return { target, command: target.startCommand ?? job.startCommand ?? '' };
    }
};

/** The schedule columns of a create (`current` null) or a patch: a new schedule or time zone sets the next due time from now, unless paused. */
export function scheduleColumns(input: KindInput, current: CronJob | null, services: RuntimeServices): Partial<CronJob> {
    const schedule = (input.schedule as string | undefined) ?? current?.schedule;
    const timeZone = (input.timeZone as string | undefined) ?? current?.timeZone ?? DEFAULT_TIME_ZONE;
    const rescheduled = !current || input.schedule !== undefined || input.timeZone !== undefined;
    return {
        ...(input.schedule !== undefined ? { schedule: schedule! } : {}),
        ...(!current || input.timeZone !== undefined ? { timeZone } : {}),
        ...(!current ? { paused: false, lastRunAt: null } : {}),
        ...(rescheduled && !current?.paused ? { nextRunAt: services.scheduler.nextRunAt(schedule!, timeZone) } : {})
    };
}

const state = (job: CronJob) => job.paused ? 'paused' : 'active';

/** Pause or resume, each only from the other state; the move is made only if the state is still the one read. */
export async function moveSchedule(services: RuntimeServices, job: CronJob, to: 'paused' | 'active'): Promise<CronJob> {
    const paused = to === 'paused';
    const moved = await CronJob.query(services.knex)
        .patch({ paused, nextRunAt: paused ? null : services.scheduler.nextRunAt(job.schedule, job.timeZone), updatedAt: nowIso() })
        .where({ id: job.id, paused: !paused });
    const now = await CronJob.query(services.knex).findById(job.id);
    if (!now) {
        throw Boom.notFound('Cron job not found');
    }

    if (!moved) {
        throw Boom.conflict(`Cron job ${job.name} is ${state(now)}: only ${paused ? 'an active cron job can be paused' : 'a paused cron job can be resumed'}`);
    }

    services.scheduler.wake();
    return now;
}
