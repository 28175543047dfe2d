import type { Knex } from 'knex';

import { dialect } from '../knex';

// A resource's first and last log line by write order, in two index seeks: a text search on SQLite bounds the text
// index to that span of rowids, so one resource's search does not walk the newer matches of every other resource.
export async function up(knex: Knex): Promise<void> {
    if (dialect(knex) === 'sqlite') {
        await knex.schema.alterTable('log_lines', (t) => {
            t.index(['resource_id', 'seq'], 'log_lines_resource_seq');
        });
    }
}

export async function down(knex: Knex): Promise<void> {
    if (dialect(knex) === 'sqlite') {
        await knex.schema.alterTable('log_lines', (t) => {
            t.dropIndex(['resource_id', 'seq'], 'log_lines_resource_seq');
        });
    }
}
