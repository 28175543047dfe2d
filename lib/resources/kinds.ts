import type { ReqRef, Request } from '@hapi/hapi';

// The resources a path can name, as data: each route table declares the kinds its paths name, and the access
// pipeline resolves each with one indexed lookup joined to the caller's membership (and collaborator grant), loading
// the whole row, so a handler gets the resource it acts on without reading it again.
export interface ResourceKind {
    kind: string;                                               // 'project', 'app', 'app-deployment', ...
    param: string;                                              // the path parameter that names it
    table: string;
    column: string;                                             // the column the parameter matches
    projectColumn: string;                                      // the column holding the owning project's id
    parent?: { kind: string; column: string };                  // nested kinds: must belong to the parent named in the same path
    under?: string;                                             // a generic parameter (`{id}`) names this kind only under this path prefix
    collaborators?: boolean;                                    // whether users outside the project may be granted it
    label?: string;                                             // what a 404 calls it (default: from `kind`)
}

/** Projects are the root of every reach; the pipeline knows them without a table declaring them. */
export const PROJECT_KIND: ResourceKind = { kind: 'project', param: 'projectId', table: 'projects', column: 'id', projectColumn: 'id' };

export function kindLabel(kind: ResourceKind | string): string {
    if (typeof kind !== 'string' && kind.label) {
        return kind.label;
    }

    const name = typeof kind === 'string' ? kind : kind.kind;
    return `${name.charAt(0).toUpperCase()}${name.slice(1).replace(/[-_]/g, ' ')}`;
}

/** Turns a loaded database row into what the handler receives (a model instance, for families that register one). */
export interface RowLoader {
    fromDatabaseJson(row: object): object;
}

/**
 * A typed handle on a kind's loaded row: `APP.of(request)` is the app the pipeline resolved for this request.
 * The pipeline stores rows by kind name; this is the one place their type is asserted.
 */
export interface KindRef<T> {
    readonly kind: string;
    of<Refs extends ReqRef>(request: Request<Refs>): T;
}

export function kindRef<T>(kind: string): KindRef<T> {
    return {
        kind,
        of<Refs extends ReqRef>(request: Request<Refs>): T {
            const row = request.plugins.platform?.rows[kind];
            if (!row) {
                throw new Error(`Route ${request.route.settings.id} resolved no ${kind}`);
            }

            return row as T;
        }
    };
}
