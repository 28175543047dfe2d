// How the generated tests make the resources a route example names: each fixture is a call to another route of the
// tables, made with the owner's session; `value` is the path in its response body that names the fixture.
export interface Fixture {
    route: string;
    params?: Readonly<Record<string, string>>;
    payload?: unknown;
    value: string;
    project?: boolean;                                          // the fixture is a project: the tests' viewer joins it as viewer
}

export const FIXTURES: Readonly<Record<string, Fixture>> = {
    teamProject: { route: 'projects.create', payload: { name: 'Team {unique}' }, value: 'id', project: true },
    member: { route: 'members.add', params: { projectId: '{project}' }, payload: { email: '{spareEmail}', role: 'developer' }, value: 'userId' },
    sshKey: { route: 'sshKeys.create', payload: { name: 'laptop', publicKey: '{sshPublicKey}' }, value: 'id' },
    apiKey: { route: 'apiKeys.create', payload: { name: 'fixture', scopes: ['projects:read'] }, value: 'apiKey.id' }
};
