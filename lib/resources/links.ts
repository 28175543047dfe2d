import * as Boom from '@hapi/boom';
import type { Knex } from 'knex';

import { decryptSecret } from '../crypto';
import { connectionString, type DatabaseCredentials } from '../provisioner/driver';
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
    constructor(private readonly credentialsKey: Buffer) { }

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

    /**
     * What the databases a deployment linked (`names`, of its project) give its processes, read when they start so that
     * they reach each database as it is now: `DATABASE_URL_<NAME>` for each one with a connection (the name upper-cased,
     * `-` as `_`), and `DATABASE_URL` when exactly one is linked. A database the records provisioner made has no
     * connection and gives nothing; one being deleted gives nothing.
     */
    async environment(db: Knex, projectId: string, names: readonly string[]): Promise<Record<string, string>> {
        if (!names.length) {
            return {};
        }

        const rows: Array<{ name: string; credentials: string | null }> = await db('databases').where({ project_id: projectId }).whereIn('name', names)
            .whereNot('status', 'deleting').whereNotNull('credentials').orderBy('name').select('name', 'credentials');
        const urls = rows.map((row) => [row.name, connectionString(JSON.parse(decryptSecret(row.credentials!, this.credentialsKey)) as DatabaseCredentials)] as const);
        return {
            ...Object.fromEntries(urls.map(([name, url]) => [`DATABASE_URL_${name.toUpperCase().replace(/-/g, '_')}`, url])),
            ...(names.length === 1 && urls.length === 1 ? { DATABASE_URL: urls[0][1] } : {})
        };
    }
}

/** What a linked-apps list shows of one link. */
export function linkedResource(row: Record<string, unknown>): LinkedResource {
    return { type: row.resource_type as string, id: row.resource_id as string, name: row.resource_name as string, projectId: row.project_id as string, linkedAt: row.created_at as string };
}
