import type { IdPrefix } from '../ids';
import type { Fixture } from '../route-table';
import type { Scope } from '../scopes';
import type { ResourceKind } from './kinds';

// A runtime kind as data: what its routes are called, where they live, which scopes guard them. The route table of a
// kind is built from this (see rows.ts), the access pipeline learns its kinds from it, and the generated security
// tests make its fixtures from it: a new kind writes one of these instead of copying a family.
export interface RuntimeKindSpec {
    kind: string;                                               // the resource type everywhere: `app`, `worker`
    family: string;                                             // route ids and the table's family: `apps`
    path: string;                                               // the spec's path prefix: `/apps`
    param: string;                                              // the path parameter naming one: `appName`
    table: string;
    idPrefix: IdPrefix;
    noun: string;
    plural: string;
    scopes: { read: Scope; write: Scope; delete: Scope };
    collaborators?: boolean;                                    // users outside the project may be granted one
    edge?: boolean;                                             // served on `<name>.<SITES_DOMAIN>`: its name is in the edge's one name space
    fixture: string;                                            // what the generated tests call one: `app`
    createFields?: Readonly<Record<string, unknown>>;           // what a create needs beyond name and projectId (examples, fixtures)
}

export interface RuntimeKind extends RuntimeKindSpec {
    kinds: ResourceKind[];                                      // the kind and its deployments
    deploymentKind: string;
    fixtures: Record<string, Fixture>;
    item: string;                                               // `/v1/apps/{appName}`
}

export const capitalize = (text: string) => `${text.charAt(0).toUpperCase()}${text.slice(1)}`;

export function runtimeKind(spec: RuntimeKindSpec): RuntimeKind {
    const deploymentKind = `${spec.kind}-deployment`;
    const f = spec.fixture;
    const named = { [spec.param]: `{${f}}` };
    const create = { name: '{unique}', projectId: '{project}', ...spec.createFields };
    return {
        ...spec,
        deploymentKind,
        item: `/v1${spec.path}/{${spec.param}}`,
        kinds: [
            { kind: spec.kind, param: spec.param, table: spec.table, column: 'name', projectColumn: 'project_id', label: capitalize(spec.noun), ...(spec.collaborators ? { collaborators: true } : {}) },
            { kind: deploymentKind, param: 'deploymentId', table: 'deployments', column: 'id', projectColumn: 'project_id', parent: { kind: spec.kind, column: 'resource_id' }, label: 'Deployment' }
        ],
        fixtures: {
            [f]: { route: `${spec.family}.create`, payload: create, value: 'name' },
            [`${f}Pair`]: { route: `${spec.family}.create`, payload: { ...create, instances: 2 }, value: 'name' },
            [`${f}Deployment`]: { route: `${spec.family}.deployments.create`, params: named, payload: {}, value: 'id' },
            [`${f}Live`]: { route: `${spec.family}.get`, params: named, value: 'liveDeploymentId', until: { field: 'status', equals: 'live' } },
            [`${f}Domain`]: { route: `${spec.family}.domains.add`, params: named, payload: { domain: '{unique}.example.com' }, value: 'domain' },
            [`${f}Collaborator`]: { route: `${spec.family}.collaborators.upsert`, params: named, payload: { email: '{spareEmail}', permissions: ['view'] }, value: 'email', invitation: 'accepted' }
        }
    };
}
