import { BaseModel } from '../db/model';

/** `recorded`: the runtime driver executed nothing (records), so there is no exit code to report. */
export type RunStatus = 'queued' | 'running' | 'succeeded' | 'failed' | 'recorded';
export const RUN_STATUSES: readonly RunStatus[] = ['queued', 'running', 'succeeded', 'failed', 'recorded'];

/** `schedule`: its due time came; `catch-up`: the one run for due times that passed while no scheduler ran; `manual`: asked for. */
export type RunTrigger = 'schedule' | 'catch-up' | 'manual';

// One run of a scheduled job, of whichever kind (a standalone cron job, an app's cron job): `resourceType` and
// `resourceId` name the resource its log lines belong to, `jobType` the source that knows what it executes.
export class CronRun extends BaseModel {
    static override tableName = 'cron_runs';

    id!: string;
    jobType!: string;
    jobId!: string;
    resourceType!: string;
    resourceId!: string;
    projectId!: string;
    status!: RunStatus;
    trigger!: RunTrigger;
    driver!: string;
    exitCode!: number | null;
    scheduledFor!: string | null;
    startedAt!: string | null;
    finishedAt!: string | null;
    createdAt!: string;
}

/** A run as the API shows it. */
export function publicRun(run: CronRun) {
    return {
        id: run.id,
        cronJobId: run.jobId,
        status: run.status,
        trigger: run.trigger,
        driver: run.driver,
        exitCode: run.exitCode,
        scheduledFor: run.scheduledFor,
        startedAt: run.startedAt,
        finishedAt: run.finishedAt,
        durationMs: run.startedAt && run.finishedAt ? Date.parse(run.finishedAt) - Date.parse(run.startedAt) : null,
        createdAt: run.createdAt
    };
}
