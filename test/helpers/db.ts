import * as Crypto from 'node:crypto';

import type { Knex } from 'knex';

import { dialect } from '../../lib/db/knex';

// Reads of the whole database, for asserting that a refused request changed nothing and that no secret is stored.
// Written by any authenticated use, after its response: when (at most once a minute) and from where a key was last
// used, the days its scopes were used, and the addresses it has been used from. Every incoming payment webhook is
// recorded, a refused one too (the evidence the admin tools read): that record is all a refused webhook writes.
const VOLATILE_COLUMNS = new Set(['last_used_at', 'last_used_ip', 'scope_uses']);
const VOLATILE_TABLES = new Set(['api_key_addresses', 'payment_webhooks']);

export async function tableNames(knex: Knex): Promise<string[]> {
    if (dialect(knex) === 'postgres') {
        const result = await knex.raw('SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() ORDER BY table_name');
        return result.rows.map((row: { table_name: string }) => row.table_name).filter((name: string) => !name.startsWith('knex_'));
    }

    const rows = await knex.raw('SELECT name FROM sqlite_master WHERE type = \'table\' ORDER BY name');
    return rows.map((row: { name: string }) => row.name).filter((name: string) => !name.startsWith('knex_') && !name.startsWith('sqlite_'));
}

export async function dump(knex: Knex): Promise<Record<string, Array<Record<string, unknown>>>> {
    // Every table is asked at once (on PostgreSQL the pool's connections read them side by side), and its rows are
    // ordered by their JSON, written once a row rather than twice a comparison.
    const tables = (await tableNames(knex)).filter((name) => !VOLATILE_TABLES.has(name));
    const contents = await Promise.all(tables.map(async (table) => {
        const rows: Array<Record<string, unknown>> = await knex(table).select('*');
        return rows
            .map((row) => {
                const kept = Object.fromEntries(Object.entries(row).filter(([column]) => !VOLATILE_COLUMNS.has(column)));
                return { kept, text: JSON.stringify(kept) };
            })
            .sort((a, b) => a.text < b.text ? -1 : a.text > b.text ? 1 : 0)
            .map(({ kept }) => kept);
    }));
    return Object.fromEntries(tables.map((table, i) => [table, contents[i]]));
}

export async function digest(knex: Knex): Promise<string> {
    return Crypto.createHash('sha256').update(JSON.stringify(await dump(knex))).digest('hex');
}
