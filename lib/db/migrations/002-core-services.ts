import type { Knex } from 'knex';
import { dialect } from '../knex';

// The job queue's table and the security event log. Security events are immutable: a trigger refuses updates on
// both databases (retention removes old rows; nothing rewrites one).
export async function up(knex: Knex): Promise<void> {
    await knex.schema.createTable('jobs', (t) => {
        t.string('id', 32).primary();
        t.string('type', 64).notNullable();
        t.text('payload').notNullable();
        t.string('status', 16).notNullable();                     // queued | running | succeeded | dead
        t.string('idempotency_key', 200).unique();
        t.string('run_at', 30).notNullable();
        t.integer('attempts').notNullable();
        t.integer('max_attempts').notNullable();
        t.text('last_error');
        t.string('lease_owner', 64);
        t.string('lease_expires_at', 30);
        t.string('created_at', 30).notNullable();
        t.string('updated_at', 30).notNullable();
        t.string('finished_at', 30);
        t.index(['status', 'run_at']);
        t.index(['status', 'lease_expires_at']);
    });

    await knex.schema.createTable('security_events', (t) => {
        t.increments('seq');                                      // the order events were written in, on both databases
        t.string('id', 32).notNullable().unique();
        t.string('type', 48).notNullable();
        t.string('user_id', 32).references('users.id').onDelete('CASCADE');
        t.string('actor', 48).notNullable();                      // usr_... for a user, `cli` for an operator command
        t.string('credential_id', 32);
        t.string('ip', 64);
        t.text('data').notNullable();
        t.string('created_at', 30).notNullable();
        t.index(['user_id', 'seq']);
        t.index(['created_at']);
    });

    if (dialect(knex) === 'postgres') {
        await knex.raw(`CREATE FUNCTION security_events_immutable() RETURNS trigger AS $$
            BEGIN RAISE EXCEPTION 'security events are append-only'; END; $$ LANGUAGE plpgsql`);
        await knex.raw('CREATE TRIGGER security_events_no_update BEFORE UPDATE ON security_events FOR EACH ROW EXECUTE FUNCTION security_events_immutable()');
    }
    else {
        await knex.raw(`CREATE TRIGGER security_events_no_update BEFORE UPDATE ON security_events
            BEGIN SELECT RAISE(ABORT, 'security events are append-only'); END`);
    }
}

export async function down(knex: Knex): Promise<void> {
    await knex.schema.dropTable('security_events');
    if (dialect(knex) === 'postgres') {
        await knex.raw('DROP FUNCTION security_events_immutable()');
    }

    await knex.schema.dropTable('jobs');
}
