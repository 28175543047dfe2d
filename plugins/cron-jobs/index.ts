import Joi from 'joi';

import { respondWithPage } from '../../lib/list-response';
import { listQuery } from '../../lib/pagination';
import { runtimeFamilyPlugin } from '../../lib/resources/family';
import { kindRef } from '../../lib/resources/kinds';
import { logQuery } from '../../lib/resources/logs';
import { route } from '../../lib/route-table';
import { CronRun, publicRun } from '../../lib/scheduler/runs';
import { fields } from '../../lib/validation';
import { CRON_JOB_FIELDS, CRON_JOBS, cronJobsTable } from '../../manifest/routes/cron-jobs';
import { CronJob } from './model';
import { CRON_JOB, cronJobSource, moveSchedule, scheduleColumns } from './schedule';

// The standalone cron jobs family: a runtime kind (lib/resources) whose jobs the platform's one scheduler
// (lib/scheduler) fires, plus what only cron jobs have: a schedule in a time zone, pause and resume, and runs with
// their logs. A run's log lines belong to the cron job, so its `/logs` shows them beside deployment lines.
const JOB = kindRef<CronJob>(CRON_JOB);
const RUN = kindRef<CronRun>('cron-job-run');
const cronJobName = fields.name().required();
const params = Joi.object<{ cronJobName: string }, true>({ cronJobName });
const runParams = Joi.object<{ cronJobName: string; runId: string }, true>({ cronJobName, runId: fields.id('run').required() });

export const cronJobsPlugin = runtimeFamilyPlugin<CronJob, object>({
    name: 'hostless-cron-jobs',
    table: cronJobsTable,
    kind: CRON_JOBS,
    adapter: {
        model: CronJob,
        fields: CRON_JOB_FIELDS,
        columns: (input, { current, services }) => scheduleColumns(input, current, services),
        committed: (_job, services) => services.scheduler.wake(),
        serialize: (job) => ({
            schedule: job.schedule, timeZone: job.timeZone, paused: !!job.paused, nextRunAt: job.nextRunAt, lastRunAt: job.lastRunAt
        }),
        jsonFields: [
            { name: 'schedule', column: 'schedule' }, { name: 'timeZone', column: 'time_zone' }, { name: 'paused', column: 'paused', boolean: true },
            { name: 'nextRunAt', column: 'next_run_at' }, { name: 'lastRunAt', column: 'last_run_at' }
        ],
        logStreams: ['run', 'runtime', 'release']
    },
    loaders: { 'cron-job-run': CronRun },
    register(_server, family) {
        const { services } = family;
        services.scheduler.register(cronJobSource);
        return {
            routes: {
                'cronJobs.pause': route({ params, handler: async (request) => family.serialize(await moveSchedule(services, JOB.of(request), 'paused')) }),
                'cronJobs.resume': route({ params, handler: async (request) => family.serialize(await moveSchedule(services, JOB.of(request), 'active')) }),
                'cronJobs.runs.list': route({
                    params,
                    query: Joi.object<{ limit: number; cursor?: string }, true>(listQuery),
                    handler: async (request, h) => respondWithPage(request, h, await services.scheduler.runs(JOB.of(request).id, request.query), publicRun)
                }),
                'cronJobs.runs.create': route({
                    params,
                    handler: async (request, h) => {
                        const job = JOB.of(request);
                        return h.response(publicRun(await services.scheduler.runNow(CRON_JOB, { id: job.id, resourceId: job.id, projectId: job.projectId }))).code(201);
                    }
                }),
                'cronJobs.runs.get': route({ params: runParams, handler: (request) => publicRun(RUN.of(request)) }),
                'cronJobs.runs.logs': route({
                    params: runParams,
                    query: logQuery,
                    handler: (request) => services.logs.query({ resourceId: JOB.of(request).id, runId: RUN.of(request).id, order: 'oldest' }, request.query)
                })
            }
        };
    }
});
