import type { Knex } from 'knex';

import { decryptSecret, encryptSecret } from '../../../lib/crypto';
import { nowIso } from '../../../lib/time';
import { AppEnvVar } from '../models/app';

// Environment variables are secrets: sealed at rest, written through PATCH, read back only by those allowed to see
// secret values; everyone else sees the names with `value: null, set: true`.
export interface EnvVarView {
    name: string;
    value: string | null;
    set: true;
    updatedAt: string;
}

export class EnvVarsService {
    constructor(private readonly knex: Knex, private readonly sealKey: Buffer) { }

    async read(appId: string, reveal: boolean): Promise<EnvVarView[]> {
        const rows = await AppEnvVar.query(this.knex).where({ app_id: appId }).orderBy('name');
        return rows.map((row) => ({ name: row.name, value: reveal ? decryptSecret(row.value, this.sealKey) : null, set: true as const, updatedAt: row.updatedAt }));
    }

    /** Sets each named variable, or removes it when its value is null, in the caller's transaction. */
    async write(trx: Knex.Transaction, appId: string, changes: Readonly<Record<string, string | null>>): Promise<void> {
        const now = nowIso();
        for (const [name, value] of Object.entries(changes)) {
            if (value === null) {
                await AppEnvVar.query(trx).delete().where({ app_id: appId, name });
                continue;
            }

            const sealed = encryptSecret(value, this.sealKey);
            await trx('app_env_vars')
                .insert({ app_id: appId, name, value: sealed, created_at: now, updated_at: now })
                .onConflict(['app_id', 'name'])
                .merge({ value: sealed, updated_at: now });
        }
    }

    /** Names and sealed values, for a deployment's configuration snapshot. */
    async sealed(db: Knex | Knex.Transaction, appId: string): Promise<Array<{ name: string; value: string }>> {
        return (await AppEnvVar.query(db).where({ app_id: appId }).orderBy('name')).map((row) => ({ name: row.name, value: row.value }));
    }
}
