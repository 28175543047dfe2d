import { BaseModel } from '../../../lib/db/model';

/** A cron job of an app: its command runs on the app's schedule (UTC); its runs are the scheduler's (lib/scheduler). */
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
