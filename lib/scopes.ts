// The scope catalogue: the spec's scope reference plus the test-data scopes of api-contract.md section 7.
// `Scope` is a literal union, so a misspelt scope in a route table fails the compiler.
export const SCOPES = [
    'apps:read', 'apps:write', 'apps:delete',
    'sites:read', 'sites:write', 'sites:delete',
    'workers:read', 'workers:write', 'workers:delete',
    'cron-jobs:read', 'cron-jobs:write', 'cron-jobs:delete',
    'databases:read', 'databases:write', 'databases:delete',
    'virtual-machines:read', 'virtual-machines:write', 'virtual-machines:delete',
    'deployments:read', 'deployments:write',
    'logs:read',
    'integrations:read', 'integrations:write',
    'projects:read',
    'git:read', 'git:write',
    'metrics:read',
    'traces:read',
    'service-file:read', 'service-file:write',
    'billing:read', 'billing:write',
    'test-data:read', 'test-data:write', 'test-data:delete'
] as const;

export type Scope = typeof SCOPES[number];

const catalogue: ReadonlySet<string> = new Set(SCOPES);

export function isScope(value: string): value is Scope {
    return catalogue.has(value);
}

/**
 * A key's requested scopes with each `<resource>:*` shorthand expanded to every scope of that resource
 * (`apps:*` is `apps:read`, `apps:write`, `apps:delete`), in catalogue order and without repeats; what names no scope
 * (nor a resource, for a shorthand) is returned apart.
 */
export function expandScopes(requested: readonly string[]): { scopes: Scope[]; unknown: string[] } {
    const wanted = new Set<Scope>();
    const unknown: string[] = [];
    for (const item of requested) {
        const resource = item.endsWith(':*') ? item.slice(0, -1) : null;
        const matching = resource ? SCOPES.filter((scope) => scope.startsWith(resource)) : isScope(item) ? [item] : [];
        if (!matching.length) {
            unknown.push(item);
        }

        matching.forEach((scope) => wanted.add(scope));
    }

    return { scopes: SCOPES.filter((scope) => wanted.has(scope)), unknown };
}

/** The scopes a session acts with: everything except the test-data scopes, which only API keys may hold. */
export const SESSION_SCOPES: readonly Scope[] = SCOPES.filter((scope) => !scope.startsWith('test-data:'));

export const SCOPE_DESCRIPTIONS: Record<Scope, string> = {
    'apps:read': 'Read apps, their settings, domains, collaborators, review apps, worker processes and metrics.',
    'apps:write': 'Create and change apps: settings, restarts, scaling, domains, collaborators, review apps, worker processes.',
    'apps:delete': 'Delete apps, their custom domains, collaborators and worker processes.',
    'sites:read': 'Read sites, their settings, domains, review sites, visual-builder projects and metrics.',
    'sites:write': 'Create and change sites, uploads, domains, scaling, review sites and visual-builder content.',
    'sites:delete': 'Delete sites and their custom domains.',
    'workers:read': 'Read workers, their settings, collaborators and metrics.',
    'workers:write': 'Create and change workers, restart and scale them, manage collaborators.',
    'workers:delete': 'Delete workers and their collaborators.',
    'cron-jobs:read': 'Read cron jobs (standalone and app cron jobs), their runs and metrics.',
    'cron-jobs:write': 'Create and change cron jobs, pause, resume and run them.',
    'cron-jobs:delete': 'Delete cron jobs.',
    'databases:read': 'Read databases, their details, linked apps and import status.',
    'databases:write': 'Create and change databases, change tiers, pause, unpause and import.',
    'databases:delete': 'Delete databases.',
    'virtual-machines:read': 'Read virtual machines, pricing, metrics and firewalls.',
    'virtual-machines:write': 'Create virtual machines, start, stop, restart them, change resources and firewalls.',
    'virtual-machines:delete': 'Delete virtual machines.',
    'deployments:read': 'Read deployments of apps, sites, workers and cron jobs, and build statistics.',
    'deployments:write': 'Trigger and rerun deployments.',
    'logs:read': 'Read runtime, build, post-build, run and import logs.',
    'integrations:read': 'List available and configured project integrations.',
    'integrations:write': 'Configure, test and remove project integrations.',
    'projects:read': 'Read projects and list the apps and connected accounts of a project.',
    'git:read': 'Read a project\'s Git provider connections, accounts and repositories.',
    'git:write': 'Disconnect Git providers from a project.',
    'metrics:read': 'Reserved for telemetry diagnostics; no REST route is mounted at /metrics.',
    'traces:read': 'Read recorded request traces of apps.',
    'service-file:read': 'Estimate the cost of a service file.',
    'service-file:write': 'Generate, update, commit and price an app\'s service file.',
    'billing:read': 'Read usage, billing cycles, currencies, payment configuration and invoices.',
    'billing:write': 'Pay invoices.',
    'test-data:read': 'Development only: discover test-data templates and inspect scenarios.',
    'test-data:write': 'Development only: plan, apply and advance test-data scenarios.',
    'test-data:delete': 'Development only: reset test-data scenarios.'
};
