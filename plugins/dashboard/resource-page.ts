import * as Boom from '@hapi/boom';

import type { Role } from '../../lib/roles';
import { required } from './api';
import { allowed, kindOf, type Kind, type TabId } from './kinds';
import type { Page } from './page';

// What every page of a resource shows above its tab: the resource read through the API, its project and the
// caller's role there, where the edge serves it, its live deployment, and the tabs and actions this caller gets.

export interface Resource {
    id: string;
    name?: string;
    projectId: string;
    status?: string;
    paused?: boolean;
    liveDeploymentId?: string | null;
    [field: string]: unknown;
}

export interface EdgeSettings {
    publicUrl: string;
    sitesDomain: string;
}

export interface Loaded {
    kind: Kind;
    name: string;                                               // as it appears in the API's paths (a VM's id)
    base: string;                                               // `/v1/apps/shop`
    href: string;                                               // `/dashboard/apps/shop`
    resource: Resource;
    project: { id: string; name: string; role: Role | null } | null;
    role: Role | null;
}

export function kindOrNotFound(segment: string): Kind {
    const kind = kindOf(segment);
    if (!kind) {
        throw Boom.notFound('There is no page at this address.');
    }

    return kind;
}

export async function loadResource(p: Page, segment: string, name: string): Promise<Loaded> {
    const kind = kindOrNotFound(segment);
    if (!p.request.server.lookup(kind.read)) {
        throw Boom.notFound(`This server does not serve ${kind.plural.toLowerCase()}.`);
    }

    const base = `${kind.api}/${encodeURIComponent(name)}`;
    const resource = required(await p.api.call<Resource>('GET', `${base}${kind.readSuffix}`));
    const projectAnswer = await p.api.call<{ id: string; name: string; role: Role | null }>('GET', `/v1/projects/${encodeURIComponent(resource.projectId)}`);
    const project = projectAnswer.status === 200 ? projectAnswer.body : null;
    return { kind, name, base, href: `/dashboard/${kind.segment}/${encodeURIComponent(name)}`, resource, project, role: project?.role ?? null };
}

/** `http://shop.localhost:3000/`: the edge answers on the API's scheme and port, at `<name>.<SITES_DOMAIN>`. */
export function edgeUrl(edge: EdgeSettings, name: string): string {
    const url = new URL(edge.publicUrl);
    return `${url.protocol}//${name}.${edge.sitesDomain}${url.port ? `:${url.port}` : ''}/`;
}

const HIDDEN_FIELDS = new Set(['id', 'name', 'projectId', 'liveDeploymentId', 'createdAt', 'updatedAt', 'status']);
const SECRET_FIELD = /password|connectionString|secret|token/i;

/** The resource's other fields, as label and text; secret-looking ones (which the API shows only to those allowed) folded. */
export function details(resource: Resource): Array<{ label: string; value: string; secret: boolean }> {
    return Object.entries(resource)
        .filter(([key, value]) => !HIDDEN_FIELDS.has(key) && value !== undefined)
        .map(([key, value]) => ({
            label: key.replace(/([A-Z])/g, ' $1').replace(/^./, (c) => c.toUpperCase()),
            value: value === null ? '—' : typeof value === 'object' ? JSON.stringify(value) : String(value as string | number | boolean),
            secret: SECRET_FIELD.test(key) && value !== null
        }));
}

/** The layout of a resource page: header, tabs and actions, with `current` the tab shown (null: the overview). */
export async function resourceHeader(p: Page, loaded: Loaded, edge: EdgeSettings, current: TabId | null) {
    const { kind, resource, href, role } = loaded;
    const server = p.request.server;
    const live = resource.liveDeploymentId && server.lookup(`${kind.family}.deployments.get`)
        ? await p.api.call<{ id: string; status: string; createdAt: string; finishedAt: string | null }>('GET', `${loaded.base}/deployments/${encodeURIComponent(resource.liveDeploymentId)}`)
        : null;
    const status = resource.paused ? 'paused' : resource.status ?? null;
    return {
        title: `${resource.name ?? resource.id} · ${kind.label}`,
        kind: { segment: kind.segment, label: kind.label, plural: kind.plural },
        resource,
        displayName: resource.name ?? resource.id,
        href,
        status,
        project: loaded.project,
        role,
        edgeUrl: kind.edge ? edgeUrl(edge, resource.name ?? resource.id) : null,
        live: live?.status === 200 ? live.body : null,
        tabs: [
            { href, label: 'Overview', current: current === null },
            ...kind.tabs.filter((tab) => server.lookup(tab.route)).map((tab) => ({ href: `${href}/${tab.id}`, label: tab.label, current: tab.id === current }))
        ],
        actions: kind.actions.filter((action) => allowed(server, action.route, role)).map((action) => ({ ...action, href: `${href}/actions/${action.id}` })),
        canDelete: allowed(server, `${kind.family}.delete`, role)
    };
}
