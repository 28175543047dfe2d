import type { Knex } from 'knex';

// The BullMQ backend's outbox (lib/queue/bullmq-queue.ts): a job enqueued inside a database transaction is written
// here with the change that needs it, and moved into Redis after the commit (or, if its process died first, by a
// worker's sweep). So a job exists exactly when its cause does, as with the database backend.
export async function up(knex: Knex): Promise<void> {
    await knex.schema.createTable('job_outbox', (t) => {
        t.string('id', 64).primary();                           // the job's id in BullMQ
        t.string('type', 96).notNullable();
        t.text('payload').notNullable();
        t.string('idempotency_key', 255);
        t.string('run_at', 30).notNullable();
        t.integer('max_attempts').notNullable();
        t.string('created_at', 30).notNullable();
        t.index(['created_at']);
    });
}

export async function down(knex: Knex): Promise<void> {
    await knex.schema.dropTable('job_outbox');
}
