import { CronExpressionParser } from 'cron-parser';

// Five-field cron schedules (minute hour day month weekday), evaluated in UTC.
export function nextRun(schedule: string, after: Date): Date {
    return CronExpressionParser.parse(schedule, { currentDate: after, tz: 'UTC' }).next().toDate();
}

/** Null when the schedule is valid, else why not (never echoing more than the schedule itself). */
export function scheduleError(schedule: string): string | null {
    if (schedule.trim().split(/\s+/).length !== 5) {
        return 'must have five fields: minute hour day-of-month month day-of-week';
    }

    try {
        nextRun(schedule, new Date());
        return null;
    }
    catch {
        return 'is not a valid cron expression';
    }
}
