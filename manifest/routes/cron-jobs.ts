import type Joi from 'joi';

import { commandField } from '../../lib/resources/fields';
import { sharedRows as shared } from '../../lib/resources/rows';
import { runtimeKind } from '../../lib/resources/spec';
import { keyRoute as r, type RouteTable } from '../../lib/route-table';
import { scheduleField, timeZoneField } from '../../lib/scheduler/fields';

export const CRON_JOBS = runtimeKind({
    kind: 'cron-job', family: 'cronJobs', path: '/cron-jobs', param: 'cronJobName', table: 'cron_jobs', idPrefix: 'crn', noun: 'cron job', plural: 'cron jobs',
    scopes: { read: 'cron-jobs:read', write: 'cron-jobs:write', delete: 'cron-jobs:delete' }, fixture: 'cronJob',
    createFields: { schedule: '0 3 * * *', timeZone: 'Europe/Berlin', startCommand: 'node report.js' }
});

const command = () => commandField().description('The command each run executes, e.g. "node jobs/report.js" (a changed one takes effect with the next deployment once one is live).');

/** A cron job's own body fields beside the shared ones: the REST routes validate with them, the MCP tools derive from them. */
export const CRON_JOB_FIELDS: { create: Joi.PartialSchemaMap; patch: Joi.PartialSchemaMap } = {
    create: { schedule: scheduleField().required(), timeZone: timeZoneField(), startCommand: command().required() },
    patch: { schedule: scheduleField(), timeZone: timeZoneField(), startCommand: command() }
};

const job = { cronJobName: '{cronJob}' };
const run = { ...job, runId: '{cronJobRun}' };

// Standalone cron jobs: a runtime kind (settings, environment, search, commits, deployments, logs, CPU and memory
// come from the shared rows) with a schedule in a time zone, pause and resume, and runs claimed by the platform's
// scheduler (lib/scheduler), each with its logs. `POST .../runs` (run now) goes beyond the spec's table, as the
// apps' cron jobs have it; the generated tests make runs with it.
export const cronJobsTable: RouteTable = {
    family: 'cron-jobs',
    kinds: [
        ...CRON_JOBS.kinds,
        { kind: 'cron-job-run', param: 'runId', table: 'cron_runs', column: 'id', projectColumn: 'project_id', parent: { kind: 'cron-job', column: 'job_id' }, label: 'Run' }
    ],
    fixtures: {
        ...CRON_JOBS.fixtures,
        cronJobPaused: { route: 'cronJobs.pause', params: job, value: 'name' },
        cronJobRun: { route: 'cronJobs.runs.create', params: job, value: 'id' }
    },
    rows: [
        ...shared.crud(CRON_JOBS, {
            patchExample: { schedule: '30 4 * * 1-5', timeZone: 'America/New_York', environmentVariables: { REPORT_TO: 'ops@example.com' } },
            deleteWhat: 'its runs, deployments and logs'
        }),
        r('cronJobs.pause', 'POST', '/cron-jobs/{cronJobName}/pause', 'cron-jobs:write', 'Stop scheduling runs (409 when already paused).', { example: { setup: ['cronJob'], params: job } }),
        r('cronJobs.resume', 'POST', '/cron-jobs/{cronJobName}/resume', 'cron-jobs:write', 'Schedule runs again from now on, without catching up on the paused time (409 when active).', {
            example: { setup: ['cronJob', 'cronJobPaused'], params: { cronJobName: '{cronJobPaused}' } }
        }),
        r('cronJobs.runs.list', 'GET', '/cron-jobs/{cronJobName}/runs', 'cron-jobs:read', 'Runs of a cron job, newest first.', { example: { setup: ['cronJob', 'cronJobRun'], params: job } }),
        r('cronJobs.runs.create', 'POST', '/cron-jobs/{cronJobName}/runs', 'cron-jobs:write', 'Run a cron job now, whatever its schedule (a paused one too).', { example: { setup: ['cronJob'], params: job, status: 201 } }),
        r('cronJobs.runs.get', 'GET', '/cron-jobs/{cronJobName}/runs/{runId}', 'cron-jobs:read', 'One run of a cron job.', { example: { setup: ['cronJob', 'cronJobRun'], params: run } }),
        r('cronJobs.runs.logs', 'GET', '/cron-jobs/{cronJobName}/runs/{runId}/logs', 'logs:read', 'Log lines of one run, oldest first, filtered by text, level and time.', { example: { setup: ['cronJob', 'cronJobRun'], params: run } }),
        ...shared.envVars(CRON_JOBS),
        ...shared.search(CRON_JOBS),
        ...shared.commits(CRON_JOBS),
        ...shared.deployments(CRON_JOBS),
        ...shared.logs(CRON_JOBS),
        ...shared.metrics(CRON_JOBS, ['cpu-usage', 'memory-usage'])
    ]
};
