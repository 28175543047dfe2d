import type { Knex } from 'knex';

import { decryptSecret, encryptSecret } from '../crypto';
import { nowIso } from '../time';
import type { ResourceRef } from './model';

// Environment variables of any runtime resource, in one table keyed by (resource_type, resource_id). Values are
// secrets: sealed at rest, written through PATCH, read back only by those allowed to see secret values; everyone
// else sees the names with `value: null, set: true`.
export interface EnvVarView {
    name: string;
    value: string | null;
    set: true;
    updatedAt: string;
}

interface EnvVarRow {
    name: string;
    value: string;
    updated_at: string;
}

export class EnvVars {
    constructor(private readonly knex: Knex, private readonly sealKey: Buffer) { }

    async read(resource: ResourceRef, reveal: boolean): Promise<EnvVarView[]> {
        const rows = await this.rows(this.knex, resource);
        return rows.map((row) => ({ name: row.name, value: reveal ? decryptSecret(row.value, this.sealKey) : null, set: true as const, updatedAt: row.updated_at }));
    }

    /** Sets each named variable, or removes it when its value is null, in the caller's transaction. */
    async write(trx: Knex.Transaction, resource: ResourceRef, changes: Readonly<Record<string, string | null>>): Promise<void> {
        const now = nowIso();
        const key = { resource_type: resource.type, resource_id: resource.id };
        for (const [name, value] of Object.entries(changes)) {
            if (value === null) {
                await trx('env_vars').where({ ...key, name }).delete();
                continue;
            }

            const sealed = encryptSecret(value, this.sealKey);
            await trx('env_vars')
                .insert({ ...key, name, value: sealed, created_at: now, updated_at: now })
                .onConflict(['resource_type', 'resource_id', 'name'])
                .merge({ value: sealed, updated_at: now });
        }
    }

    /** Names and sealed values, for a deployment's configuration snapshot. */
    async sealed(db: Knex | Knex.Transaction, resource: ResourceRef): Promise<Array<{ name: string; value: string }>> {
        return (await this.rows(db, resource)).map((row) => ({ name: row.name, value: row.value }));
    }

    /** Plain values, for the runtime driver that starts the resource's processes. */
    open(sealed: ReadonlyArray<{ name: string; value: string }>): Record<string, string> {
        return Object.fromEntries(sealed.map((variable) => [variable.name, decryptSecret(variable.value, this.sealKey)]));
    }

    async names(resource: ResourceRef, like: string, limit: number): Promise<string[]> {
        return this.knex('env_vars').where({ resource_type: resource.type, resource_id: resource.id })
            .andWhereRaw('lower(name) LIKE ? ESCAPE \'\\\'', [like]).orderBy('name').limit(limit).pluck('name');
    }

    private rows(db: Knex | Knex.Transaction, resource: ResourceRef): Promise<EnvVarRow[]> {
        return db('env_vars').where({ resource_type: resource.type, resource_id: resource.id }).orderBy('name').select('name', 'value', 'updated_at');
    }
}
