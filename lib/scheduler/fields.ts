import Joi from 'joi';

import { canonicalTimeZone, DEFAULT_TIME_ZONE, scheduleError } from '../cron';

// The body fields of scheduled jobs, written once for the apps' cron jobs and the standalone ones (and the MCP
// tools derived from them): a 400 names the field and says what is wrong with it.
export const scheduleField = () => Joi.string().trim().max(120).custom((value: string, helpers) => {
    const problem = scheduleError(value);
    return problem ? helpers.message({ custom: `"schedule" ${problem}` }) : value;
}).description('Five-field cron expression: minute hour day-of-month month day-of-week, e.g. "0 3 * * *" (03:00 every day).');

export const timeZoneField = () => Joi.string().trim().max(64).custom((value: string, helpers) => {
    const zone = canonicalTimeZone(value);
    return zone ?? helpers.message({ custom: '"timeZone" must be an IANA time zone such as Europe/Berlin or UTC' });
}).description(`The IANA time zone the schedule is read in, e.g. "Europe/Berlin" (default ${DEFAULT_TIME_ZONE}).`);
