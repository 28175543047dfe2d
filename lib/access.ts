import * as Boom from '@hapi/boom';
import type { ReqRef, Request } from '@hapi/hapi';

import { roleAtLeast, type Permission, type Role } from './roles';
import type { Scope } from './scopes';

// What the access pipeline hands a handler: who is calling, and the project and resource it resolved and allowed.
// Handlers never re-check any of it.
export interface Access {
    user: { id: string; email: string; isAdmin: boolean };
    via: 'key' | 'session' | 'oauth';
    credentialId: string;
    scopes: readonly Scope[];
    pinnedProjects: readonly string[] | null;                   // the credential reaches only these projects; null: all the user's
    project: { id: string; role: Role | null } | null;          // role null: reached through a collaborator grant
    resource: { kind: string; id: string; projectId: string; role: Role | null; permissions: readonly Permission[] } | null;
    ids: Readonly<Record<string, string>>;                      // every resolved kind (the resource and its parents) -> id
    rows: Readonly<Record<string, object>>;                     // every resolved kind -> its loaded row (see KindRef)
}

/** The id of a resolved resource or parent (`resolvedId(request, 'app')` on an app's deployment route). */
export function resolvedId<Refs extends ReqRef>(request: Request<Refs>, kind: string): string {
    const id = access(request).ids[kind];
    if (!id) {
        throw Boom.internal(`Route ${request.route.settings.id} resolved no ${kind}`);
    }

    return id;
}

export function access<Refs extends ReqRef>(request: Request<Refs>): Access {
    const resolved = request.plugins.platform;
    if (!resolved) {
        throw Boom.internal('Route reached its handler without the access pipeline');
    }

    return resolved;
}

/** What GET /v1/auth/introspect answers about a live credential. */
export function introspection(credentials: Pick<Access, 'user' | 'via' | 'credentialId' | 'scopes'>) {
    return { userId: credentials.user.id, via: credentials.via, credentialId: credentials.credentialId, scopes: credentials.scopes, isAdmin: credentials.user.isAdmin };
}

/** Where a request came from, for the security event log: X-Forwarded-For only from a trusted proxy (TRUSTED_PROXIES). */
export function origin<Refs extends ReqRef>(request: Request<Refs>): { ip: string | null } {
    return { ip: typeof request.clientAddress === 'function' ? request.clientAddress() : request.info.remoteAddress || null };
}

/**
 * Whether the caller may read secret values (api-contract.md section 4): a member of developer rank or stronger, or
 * a collaborator allowed to operate, acting with a session or with a key holding the matching write scope; never an
 * OAuth token. Everyone else sees `value: null, set: true`.
 */
export function canSeeSecrets(resolved: Access, writeScope: Scope): boolean {
    if (resolved.via === 'oauth' || (resolved.via === 'key' && !resolved.scopes.includes(writeScope))) {
        return false;
    }

    const role = resolved.resource?.role ?? resolved.project?.role ?? null;
    if (role) {
        return roleAtLeast(role, 'developer');
    }

    const permissions = resolved.resource?.permissions ?? [];
    return permissions.includes('operate') || permissions.includes('manage');
}
