// The resources a path can name, as data: the access pipeline resolves each with one indexed lookup joined to the
// caller's membership (and collaborator grant), so a family adds a kind here instead of writing a resolver.
export interface ResourceKind {
    kind: string;                                               // 'project', 'app', 'deployment', ...
    param: string;                                              // the path parameter that names it
    table: string;
    column: string;                                             // the column the parameter matches
    projectColumn: string;                                      // the column holding the owning project's id
    parent?: { kind: string; column: string };                  // nested kinds: must belong to the parent named in the same path
    collaborators?: boolean;                                    // whether users outside the project may be granted it
}

export const RESOURCE_KINDS: readonly ResourceKind[] = [
    { kind: 'project', param: 'projectId', table: 'projects', column: 'id', projectColumn: 'id' },
    { kind: 'app', param: 'appName', table: 'apps', column: 'name', projectColumn: 'project_id', collaborators: true },
    { kind: 'deployment', param: 'deploymentId', table: 'deployments', column: 'id', projectColumn: 'project_id', parent: { kind: 'app', column: 'resource_id' } },
    { kind: 'worker-process', param: 'workerId', table: 'app_processes', column: 'id', projectColumn: 'project_id', parent: { kind: 'app', column: 'app_id' } },
    { kind: 'app-cron-job', param: 'jobId', table: 'app_cron_jobs', column: 'id', projectColumn: 'project_id', parent: { kind: 'app', column: 'app_id' } },
    { kind: 'cron-run', param: 'runId', table: 'app_cron_runs', column: 'id', projectColumn: 'project_id', parent: { kind: 'app-cron-job', column: 'cron_job_id' } }
];
