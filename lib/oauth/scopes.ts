import { SCOPES, type Scope } from '../scopes';

// OAuth connector scopes (v1) are read-only: write, delete and test-data scopes are never granted to a connector.
export const OAUTH_SCOPES: readonly Scope[] = SCOPES.filter((scope) => scope.endsWith(':read') && !scope.startsWith('test-data:'));

const granted: ReadonlySet<string> = new Set(OAUTH_SCOPES);

export function isOAuthScope(value: string): value is Scope {
    return granted.has(value);
}

/**
 * The scopes a `scope` parameter asks for, null when it names none; `offline_access` is ignored (refresh tokens are
 * always issued), and anything but a connector scope is refused.
 */
export function parseScopeParameter(value: string | undefined): { scopes: Scope[] | null } | { refused: string[] } {
    const asked = [...new Set((value ?? '').split(' ').filter((item) => item && item !== 'offline_access'))];
    if (!asked.length) {
        return { scopes: null };
    }

    const refused = asked.filter((item) => !isOAuthScope(item));
    return refused.length ? { refused } : { scopes: asked as Scope[] };
}
