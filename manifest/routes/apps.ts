import { linkedDatabases } from '../../lib/resources/fields';
import { sharedRows as shared } from '../../lib/resources/rows';
import { runtimeKind } from '../../lib/resources/spec';
import { keyRoute as r, type RouteTable } from '../../lib/route-table';

export const APPS = runtimeKind({
    kind: 'app', family: 'apps', path: '/apps', param: 'appName', table: 'apps', idPrefix: 'app', noun: 'app', plural: 'apps',
    scopes: { read: 'apps:read', write: 'apps:write', delete: 'apps:delete' }, collaborators: true, edge: true, fixture: 'app'
});

/** What an app's body has beyond the shared fields: the databases it links (PATCH only). */
export const APP_FIELDS = { patch: { databases: linkedDatabases } };

const app = { appName: '{app}' };
const cronJob = { ...app, jobId: '{appCronJob}' };
const cronRun = { ...cronJob, runId: '{cronRun}' };
const serviceFile = 'version: 1\napp:\n  name: {app}\n  plan: standard\n  region: eu-west\n  instances: 2\n';

// Apps: the shared runtime rows (settings, environment, domains, collaborators, scaling, deployments, logs,
// metrics), plus what only apps have: review apps, worker processes, cron jobs, traces and service files. An
// example's status other than 2xx is the honest answer without a Git connection (which the Git family's connect
// flow creates); the apps behaviour tests cover those routes against a fake GitHub.
export const appsTable: RouteTable = {
    family: 'apps',
    kinds: [
        ...APPS.kinds,
        { kind: 'worker-process', param: 'workerId', table: 'app_processes', column: 'id', projectColumn: 'project_id', parent: { kind: 'app', column: 'app_id' } },
        { kind: 'app-cron-job', param: 'jobId', table: 'app_cron_jobs', column: 'id', projectColumn: 'project_id', parent: { kind: 'app', column: 'app_id' } },
        { kind: 'cron-run', param: 'runId', table: 'cron_runs', column: 'id', projectColumn: 'project_id', parent: { kind: 'app-cron-job', column: 'job_id' } }
    ],
    fixtures: {
        ...APPS.fixtures,
        process: { route: 'apps.processes.create', params: app, payload: { name: 'queue', command: 'node worker.js' }, value: 'id' },
        appCronJob: { route: 'apps.cronJobs.create', params: app, payload: { name: 'nightly', schedule: '0 3 * * *', command: 'node nightly.js' }, value: 'id' },
        cronRun: { route: 'apps.cronJobs.runNow', params: cronJob, value: 'id' }
    },
    rows: [
        ...shared.crud(APPS, {
            patchExample: { buildCommand: 'npm run build', environmentVariables: { NODE_ENV: 'production' } },
            patchPolicy: { collaboratorFor: { environmentVariables: 'operate' } },
            deleteWhat: 'its deployments, domains, processes, cron jobs and collaborators'
        }),
        ...shared.envVars(APPS),
        ...shared.domains(APPS),
        ...shared.collaborators(APPS),
        ...shared.scale(APPS),
        ...shared.restart(APPS),
        ...shared.search(APPS),
        ...shared.commits(APPS),
        ...shared.deployments(APPS, { stats: true, buildStats: true, postBuildLogs: true }),
        ...shared.logs(APPS),
        ...shared.metrics(APPS, ['request-count', 'response-duration', 'cpu-usage', 'memory-usage']),
        r('apps.upgrade', 'PATCH', '/apps/{appName}/upgrade', 'apps:write', 'Change an app\'s plan.', { example: { setup: ['app'], params: app, payload: { plan: 'standard' } } }),
        r('apps.reviewApps.list', 'GET', '/apps/{appName}/review-apps', 'apps:read', 'Review apps of open pull requests.', { example: { setup: ['app'], params: app } }),
        r('apps.reviewApps.pullRequests', 'GET', '/apps/{appName}/review-apps/pull-requests', 'apps:read', 'Open pull requests of the app\'s repository.', { example: { setup: ['app'], params: app, status: 409 } }),
        r('apps.reviewApps.trigger', 'POST', '/apps/{appName}/review-apps/trigger', 'apps:write', 'Create or redeploy the review app of an open pull request.', { policy: { collaborator: 'deploy' }, example: { setup: ['app'], params: app, payload: { pullRequest: 1 }, status: 409 } }),
        r('apps.reviewApps.extend', 'PATCH', '/apps/{appName}/review-apps/extend', 'apps:write', 'Extend a review app\'s lifetime by `hours`.', { policy: { collaborator: 'deploy' }, example: { setup: ['app'], params: app, payload: { pullRequest: 1, hours: 24 }, status: 404 } }),
        r('apps.processes.list', 'GET', '/apps/{appName}/worker-processes', 'apps:read', 'Worker processes of an app.', { example: { setup: ['app', 'process'], params: app } }),
        r('apps.processes.get', 'GET', '/apps/{appName}/worker-processes/{workerId}', 'apps:read', 'One worker process.', { example: { setup: ['app', 'process'], params: { ...app, workerId: '{process}' } } }),
        r('apps.processes.create', 'POST', '/apps/{appName}/worker-processes', 'apps:write', 'Add a worker process.', { example: { setup: ['app'], params: app, payload: { name: 'queue', command: 'node worker.js' }, status: 201 } }),
        r('apps.processes.patch', 'PATCH', '/apps/{appName}/worker-processes/{workerId}', 'apps:write', 'Change a worker process.', { example: { setup: ['app', 'process'], params: { ...app, workerId: '{process}' }, payload: { instances: 2 } } }),
        r('apps.processes.delete', 'DELETE', '/apps/{appName}/worker-processes/{workerId}', 'apps:delete', 'Remove a worker process.', { example: { setup: ['app', 'process'], params: { ...app, workerId: '{process}' }, status: 204 } }),
        r('apps.cronJobs.list', 'GET', '/apps/{appName}/cron-jobs', 'cron-jobs:read', 'Cron jobs of an app.', { example: { setup: ['app', 'appCronJob'], params: app } }),
        r('apps.cronJobs.get', 'GET', '/apps/{appName}/cron-jobs/{jobId}', 'cron-jobs:read', 'One app cron job.', { example: { setup: ['app', 'appCronJob'], params: cronJob } }),
        r('apps.cronJobs.runs', 'GET', '/apps/{appName}/cron-jobs/{jobId}/runs', 'cron-jobs:read', 'Runs of an app cron job, newest first.', { example: { setup: ['app', 'appCronJob', 'cronRun'], params: cronJob } }),
        r('apps.cronJobs.run', 'GET', '/apps/{appName}/cron-jobs/{jobId}/runs/{runId}', 'cron-jobs:read', 'One run of an app cron job.', { example: { setup: ['app', 'appCronJob', 'cronRun'], params: cronRun } }),
        r('apps.cronJobs.create', 'POST', '/apps/{appName}/cron-jobs', 'cron-jobs:write', 'Add a cron job to an app (five-field schedule, UTC).', { example: { setup: ['app'], params: app, payload: { name: 'nightly', schedule: '0 3 * * *', command: 'node nightly.js' }, status: 201 } }),
        r('apps.cronJobs.patch', 'PATCH', '/apps/{appName}/cron-jobs/{jobId}', 'cron-jobs:write', 'Change, pause or resume an app cron job.', { example: { setup: ['app', 'appCronJob'], params: cronJob, payload: { status: 'paused' } } }),
        r('apps.cronJobs.runNow', 'POST', '/apps/{appName}/cron-jobs/{jobId}/run', 'cron-jobs:write', 'Run an app cron job now.', { policy: { collaborator: 'operate' }, example: { setup: ['app', 'appCronJob'], params: cronJob, status: 201 } }),
        r('apps.cronJobs.delete', 'DELETE', '/apps/{appName}/cron-jobs/{jobId}', 'cron-jobs:delete', 'Delete an app cron job.', { example: { setup: ['app', 'appCronJob'], params: cronJob, status: 204 } }),
        r('apps.cronJobs.runLogs', 'GET', '/apps/{appName}/cron-jobs/{jobId}/runs/{runId}/logs', 'logs:read', 'Log lines of one run of an app cron job, filtered by text, level and time.', { example: { setup: ['app', 'appCronJob', 'cronRun'], params: cronRun } }),
        r('apps.traces', 'GET', '/traces/{appName}', 'traces:read', 'Recorded request spans of an app.', { example: { setup: ['app'], params: app } }),
        r('apps.serviceFile.generate', 'POST', '/apps/{appName}/hostless-file/generate', 'service-file:write', 'Generate a service file from the app\'s current configuration.', { example: { setup: ['app'], params: app, payload: { format: 'yaml' } } }),
        r('apps.serviceFile.update', 'POST', '/apps/{appName}/hostless-file/update', 'service-file:write', 'Validate and store a new version of the app\'s service file.', { example: { setup: ['app'], params: app, payload: { content: serviceFile }, status: 201 } }),
        r('apps.serviceFile.commit', 'POST', '/apps/{appName}/hostless-file/commit', 'service-file:write', 'Commit the service file to the app\'s repository.', { example: { setup: ['app'], params: app, payload: {}, status: 409 } }),
        r('apps.serviceFile.calculateCosts', 'POST', '/apps/{appName}/hostless-file/calculate-costs', 'service-file:write', 'Price the app\'s service file.', { example: { setup: ['app'], params: app, payload: {} } }),
        r('serviceFile.estimate', 'POST', '/estimate-costs', 'service-file:read', 'Price a posted service file without an app.', { example: { payload: { content: serviceFile.replace('{app}', 'estimate') } } }),
        r('projects.apps', 'GET', '/projects/{projectId}/apps', 'projects:read', 'Apps of one project.', { example: { setup: ['app'], params: { projectId: '{project}' } } })
    ]
};
