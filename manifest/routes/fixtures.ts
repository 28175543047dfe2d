// How the generated tests make the resources a route example names: each fixture is a call to another route of the
// tables, made with the owner's session; `value` is the path in its response body that names the fixture.
export interface Fixture {
    route: string;
    params?: Readonly<Record<string, string>>;
    payload?: unknown;
    value: string;
    project?: boolean;                                          // the fixture is a project: the tests' viewer joins it as viewer
    until?: { field: string; equals: string };                  // a read to repeat until the field has the value (work done by jobs)
}

export const FIXTURES: Readonly<Record<string, Fixture>> = {
    teamProject: { route: 'projects.create', payload: { name: 'Team {unique}' }, value: 'id', project: true },
    member: { route: 'members.add', params: { projectId: '{project}' }, payload: { email: '{spareEmail}', role: 'developer' }, value: 'userId' },
    sshKey: { route: 'sshKeys.create', payload: { name: 'laptop', publicKey: '{sshPublicKey}' }, value: 'id' },
    apiKey: { route: 'apiKeys.create', payload: { name: 'fixture', scopes: ['projects:read'] }, value: 'apiKey.id' },
    app: { route: 'apps.create', payload: { name: '{unique}', projectId: '{project}' }, value: 'name' },
    pairApp: { route: 'apps.create', payload: { name: '{unique}', projectId: '{project}', instances: 2 }, value: 'name' },
    deployment: { route: 'apps.deployments.create', params: { appName: '{app}' }, payload: {}, value: 'id' },
    live: { route: 'apps.get', params: { appName: '{app}' }, value: 'liveDeploymentId', until: { field: 'status', equals: 'live' } },
    process: { route: 'apps.processes.create', params: { appName: '{app}' }, payload: { name: 'queue', command: 'node worker.js' }, value: 'id' },
    appCronJob: { route: 'apps.cronJobs.create', params: { appName: '{app}' }, payload: { name: 'nightly', schedule: '0 3 * * *', command: 'node nightly.js' }, value: 'id' },
    cronRun: { route: 'apps.cronJobs.runNow', params: { appName: '{app}', jobId: '{appCronJob}' }, value: 'id' },
    domain: { route: 'apps.domains.add', params: { appName: '{app}' }, payload: { domain: '{unique}.example.com' }, value: 'domain' },
    collaborator: { route: 'apps.collaborators.upsert', params: { appName: '{app}' }, payload: { email: '{spareEmail}', permissions: ['view'] }, value: 'email' }
};
