import type { Knex } from 'knex';

// Per-address rate limit counters (lib/rate-limit.ts): one row per limit, client address and window, so every
// process of a deployment counts sign-ins and sign-ups together, with or without Redis. Rows are deleted once their
// window has passed.
export async function up(knex: Knex): Promise<void> {
    await knex.schema.createTable('rate_limit_counters', (t) => {
        t.string('key', 128).primary();                         // `<limit>:<address>:<window start, ms>`
        t.integer('count').notNullable();
        t.string('expires_at', 30).notNullable();
        t.index(['expires_at']);
    });
}

export async function down(knex: Knex): Promise<void> {
    await knex.schema.dropTable('rate_limit_counters');
}
