import { sharedRows as shared } from '../../lib/resources/rows';
import { runtimeKind } from '../../lib/resources/spec';
import type { RouteTable } from '../../lib/route-table';

export const WORKERS = runtimeKind({
    kind: 'worker', family: 'workers', path: '/workers', param: 'workerName', table: 'workers', idPrefix: 'wrk', noun: 'worker', plural: 'workers',
    scopes: { read: 'workers:read', write: 'workers:write', delete: 'workers:delete' }, collaborators: true, fixture: 'worker'
});

// Background workers: long-running processes without a public port, a runtime kind made of the shared rows
// (settings, environment, collaborators, scaling, restart, search, commits, deployments, logs, CPU and memory).
export const workersTable: RouteTable = {
    family: 'workers',
    kinds: WORKERS.kinds,
    fixtures: WORKERS.fixtures,
    rows: [
        ...shared.crud(WORKERS, {
            patchExample: { startCommand: 'node queue.js', environmentVariables: { QUEUE: 'mail' } },
            patchPolicy: { collaboratorFor: { environmentVariables: 'operate' } },
            deleteWhat: 'its deployments, logs and collaborators'
        }),
        ...shared.envVars(WORKERS),
        ...shared.collaborators(WORKERS),
        ...shared.scale(WORKERS),
        ...shared.restart(WORKERS),
        ...shared.search(WORKERS),
        ...shared.commits(WORKERS),
        ...shared.deployments(WORKERS),
        ...shared.logs(WORKERS),
        ...shared.metrics(WORKERS, ['cpu-usage', 'memory-usage'])
    ]
};
