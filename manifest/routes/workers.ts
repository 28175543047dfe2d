import { keyRoute as r, type RouteTable } from '../../lib/route-table';

const list = { policy: { project: 'query' as const } };
const create = { policy: { project: 'body' as const, create: true } };
const deploy = { policy: { collaborator: 'deploy' as const } };
const operate = { policy: { collaborator: 'operate' as const } };

// Background workers: long-running processes without a public port.
export const workersTable: RouteTable = {
    family: 'workers',
    rows: [
        r('workers.list', 'GET', '/workers', 'workers:read', 'Workers the caller can reach; `?projectId=` narrows to one project.', list),
        r('workers.get', 'GET', '/workers/{workerName}', 'workers:read', 'One worker.'),
        r('workers.search', 'GET', '/workers/{workerName}/search', 'workers:read', 'Search a worker\'s deployments, logs and environment variable names.'),
        r('workers.envVars.get', 'GET', '/workers/{workerName}/environment-variables', 'workers:read', 'A worker\'s environment variables (values only to those allowed to see secrets).'),
        r('workers.commits.list', 'GET', '/workers/{workerName}/commits', 'workers:read', 'Recent commits of the worker\'s repository branch.'),
        r('workers.collaborators.list', 'GET', '/workers/{workerName}/collaborators', 'workers:read', 'Users outside the project granted this worker.'),
        r('workers.restart', 'POST', '/workers/{workerName}/restart', 'workers:write', 'Restart a worker.', operate),
        r('workers.scaleDown', 'POST', '/workers/{workerName}/scale/down', 'workers:write', 'Remove instances within the plan\'s bounds.', operate),
        r('workers.scaleUp', 'POST', '/workers/{workerName}/scale/up', 'workers:write', 'Add instances within the plan\'s bounds.', operate),
        r('workers.collaborators.upsert', 'PATCH', '/workers/{workerName}/collaborators', 'workers:write', 'Grant or change a collaborator\'s permissions.'),
        r('workers.collaborators.remove', 'DELETE', '/workers/{workerName}/collaborators/{email}', 'workers:delete', 'Remove a collaborator.'),
        r('workers.metrics.cpuUsage', 'GET', '/workers/{workerName}/metrics/cpu-usage', 'workers:read', 'CPU usage over time.'),
        r('workers.metrics.memoryUsage', 'GET', '/workers/{workerName}/metrics/memory-usage', 'workers:read', 'Memory usage over time.'),
        r('workers.create', 'POST', '/workers', 'workers:write', 'Create a worker.', create),
        r('workers.patch', 'PATCH', '/workers/{workerName}', 'workers:write', 'Change a worker\'s settings.'),
        r('workers.delete', 'DELETE', '/workers/{workerName}', 'workers:delete', 'Delete a worker.'),
        r('workers.deployments.list', 'GET', '/workers/{workerName}/deployments', 'deployments:read', 'Deployments of a worker, newest first.'),
        r('workers.deployments.get', 'GET', '/workers/{workerName}/deployments/{deploymentId}', 'deployments:read', 'One worker deployment.'),
        r('workers.deployments.create', 'POST', '/workers/{workerName}/deployments/new', 'deployments:write', 'Trigger a deployment (a JSON body; an empty object is accepted).', deploy),
        r('workers.deployments.rerun', 'POST', '/workers/{workerName}/deployments/{deploymentId}/rerun', 'deployments:write', 'Deploy the same configuration again.', deploy),
        r('workers.logs', 'GET', '/workers/{workerName}/logs', 'logs:read', 'Runtime logs of a worker.'),
        r('workers.deployments.logs', 'GET', '/workers/{workerName}/deployments/{deploymentId}/logs', 'logs:read', 'Build logs of a worker deployment.')
    ]
};
