import Joi from 'joi';

import { kindRef } from '../../../lib/resources/kinds';
import { fields } from '../../../lib/validation';
import { App, AppProcess } from '../models/app';
import { CronRun } from '../../../lib/scheduler/runs';
import { AppCronJob } from '../models/cron-job';

// The path parameters of the apps' own routes, and typed handles on the rows the access pipeline loads for them.
export const APP = kindRef<App>('app');
export const PROCESS = kindRef<AppProcess>('worker-process');
export const CRON_JOB = kindRef<AppCronJob>('app-cron-job');
export const CRON_RUN = kindRef<CronRun>('cron-run');

/** What turns each kind's loaded row into its model, for the access pipeline. */
export const LOADERS = { 'worker-process': AppProcess, 'app-cron-job': AppCronJob, 'cron-run': CronRun };

interface AppParams {
    appName: string;
}

const appName = fields.name().required();
export const params = {
    app: Joi.object<AppParams, true>({ appName }),
    process: Joi.object<AppParams & { workerId: string }, true>({ appName, workerId: fields.id('prc').required() }),
    cronJob: Joi.object<AppParams & { jobId: string }, true>({ appName, jobId: fields.id('crn').required() }),
    cronRun: Joi.object<AppParams & { jobId: string; runId: string }, true>({ appName, jobId: fields.id('crn').required(), runId: fields.id('run').required() })
};
