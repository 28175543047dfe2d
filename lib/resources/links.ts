import * as Boom from '@hapi/boom';
import type { Knex } from 'knex';

import { nowIso } from '../time';
import type { ResourceRef } from './model';

// Which databases a runtime resource uses: an app links databases with `PATCH /apps/{appName} {databases: [names]}`
// (the whole set, replacing the last one), `GET /databases/{databaseName}/linked-apps` reads the links back, and each
// deployment records the names in its configuration. A resource links only databases of its own project: any other
// name gets the same 400, whether a database of that name exists elsewhere or nowhere.
export interface LinkedResource {
    type: string;
    id: string;
    name: string;
    projectId: string;
    linkedAt: string;
}

export class DatabaseLinks {
    /** Makes `names` the resource's linked databases, in the caller's transaction. */
    async set(trx: Knex.Transaction, resource: ResourceRef, names: readonly string[]): Promise<void> {
        const found: Array<{ id: string; name: string }> = names.length
            ? await trx('databases').where({ project_id: resource.projectId }).whereIn('name', names).whereNot('status', 'deleting').select('id', 'name')
            : [];
        const missing = names.filter((name) => !found.some((database) => database.name === name));
        if (missing.length) {
            throw Boom.badRequest(`"databases" must name databases of the ${resource.type}'s project: there is no ${missing.map((name) => `"${name}"`).join(', ')} in it`);
        }

        const key = { resource_type: resource.type, resource_id: resource.id };
        const kept = found.map((database) => database.id);
        await trx('database_links').where(key).whereNotIn('database_id', kept).delete();
        const existing = new Set<string>(await trx('database_links').where(key).pluck('database_id'));
        const now = nowIso();
        const added = found.filter((database) => !existing.has(database.id))
            .map((database) => ({ ...key, database_id: database.id, resource_name: resource.name, project_id: resource.projectId, created_at: now }));
        if (added.length) {
            await trx('database_links').insert(added);
        }
    }

    /** The names of the databases a resource links, in name order (what a deployment records). */
    async names(db: Knex | Knex.Transaction, resource: ResourceRef): Promise<string[]> {
        return db('database_links as l').join('databases as d', 'd.id', 'l.database_id')
            .where({ 'l.resource_type': resource.type, 'l.resource_id': resource.id }).orderBy('d.name').pluck('d.name');
    }
}

/** What a linked-apps list shows of one link. */
export function linkedResource(row: Record<string, unknown>): LinkedResource {
    return { type: row.resource_type as string, id: row.resource_id as string, name: row.resource_name as string, projectId: row.project_id as string, linkedAt: row.created_at as string };
}
