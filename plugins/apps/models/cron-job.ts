import { BaseModel } from '../../../lib/db/model';

/** `recorded`: the runtime driver ran nothing (records), so there is no exit code to report. */
export type RunStatus = 'queued' | 'running' | 'succeeded' | 'failed' | 'recorded';

export class AppCronJob extends BaseModel {
    static override tableName = 'app_cron_jobs';

    id!: string;
    appId!: string;
    projectId!: string;
    name!: string;
    schedule!: string;
    command!: string;
    status!: 'active' | 'paused';
    nextRunAt!: string | null;
    lastRunAt!: string | null;
    createdAt!: string;
    updatedAt!: string;
}

export class AppCronRun extends BaseModel {
    static override tableName = 'app_cron_runs';

    id!: string;
    cronJobId!: string;
    appId!: string;
    projectId!: string;
    status!: RunStatus;
    trigger!: 'schedule' | 'manual';
    driver!: string;
    exitCode!: number | null;
    scheduledFor!: string | null;
    startedAt!: string | null;
    finishedAt!: string | null;
    createdAt!: string;
}
