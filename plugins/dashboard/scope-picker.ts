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
    cells: Array<ScopeCell | null>;                             // read, write, delete; null where the scope does not exist
}

export function scopeRows(checked: readonly string[] = []): ScopeRow[] {
    const resources = [...new Set(SCOPES.map((scope) => scope.split(':')[0]!))];
    return resources.map((resource) => ({
        resource,
        label: resourceLabel(resource),
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
