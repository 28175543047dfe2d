import Joi from 'joi';

import { respondWithPage } from '../../../lib/list-response';
import { listQuery } from '../../../lib/pagination';
import { commandField } from '../../../lib/resources/fields';
import type { RuntimeFamily } from '../../../lib/resources/family';
import { logQuery } from '../../../lib/resources/logs';
import { route, type RouteHandlers } from '../../../lib/route-table';
import { scheduleField } from '../../../lib/scheduler/fields';
import { publicRun } from '../../../lib/scheduler/runs';
import { fields } from '../../../lib/validation';
import type { App } from '../models/app';
import type { AppCronJob } from '../models/cron-job';
import type { CronJobInput, CronJobPatch, CronJobsService } from '../services/cron-jobs';
import { APP, CRON_JOB, CRON_RUN, params } from './params';

function publicCronJob(app: App, job: AppCronJob) {
    return {
        id: job.id, appName: app.name, projectId: job.projectId, name: job.name, schedule: job.schedule, command: job.command, status: job.status,
        nextRunAt: job.nextRunAt, lastRunAt: job.lastRunAt, createdAt: job.createdAt, updatedAt: job.updatedAt
    };
}

// Cron jobs of an app, their runs and the runs' logs.
export function cronJobRoutes(family: RuntimeFamily<App>, cronJobs: CronJobsService): RouteHandlers {
    return {
        'apps.cronJobs.list': route({
            params: params.app,
            handler: async (request) => {
                const app = APP.of(request);
                return (await cronJobs.list(app)).map((job) => publicCronJob(app, job));
            }
        }),
        'apps.cronJobs.get': route({ params: params.cronJob, handler: (request) => publicCronJob(APP.of(request), CRON_JOB.of(request)) }),
        'apps.cronJobs.create': route({
            params: params.app,
            payload: Joi.object<CronJobInput, true>({ name: fields.name().required(), schedule: scheduleField().required(), command: commandField().required() }),
            handler: async (request, h) => {
                const app = APP.of(request);
                return h.response(publicCronJob(app, await cronJobs.create(app, request.payload))).code(201);
            }
        }),
        'apps.cronJobs.patch': route({
            params: params.cronJob,
            payload: Joi.object<CronJobPatch, true>({ schedule: scheduleField(), command: commandField(), status: Joi.string().valid('active', 'paused') }).min(1),
            handler: async (request) => publicCronJob(APP.of(request), await cronJobs.update(CRON_JOB.of(request), request.payload))
        }),
        'apps.cronJobs.delete': route({
            params: params.cronJob,
            handler: async (request, h) => {
                await cronJobs.remove(CRON_JOB.of(request));
                return h.response().code(204);
            }
        }),
        'apps.cronJobs.runNow': route({
            params: params.cronJob,
            handler: async (request, h) => h.response(publicRun(await cronJobs.runNow(CRON_JOB.of(request)))).code(201)
        }),
        'apps.cronJobs.runs': route({
            params: params.cronJob,
            query: Joi.object<{ limit: number; cursor?: string }, true>(listQuery),
            handler: async (request, h) => respondWithPage(request, h, await cronJobs.runs(CRON_JOB.of(request), request.query), publicRun)
        }),
        'apps.cronJobs.run': route({ params: params.cronRun, handler: (request) => publicRun(CRON_RUN.of(request)) }),
        'apps.cronJobs.runLogs': route({
            params: params.cronRun,
            query: logQuery,
            handler: (request) => family.services.logs.query({ resourceId: APP.of(request).id, runId: CRON_RUN.of(request).id, order: 'oldest' }, request.query)
        })
    };
}
