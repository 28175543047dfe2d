import type { Knex } from 'knex';

// Idempotency-Key answers (lib/idempotency.ts): one row per user, route and key. The first request inserts the row
// (`pending`), which is the lock its concurrent replays wait on, in any process; its answer is stored sealed
// (`done`). Rows are deleted 24 hours after they were made.
export async function up(knex: Knex): Promise<void> {
    await knex.schema.createTable('idempotency_keys', (t) => {
        t.string('user_id', 32).notNullable();
        t.string('route_id', 96).notNullable();
        t.string('key', 255).notNullable();
        t.string('fingerprint', 64).notNullable();             // SHA-256 of the method, path, query and body
        t.string('state', 8).notNullable();                     // pending | done
        t.text('response');                                     // done: the answer, sealed (AES-256-GCM)
        t.string('created_at', 30).notNullable();
        t.string('expires_at', 30).notNullable();
        t.primary(['user_id', 'route_id', 'key']);
        t.index(['expires_at']);
    });
}

export async function down(knex: Knex): Promise<void> {
    await knex.schema.dropTable('idempotency_keys');
}
