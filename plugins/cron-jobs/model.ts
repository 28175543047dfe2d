import { RuntimeResource } from '../../lib/resources/model';

/** A standalone cron job: a runtime resource with a schedule read in a time zone; `nextRunAt` is null while paused. */
export class CronJob extends RuntimeResource {
    static override tableName = 'cron_jobs';

    schedule!: string;
    timeZone!: string;
    paused!: boolean | number;
    nextRunAt!: string | null;
    lastRunAt!: string | null;
}
