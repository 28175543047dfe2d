import { CronExpressionParser } from 'cron-parser';

// Five-field cron schedules (minute hour day-of-month month day-of-week), read in an IANA time zone (UTC unless
// given): the due times a schedule produces, and why a schedule or a time zone is refused.
export const DEFAULT_TIME_ZONE = 'UTC';

const parse = (schedule: string, at: Date, timeZone: string) => CronExpressionParser.parse(schedule, { currentDate: at, tz: timeZone });

/** The first due time strictly after `after`. */
export function nextRun(schedule: string, after: Date, timeZone = DEFAULT_TIME_ZONE): Date {
    return parse(schedule, after, timeZone).next().toDate();
}

/** The most recent due time at or before `at`. */
export function latestRun(schedule: string, at: Date, timeZone = DEFAULT_TIME_ZONE): Date {
    return parse(schedule, new Date(at.getTime() + 1), timeZone).prev().toDate();
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

/** The canonical name of an IANA time zone (`europe/berlin` -> `Europe/Berlin`), or null when there is no such zone. */
export function canonicalTimeZone(name: string): string | null {
    if (!/^[A-Za-z][A-Za-z0-9_+\-/]*$/.test(name)) {
        return null;                                            // offsets (`+01:00`) and anything that is not a zone name
    }

    try {
        const zone = new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone;
        nextRun('0 0 * * *', new Date(), zone);                 // the schedule reader knows it too
        return zone;
    }
    catch {
        return null;
    }
}
