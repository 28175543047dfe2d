import type { Server } from '@hapi/hapi';

import { roleAtLeast, type Role } from '../../lib/roles';

// The kinds of resource a project holds, as the dashboard shows them: where each lives in the API, its tabs and its
// actions, each tied to the API route (by id) that serves it. A tab or an action appears only when this server mounts
// its route, and an action only to a caller whose project role the route accepts: the API still decides, and its
// refusal is shown as it answers.

export type KindSegment = 'apps' | 'sites' | 'workers' | 'cron-jobs' | 'databases' | 'virtual-machines';

export type TabId = 'deployments' | 'logs' | 'metrics' | 'environment' | 'domains' | 'cron-jobs' | 'runs' | 'processes' | 'collaborators' | 'linked-apps' | 'firewall' | 'size';

export interface KindAction {
    id: string;
    label: string;
    route: string;                                              // the API route id it calls
    suffix: string;                                             // after the resource's API path
    body?: object;
    done: string;                                               // the notice after it
}

export interface Kind {
    segment: KindSegment;
    family: string;                                             // the route ids' prefix
    label: string;                                              // singular, lower case
    plural: string;
    api: string;                                                // `/v1/apps`
    read: string;                                               // the route id that reads one
    readSuffix: string;                                         // `/details` for databases
    edge: boolean;                                              // served on the edge at `<name>.<domain>`
    byId: boolean;                                              // addressed by id (VMs), not by name
    tabs: ReadonlyArray<{ id: TabId; label: string; route: string }>;
    actions: readonly KindAction[];
    metrics: readonly string[];                                 // metric names charted on the metrics tab
}

const runtimeTabs = (family: string, extra: Kind['tabs'] = []): Kind['tabs'] => [
    { id: 'deployments', label: 'Deployments', route: `${family}.deployments.list` },
    { id: 'logs', label: 'Logs', route: `${family}.logs` },
    { id: 'metrics', label: 'Metrics', route: `${family}.metrics.cpuUsage` },
    { id: 'environment', label: 'Environment', route: `${family}.envVars.get` },
    { id: 'domains', label: 'Domains', route: `${family}.domains.list` },
    ...extra,
    { id: 'collaborators', label: 'Collaborators', route: `${family}.collaborators.list` }
];

const runtimeActions = (family: string): KindAction[] => [
    { id: 'deploy', label: 'Deploy', route: `${family}.deployments.create`, suffix: '/deployments/new', body: {}, done: 'A deployment is queued.' },
    { id: 'restart', label: 'Restart', route: `${family}.restart`, suffix: '/restart', done: 'The instances are restarting.' },
    { id: 'scale-up', label: 'Add an instance', route: `${family}.scaleUp`, suffix: '/scale/up', body: { by: 1 }, done: 'Scaled up by one instance.' },
    { id: 'scale-down', label: 'Remove an instance', route: `${family}.scaleDown`, suffix: '/scale/down', body: { by: 1 }, done: 'Scaled down by one instance.' }
];

export const KINDS: readonly Kind[] = [
    {
        segment: 'apps', family: 'apps', label: 'app', plural: 'Apps', api: '/v1/apps', read: 'apps.get', readSuffix: '', edge: true, byId: false,
        tabs: runtimeTabs('apps', [
            { id: 'cron-jobs', label: 'Cron jobs', route: 'apps.cronJobs.list' },
            { id: 'processes', label: 'Worker processes', route: 'apps.processes.list' }
        ]),
        actions: runtimeActions('apps'),
        metrics: ['request-count', 'response-duration', 'cpu-usage', 'memory-usage']
    },
    {
        segment: 'sites', family: 'sites', label: 'site', plural: 'Sites', api: '/v1/sites', read: 'sites.get', readSuffix: '', edge: true, byId: false,
        tabs: runtimeTabs('sites'),
        actions: runtimeActions('sites'),
        metrics: ['request-count', 'response-duration', 'bandwidth', 'unique-visitors', 'cpu-usage', 'memory-usage']
    },
    {
        segment: 'workers', family: 'workers', label: 'worker', plural: 'Workers', api: '/v1/workers', read: 'workers.get', readSuffix: '', edge: false, byId: false,
        tabs: runtimeTabs('workers'),
        actions: runtimeActions('workers'),
        metrics: ['cpu-usage', 'memory-usage']
    },
    {
        segment: 'cron-jobs', family: 'cronJobs', label: 'cron job', plural: 'Cron jobs', api: '/v1/cron-jobs', read: 'cronJobs.get', readSuffix: '', edge: false, byId: false,
        tabs: [{ id: 'runs', label: 'Runs', route: 'cronJobs.runs.list' }, ...runtimeTabs('cronJobs')],
        actions: [
            { id: 'run', label: 'Run now', route: 'cronJobs.runs.create', suffix: '/runs', body: {}, done: 'A run is started.' },
            { id: 'deploy', label: 'Deploy', route: 'cronJobs.deployments.create', suffix: '/deployments/new', body: {}, done: 'A deployment is queued.' },
            { id: 'pause', label: 'Pause', route: 'cronJobs.pause', suffix: '/pause', done: 'The cron job is paused.' },
            { id: 'resume', label: 'Resume', route: 'cronJobs.resume', suffix: '/resume', done: 'The cron job is resumed.' }
        ],
        metrics: ['cpu-usage', 'memory-usage']
    },
    {
        segment: 'databases', family: 'databases', label: 'database', plural: 'Databases', api: '/v1/databases', read: 'databases.details', readSuffix: '/details', edge: false, byId: false,
        tabs: [{ id: 'linked-apps', label: 'Linked apps', route: 'databases.linkedApps' }],
        actions: [
            { id: 'pause', label: 'Pause', route: 'databases.pause', suffix: '/pause', done: 'The database is pausing.' },
            { id: 'unpause', label: 'Unpause', route: 'databases.unpause', suffix: '/unpause', done: 'The database is starting again.' }
        ],
        metrics: []
    },
    {
        segment: 'virtual-machines', family: 'vms', label: 'virtual machine', plural: 'Virtual machines', api: '/v1/virtual-machines', read: 'vms.get', readSuffix: '', edge: false, byId: true,
        tabs: [
            { id: 'metrics', label: 'Metrics', route: 'vms.metrics.cpuUsage' },
            { id: 'firewall', label: 'Firewall', route: 'vms.firewall.get' },
            { id: 'size', label: 'Size and disk', route: 'vms.pricing' }
        ],
        actions: [
            { id: 'start', label: 'Start', route: 'vms.start', suffix: '/start', done: 'The virtual machine is starting.' },
            { id: 'stop', label: 'Stop', route: 'vms.stop', suffix: '/stop', done: 'The virtual machine is stopping.' },
            { id: 'restart', label: 'Restart', route: 'vms.restart', suffix: '/restart', done: 'The virtual machine is restarting.' }
        ],
        metrics: ['cpu-usage', 'memory-usage', 'network-in', 'network-out', 'disk-usage']
    }
];

export const KIND_SEGMENTS = KINDS.map((kind) => kind.segment);

export function kindOf(segment: string): Kind | null {
    return KINDS.find((kind) => kind.segment === segment) ?? null;
}

/** The least project role the API route asks for, as its table row says; null when the server does not mount it. */
export function routeRole(server: Server, routeId: string): Role | null {
    const route = server.lookup(routeId);
    if (!route) {
        return null;
    }

    const platform = (route.settings.plugins as { platform?: { compiled?: { role?: Role } } }).platform;
    return platform?.compiled?.role ?? 'viewer';
}

/**
 * Whether to offer something whose route asks for `routeId`: mounted, and the caller's role is enough. A caller
 * with no role in the project (a collaborator) is offered it: their permissions are the API's to check.
 */
export function allowed(server: Server, routeId: string, role: Role | null): boolean {
    const needed = routeRole(server, routeId);
    return needed !== null && (role === null || roleAtLeast(role, needed));
}

/** `cpu-usage` -> `cpuUsage`, the metric's route id suffix. */
export function metricRoute(kind: Kind, metric: string): string {
    return `${kind.family}.metrics.${metric.replace(/-([a-z])/g, (_, letter: string) => letter.toUpperCase())}`;
}
