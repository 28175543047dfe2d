import * as Boom from '@hapi/boom';
import type { Request } from '@hapi/hapi';

import type { Permission, Role } from './roles';
import type { Scope } from './scopes';

// What the access pipeline hands a handler: who is calling, and the project and resource it resolved and allowed.
// Handlers never re-check any of it.
export interface Access {
    user: { id: string; email: string; isAdmin: boolean };
    via: 'key' | 'session' | 'oauth';
    credentialId: string;
    scopes: readonly Scope[];
    project: { id: string; role: Role | null } | null;          // role null: reached through a collaborator grant
    resource: { kind: string; id: string; projectId: string; role: Role | null; permissions: readonly Permission[] } | null;
}

export function access(request: Request): Access {
    const resolved = request.plugins.platform;
    if (!resolved) {
        throw Boom.internal('Route reached its handler without the access pipeline');
    }

    return resolved;
}

/** Where a request came from, for the security event log. Forwarded-for headers are not trusted. */
export function origin(request: Request): { ip: string | null } {
    return { ip: request.info.remoteAddress || null };
}
