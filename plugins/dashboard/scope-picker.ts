import type { Server } from '@hapi/hapi';

import { SCOPES, type Scope } from '../../lib/scopes';

// The scope picker of the key form: one row per resource, one column per action, from the scope catalogue, so a
// scope added to the catalogue appears here without a change to the page.
export const ACTIONS = ['read', 'write', 'delete'] as const;

export interface ScopeCell {
    scope: Scope;
    id: string;                                                 // the checkbox's element id
    checked: boolean;
}

export interface ScopeRow {
    resource: string;
    label: string;
    served: boolean;                                            // some route this server mounts asks for one of its scopes
    cells: Array<ScopeCell | null>;                             // read, write, delete; null where the scope does not exist
}

export function scopeRows(checked: readonly string[] = [], served: ReadonlySet<string> | null = null): ScopeRow[] {
    const resources = [...new Set(SCOPES.map((scope) => scope.split(':')[0]))];
    return resources.map((resource) => ({
        resource,
        label: resourceLabel(resource),
        served: !served || ACTIONS.some((action) => served.has(`${resource}:${action}`)),
        cells: ACTIONS.map((action) => {
            const scope = `${resource}:${action}`;
            return (SCOPES as readonly string[]).includes(scope)
                ? { scope: scope as Scope, id: `scope-${resource}-${action}`, checked: checked.includes(scope) }
                : null;
        })
    }));
}

function resourceLabel(resource: string): string {
    const words = resource.replace(/-/g, ' ');
    const label = words.charAt(0).toUpperCase() + words.slice(1);
    return resource === 'test-data' ? `${label} (development only)` : label;
}

/** The scopes some mounted route asks for: a family whose routes this server does not serve has none here. */
export function servedScopes(server: Server): Set<string> {
    const scopes = new Set<string>();
    for (const route of server.table()) {
        const scope = (route.settings.plugins as { platform?: { scope?: string | null } } | undefined)?.platform?.scope;
        if (scope) {
            scopes.add(scope);
        }
    }

    return scopes;
}

const routeScope = (server: Server, id: string): string | null =>
    (server.lookup(id)?.settings.plugins as { platform?: { scope?: string | null } } | undefined)?.platform?.scope ?? null;

export interface Preset {
    id: string;
    label: string;
    description: string;
    scopes: string[];
}

// Presets fill the grid; the grid stays the truth. Each is built from the scopes the routes it names really ask for.
const KIND_PRESETS = [
    ['apps', 'Apps'], ['sites', 'Sites'], ['workers', 'Workers'], ['cron-jobs', 'Cron jobs'], ['databases', 'Databases'], ['virtual-machines', 'Virtual machines']
] as const;

export function presets(server: Server): Preset[] {
    const served = servedScopes(server);
    const mounted = (scopes: readonly string[]) => scopes.filter((scope) => served.has(scope));
    const ci = ['apps.get', 'apps.deployments.create', 'apps.deployments.get', 'apps.deployments.logs', 'apps.deployments.list']
        .map((id) => routeScope(server, id)).filter((scope): scope is string => !!scope);
    return [
        { id: 'read-only', label: 'Read-only', description: 'Reads everything you can reach, changes nothing.', scopes: mounted(SCOPES.filter((scope) => scope.endsWith(':read') && !scope.startsWith('test-data'))) },
        { id: 'deploy-ci', label: 'Deploy from CI', description: 'Starts app deployments and follows them, nothing else.', scopes: [...new Set(ci)] },
        ...KIND_PRESETS.map(([resource, label]) => ({
            id: `full-${resource}`, label: `Full access: ${label.toLowerCase()}`, description: `Reads, changes and deletes ${label.toLowerCase()}.`,
            scopes: mounted(ACTIONS.map((action) => `${resource}:${action}`))
        }))
    ].filter((preset) => preset.scopes.length > 0);
}
