import { keyRoute as r, type RouteTable } from '../../lib/route-table';

const list = { policy: { project: 'query' as const } };
const create = { policy: { project: 'body' as const, create: true } };

// Standalone cron jobs: scheduled commands with their own image and runs.
export const cronJobsTable: RouteTable = {
    family: 'cron-jobs',
    rows: [
        r('cronJobs.list', 'GET', '/cron-jobs', 'cron-jobs:read', 'Cron jobs the caller can reach; `?projectId=` narrows to one project.', list),
        r('cronJobs.get', 'GET', '/cron-jobs/{cronJobName}', 'cron-jobs:read', 'One cron job.'),
        r('cronJobs.search', 'GET', '/cron-jobs/{cronJobName}/search', 'cron-jobs:read', 'Search a cron job\'s deployments, logs and environment variable names.'),
        r('cronJobs.envVars.get', 'GET', '/cron-jobs/{cronJobName}/environment-variables', 'cron-jobs:read', 'A cron job\'s environment variables (values only to those allowed to see secrets).'),
        r('cronJobs.commits.list', 'GET', '/cron-jobs/{cronJobName}/commits', 'cron-jobs:read', 'Recent commits of the cron job\'s repository branch.'),
        r('cronJobs.runs.list', 'GET', '/cron-jobs/{cronJobName}/runs', 'cron-jobs:read', 'Runs of a cron job, newest first.'),
        r('cronJobs.runs.get', 'GET', '/cron-jobs/{cronJobName}/runs/{runId}', 'cron-jobs:read', 'One run of a cron job.'),
        r('cronJobs.pause', 'POST', '/cron-jobs/{cronJobName}/pause', 'cron-jobs:write', 'Stop scheduling runs.'),
        r('cronJobs.resume', 'POST', '/cron-jobs/{cronJobName}/resume', 'cron-jobs:write', 'Schedule runs again.'),
        r('cronJobs.runs.logs', 'GET', '/cron-jobs/{cronJobName}/runs/{runId}/logs', 'logs:read', 'Log lines of one run.'),
        r('cronJobs.metrics.cpuUsage', 'GET', '/cron-jobs/{cronJobName}/metrics/cpu-usage', 'cron-jobs:read', 'CPU usage over time.'),
        r('cronJobs.metrics.memoryUsage', 'GET', '/cron-jobs/{cronJobName}/metrics/memory-usage', 'cron-jobs:read', 'Memory usage over time.'),
        r('cronJobs.create', 'POST', '/cron-jobs', 'cron-jobs:write', 'Create a cron job.', create),
        r('cronJobs.patch', 'PATCH', '/cron-jobs/{cronJobName}', 'cron-jobs:write', 'Change a cron job\'s settings.'),
        r('cronJobs.delete', 'DELETE', '/cron-jobs/{cronJobName}', 'cron-jobs:delete', 'Delete a cron job.'),
        r('cronJobs.deployments.list', 'GET', '/cron-jobs/{cronJobName}/deployments', 'deployments:read', 'Deployments of a cron job, newest first.'),
        r('cronJobs.deployments.get', 'GET', '/cron-jobs/{cronJobName}/deployments/{deploymentId}', 'deployments:read', 'One cron job deployment.'),
        r('cronJobs.deployments.create', 'POST', '/cron-jobs/{cronJobName}/deployments/new', 'deployments:write', 'Trigger a deployment (a JSON body; an empty object is accepted).'),
        r('cronJobs.deployments.rerun', 'POST', '/cron-jobs/{cronJobName}/deployments/{deploymentId}/rerun', 'deployments:write', 'Deploy the same configuration again.'),
        r('cronJobs.logs', 'GET', '/cron-jobs/{cronJobName}/logs', 'logs:read', 'Runtime logs of a cron job.'),
        r('cronJobs.deployments.logs', 'GET', '/cron-jobs/{cronJobName}/deployments/{deploymentId}/logs', 'logs:read', 'Build logs of a cron job deployment.')
    ]
};
