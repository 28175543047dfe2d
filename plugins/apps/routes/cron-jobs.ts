import Joi from 'joi';

import { resolvedId } from '../../../lib/access';
import { scheduleError } from '../../../lib/cron';
import { respondWithPage } from '../../../lib/list-response';
import type { RouteHandlers } from '../../../lib/route-table';
import type { AppsServices } from '../services';
import { list, logQuery, params, processCommand, processName } from '../schemas';
import { publicCronJob, publicRun } from '../serializers';

const schedule = () => Joi.string().trim().max(120).custom((value: string, helpers) => {
    const problem = scheduleError(value);
    return problem ? helpers.message({ custom: `"schedule" ${problem}` }) : value;
});

type RequestOf = Parameters<RouteHandlers[string]['handler']>[0];

// Cron jobs of an app, their runs and the runs' logs.
export function cronJobRoutes(services: AppsServices): RouteHandlers {
    const { apps, cronJobs } = services;
    const appOf = (request: RequestOf) => apps.get(resolvedId(request, 'app'));
    const jobOf = async (request: RequestOf) => {
        const app = await appOf(request);
        return { app, job: await cronJobs.get(app, resolvedId(request, 'app-cron-job')) };
    };

    return {
        'apps.cronJobs.list': {
            validate: { params: params.app },
            handler: async (request) => {
                const app = await appOf(request);
                return (await cronJobs.list(app)).map((job) => publicCronJob(app, job));
            }
        },
        'apps.cronJobs.get': {
            validate: { params: params.cronJob },
            handler: async (request) => {
                const { app, job } = await jobOf(request);
                return publicCronJob(app, job);
            }
        },
        'apps.cronJobs.create': {
            validate: { params: params.app, payload: Joi.object({ name: processName().required(), schedule: schedule().required(), command: processCommand().required() }) },
            handler: async (request, h) => {
                const app = await appOf(request);
                return h.response(publicCronJob(app, await cronJobs.create(app, request.payload as { name: string; schedule: string; command: string }))).code(201);
            }
        },
        'apps.cronJobs.patch': {
            validate: { params: params.cronJob, payload: Joi.object({ schedule: schedule(), command: processCommand(), status: Joi.string().valid('active', 'paused') }).min(1) },
            handler: async (request) => {
                const app = await appOf(request);
                return publicCronJob(app, await cronJobs.update(app, resolvedId(request, 'app-cron-job'), request.payload as { schedule?: string }));
            }
        },
        'apps.cronJobs.delete': {
            validate: { params: params.cronJob },
            handler: async (request, h) => {
                await cronJobs.remove(await appOf(request), resolvedId(request, 'app-cron-job'));
                return h.response().code(204);
            }
        },
        'apps.cronJobs.runNow': {
            validate: { params: params.cronJob },
            handler: async (request, h) => {
                const app = await appOf(request);
                return h.response(publicRun(await cronJobs.runNow(app, resolvedId(request, 'app-cron-job')))).code(201);
            }
        },
        'apps.cronJobs.runs': {
            validate: { params: params.cronJob, query: list },
            handler: async (request, h) => respondWithPage(request, h, await cronJobs.runs((await jobOf(request)).job, request.query as { limit: number }), publicRun)
        },
        'apps.cronJobs.run': {
            validate: { params: params.cronRun },
            handler: async (request) => publicRun(await cronJobs.getRun((await jobOf(request)).job, resolvedId(request, 'cron-run')))
        },
        'apps.cronJobs.runLogs': {
            validate: { params: params.cronRun, query: logQuery },
            handler: async (request) => {
                const { app, job } = await jobOf(request);
                const run = await cronJobs.getRun(job, resolvedId(request, 'cron-run'));
                const query = request.query as { q?: string; limit: number };
                return services.context.logs.query({ resourceId: app.id, runId: run.id, limit: query.limit, order: 'oldest', ...(query.q ? { q: query.q } : {}) });
            }
        }
    };
}
