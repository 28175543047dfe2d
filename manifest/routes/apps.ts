import { keyRoute as r, type RouteTable } from '../../lib/route-table';

const list = { policy: { project: 'query' as const } };
const app = { appName: '{app}' };
const deployment = { ...app, deploymentId: '{deployment}' };
const cronJob = { ...app, jobId: '{appCronJob}' };
const cronRun = { ...cronJob, runId: '{cronRun}' };
const serviceFile = 'version: 1\napp:\n  name: {app}\n  plan: standard\n  region: eu-west\n  instances: 2\n';

// Apps: settings, domains, collaborators, review apps, worker processes, cron jobs, deployments, logs, metrics,
// traces and service files. An example's status other than 2xx is the honest answer without a Git connection
// (which the Git family's connect flow creates); the apps behaviour tests cover those routes against a fake GitHub.
export const appsTable: RouteTable = {
    family: 'apps',
    rows: [
        r('apps.list', 'GET', '/apps', 'apps:read', 'Apps the caller can reach; `?projectId=` narrows to one project.', { ...list, example: { setup: ['app'] } }),
        r('apps.get', 'GET', '/apps/{appName}', 'apps:read', 'One app.', { example: { setup: ['app'], params: app } }),
        r('apps.search', 'GET', '/apps/{appName}/search', 'apps:read', 'Search an app\'s deployments, logs and environment variable names.', { example: { setup: ['app'], params: app, query: { q: 'deploy' } } }),
        r('apps.envVars.get', 'GET', '/apps/{appName}/environment-variables', 'apps:read', 'An app\'s environment variables (values only to those allowed to see secrets).', { example: { setup: ['app'], params: app } }),
        r('apps.domains.list', 'GET', '/apps/{appName}/custom-domains', 'apps:read', 'Custom domains with their verification status.', { example: { setup: ['app', 'domain'], params: app } }),
        r('apps.commits.list', 'GET', '/apps/{appName}/commits', 'apps:read', 'Recent commits of the app\'s repository branch.', { example: { setup: ['app'], params: app, status: 409 } }),
        r('apps.collaborators.list', 'GET', '/apps/{appName}/collaborators', 'apps:read', 'Users outside the project granted this app.', { example: { setup: ['app', 'collaborator'], params: app } }),
        r('apps.reviewApps.list', 'GET', '/apps/{appName}/review-apps', 'apps:read', 'Review apps of open pull requests.', { example: { setup: ['app'], params: app } }),
        r('apps.reviewApps.pullRequests', 'GET', '/apps/{appName}/review-apps/pull-requests', 'apps:read', 'Open pull requests of the app\'s repository.', { example: { setup: ['app'], params: app, status: 409 } }),
        r('apps.processes.list', 'GET', '/apps/{appName}/worker-processes', 'apps:read', 'Worker processes of an app.', { example: { setup: ['app', 'process'], params: app } }),
        r('apps.processes.get', 'GET', '/apps/{appName}/worker-processes/{workerId}', 'apps:read', 'One worker process.', { example: { setup: ['app', 'process'], params: { ...app, workerId: '{process}' } } }),
        r('apps.metrics.requestCount', 'GET', '/apps/{appName}/metrics/request-count', 'apps:read', 'Requests over time.', { example: { setup: ['app'], params: app } }),
        r('apps.metrics.responseDuration', 'GET', '/apps/{appName}/metrics/response-duration', 'apps:read', 'Response duration over time.', { example: { setup: ['app'], params: app } }),
        r('apps.metrics.cpuUsage', 'GET', '/apps/{appName}/metrics/cpu-usage', 'apps:read', 'CPU usage over time.', { example: { setup: ['app'], params: app } }),
        r('apps.metrics.memoryUsage', 'GET', '/apps/{appName}/metrics/memory-usage', 'apps:read', 'Memory usage over time.', { example: { setup: ['app'], params: app } }),
        r('apps.create', 'POST', '/apps', 'apps:write', 'Create an app.', { policy: { project: 'body', create: true }, example: { payload: { name: '{unique}', projectId: '{project}' }, status: 201 } }),
        r('apps.patch', 'PATCH', '/apps/{appName}', 'apps:write', 'Change an app\'s settings, repository, plan, region and environment variables.', {
            policy: { collaboratorFor: { environmentVariables: 'operate' } },
            example: { setup: ['app'], params: app, payload: { buildCommand: 'npm run build', environmentVariables: { NODE_ENV: 'production' } } }
        }),
        r('apps.restart', 'POST', '/apps/{appName}/restart', 'apps:write', 'Restart an app\'s instances (409 without a live deployment).', { policy: { collaborator: 'operate' }, example: { setup: ['app', 'deployment', 'live'], params: app } }),
        r('apps.domains.add', 'POST', '/apps/{appName}/custom-domains', 'apps:write', 'Add a custom domain; it is verified by a TXT record.', { example: { setup: ['app'], params: app, payload: { domain: '{unique}.example.com' }, status: 201 } }),
        r('apps.upgrade', 'PATCH', '/apps/{appName}/upgrade', 'apps:write', 'Change an app\'s plan.', { example: { setup: ['app'], params: app, payload: { plan: 'standard' } } }),
        r('apps.collaborators.upsert', 'PATCH', '/apps/{appName}/collaborators', 'apps:write', 'Grant or change a collaborator\'s permissions.', { example: { setup: ['app'], params: app, payload: { email: '{spareEmail}', permissions: ['view', 'deploy'] } } }),
        r('apps.scaleDown', 'POST', '/apps/{appName}/scale/down', 'apps:write', 'Remove instances within the plan\'s bounds (`{by}`, default 1).', { policy: { collaborator: 'operate' }, example: { setup: ['pairApp'], params: { appName: '{pairApp}' }, payload: { by: 1 } } }),
        r('apps.scaleUp', 'POST', '/apps/{appName}/scale/up', 'apps:write', 'Add instances within the plan\'s bounds (`{by}`, default 1).', { policy: { collaborator: 'operate' }, example: { setup: ['app'], params: app, payload: {} } }),
        r('apps.reviewApps.trigger', 'POST', '/apps/{appName}/review-apps/trigger', 'apps:write', 'Create or redeploy the review app of an open pull request.', { policy: { collaborator: 'deploy' }, example: { setup: ['app'], params: app, payload: { pullRequest: 1 }, status: 409 } }),
        r('apps.reviewApps.extend', 'PATCH', '/apps/{appName}/review-apps/extend', 'apps:write', 'Extend a review app\'s lifetime by `hours`.', { policy: { collaborator: 'deploy' }, example: { setup: ['app'], params: app, payload: { pullRequest: 1, hours: 24 }, status: 404 } }),
        r('apps.processes.patch', 'PATCH', '/apps/{appName}/worker-processes/{workerId}', 'apps:write', 'Change a worker process.', { example: { setup: ['app', 'process'], params: { ...app, workerId: '{process}' }, payload: { instances: 2 } } }),
        r('apps.processes.create', 'POST', '/apps/{appName}/worker-processes', 'apps:write', 'Add a worker process.', { example: { setup: ['app'], params: app, payload: { name: 'queue', command: 'node worker.js' }, status: 201 } }),
        r('apps.delete', 'DELETE', '/apps/{appName}', 'apps:delete', 'Delete an app with its deployments, domains, processes, cron jobs and collaborators.', { example: { setup: ['app'], params: app, status: 204 } }),
        r('apps.domains.remove', 'DELETE', '/apps/{appName}/custom-domains', 'apps:delete', 'Remove a custom domain (`?domain=`).', { example: { setup: ['app', 'domain'], params: app, query: { domain: '{domain}' }, status: 204 } }),
        r('apps.collaborators.remove', 'DELETE', '/apps/{appName}/collaborators/{email}', 'apps:delete', 'Remove a collaborator.', { example: { setup: ['app', 'collaborator'], params: { ...app, email: '{collaborator}' }, status: 204 } }),
        r('apps.processes.delete', 'DELETE', '/apps/{appName}/worker-processes/{workerId}', 'apps:delete', 'Remove a worker process.', { example: { setup: ['app', 'process'], params: { ...app, workerId: '{process}' }, status: 204 } }),
        r('apps.cronJobs.list', 'GET', '/apps/{appName}/cron-jobs', 'cron-jobs:read', 'Cron jobs of an app.', { example: { setup: ['app', 'appCronJob'], params: app } }),
        r('apps.cronJobs.get', 'GET', '/apps/{appName}/cron-jobs/{jobId}', 'cron-jobs:read', 'One app cron job.', { example: { setup: ['app', 'appCronJob'], params: cronJob } }),
        r('apps.cronJobs.runs', 'GET', '/apps/{appName}/cron-jobs/{jobId}/runs', 'cron-jobs:read', 'Runs of an app cron job, newest first.', { example: { setup: ['app', 'appCronJob', 'cronRun'], params: cronJob } }),
        r('apps.cronJobs.run', 'GET', '/apps/{appName}/cron-jobs/{jobId}/runs/{runId}', 'cron-jobs:read', 'One run of an app cron job.', { example: { setup: ['app', 'appCronJob', 'cronRun'], params: cronRun } }),
        r('apps.cronJobs.create', 'POST', '/apps/{appName}/cron-jobs', 'cron-jobs:write', 'Add a cron job to an app (five-field schedule, UTC).', { example: { setup: ['app'], params: app, payload: { name: 'nightly', schedule: '0 3 * * *', command: 'node nightly.js' }, status: 201 } }),
        r('apps.cronJobs.patch', 'PATCH', '/apps/{appName}/cron-jobs/{jobId}', 'cron-jobs:write', 'Change, pause or resume an app cron job.', { example: { setup: ['app', 'appCronJob'], params: cronJob, payload: { status: 'paused' } } }),
        r('apps.cronJobs.runNow', 'POST', '/apps/{appName}/cron-jobs/{jobId}/run', 'cron-jobs:write', 'Run an app cron job now.', { policy: { collaborator: 'operate' }, example: { setup: ['app', 'appCronJob'], params: cronJob, status: 201 } }),
        r('apps.cronJobs.delete', 'DELETE', '/apps/{appName}/cron-jobs/{jobId}', 'cron-jobs:delete', 'Delete an app cron job.', { example: { setup: ['app', 'appCronJob'], params: cronJob, status: 204 } }),
        r('apps.cronJobs.runLogs', 'GET', '/apps/{appName}/cron-jobs/{jobId}/runs/{runId}/logs', 'logs:read', 'Log lines of one run of an app cron job.', { example: { setup: ['app', 'appCronJob', 'cronRun'], params: cronRun } }),
        r('apps.deployments.list', 'GET', '/apps/{appName}/deployments', 'deployments:read', 'Deployments of an app, newest first.', { example: { setup: ['app', 'deployment'], params: app } }),
        r('apps.deployments.get', 'GET', '/apps/{appName}/deployments/{deploymentId}', 'deployments:read', 'One deployment.', { example: { setup: ['app', 'deployment'], params: deployment } }),
        r('apps.deployments.stats', 'GET', '/apps/{appName}/deployments/{deploymentId}/stats', 'deployments:read', 'Timings of one deployment\'s phases.', { example: { setup: ['app', 'deployment'], params: deployment } }),
        r('apps.build.stats', 'GET', '/apps/{appName}/build/stats', 'deployments:read', 'Build statistics over an app\'s deployments.', { example: { setup: ['app', 'deployment'], params: app } }),
        r('apps.deployments.create', 'POST', '/apps/{appName}/deployments/new', 'deployments:write', 'Trigger a deployment (a JSON body; an empty object is accepted).', { policy: { collaborator: 'deploy' }, example: { setup: ['app'], params: app, payload: {}, status: 201 } }),
        r('apps.deployments.rerun', 'POST', '/apps/{appName}/deployments/{deploymentId}/rerun', 'deployments:write', 'Deploy the same configuration again.', { policy: { collaborator: 'deploy' }, example: { setup: ['app', 'deployment'], params: deployment, status: 201 } }),
        r('apps.logs', 'GET', '/apps/{appName}/logs', 'logs:read', 'Runtime logs filtered by text, level and time, newest first.', { example: { setup: ['app', 'deployment'], params: app, query: { limit: 50 } } }),
        r('apps.deployments.logs', 'GET', '/apps/{appName}/deployments/{deploymentId}/logs', 'logs:read', 'Build logs of a deployment.', { example: { setup: ['app', 'deployment'], params: deployment } }),
        r('apps.deployments.postBuildLogs', 'GET', '/apps/{appName}/deployments/{deploymentId}/post-build-logs', 'logs:read', 'Post-build (release) logs of a deployment.', { example: { setup: ['app', 'deployment'], params: deployment } }),
        r('apps.traces', 'GET', '/traces/{appName}', 'traces:read', 'Recorded request spans of an app.', { example: { setup: ['app'], params: app } }),
        r('apps.serviceFile.generate', 'POST', '/apps/{appName}/hostless-file/generate', 'service-file:write', 'Generate a service file from the app\'s current configuration.', { example: { setup: ['app'], params: app, payload: { format: 'yaml' } } }),
        r('apps.serviceFile.update', 'POST', '/apps/{appName}/hostless-file/update', 'service-file:write', 'Validate and store a new version of the app\'s service file.', { example: { setup: ['app'], params: app, payload: { content: serviceFile }, status: 201 } }),
        r('apps.serviceFile.commit', 'POST', '/apps/{appName}/hostless-file/commit', 'service-file:write', 'Commit the service file to the app\'s repository.', { example: { setup: ['app'], params: app, payload: {}, status: 409 } }),
        r('apps.serviceFile.calculateCosts', 'POST', '/apps/{appName}/hostless-file/calculate-costs', 'service-file:write', 'Price the app\'s service file.', { example: { setup: ['app'], params: app, payload: {} } }),
        r('serviceFile.estimate', 'POST', '/estimate-costs', 'service-file:read', 'Price a posted service file without an app.', { example: { payload: { content: serviceFile.replace('{app}', 'estimate') } } }),
        r('projects.apps', 'GET', '/projects/{projectId}/apps', 'projects:read', 'Apps of one project.', { example: { setup: ['app'], params: { projectId: '{project}' } } })
    ]
};
