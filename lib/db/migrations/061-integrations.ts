import type { Knex } from 'knex';

// Project integrations (Slack today): one row per project and type, its webhook URL sealed; each event delivered
// to an integration is a delivery, written in the transaction of the change that caused it; every attempt at it is
// recorded with its time, outcome and the receiver's status code, never the URL. Attempts, and deliveries whose
// delivery is over, are kept seven days.
export async function up(knex: Knex): Promise<void> {
    await knex.schema.createTable('integrations', (t) => {
        t.string('id', 32).primary();
        t.string('project_id', 32).notNullable().references('projects.id').onDelete('CASCADE');
        t.string('type', 32).notNullable();                       // slack
        t.text('webhook_url').notNullable();                      // sealed with ENCRYPTION_KEY
        t.string('webhook_hint', 300).notNullable();              // the URL with its secret path left out
        t.string('channel', 80);
        t.text('events').notNullable();                           // JSON array of event types
        t.string('created_by', 32);
        t.string('created_at', 30).notNullable();
        t.string('updated_at', 30).notNullable();
        t.unique(['project_id', 'type']);
    });

    await knex.schema.createTable('integration_deliveries', (t) => {
        t.string('id', 32).primary();
        t.string('integration_id', 32).notNullable().references('integrations.id').onDelete('CASCADE');
        t.string('project_id', 32).notNullable();
        t.string('event_id', 32).notNullable();
        t.string('event_type', 64).notNullable();
        t.text('message').notNullable();                          // the JSON body sent: built from the event, no secret
        t.string('status', 16).notNullable();                     // queued | delivered | failed
        t.string('job_id', 32);
        t.integer('attempts').notNullable().defaultTo(0);
        t.string('created_at', 30).notNullable();
        t.string('updated_at', 30).notNullable();
        t.string('delivered_at', 30);
        t.unique(['integration_id', 'event_id']);
        t.index(['integration_id', 'created_at', 'id']);
        t.index(['created_at']);
    });

    await knex.schema.createTable('integration_attempts', (t) => {
        t.string('id', 32).primary();
        t.string('delivery_id', 32).notNullable().references('integration_deliveries.id').onDelete('CASCADE');
        t.string('integration_id', 32).notNullable();
        t.string('outcome', 16).notNullable();                    // delivered | failed
        t.integer('response_code');                               // the receiver's HTTP status, when it answered
        t.string('response', 300).notNullable();                  // what it said (or why it was not reached), no secret
        t.string('attempted_at', 30).notNullable();
        t.index(['delivery_id', 'attempted_at']);
        t.index(['integration_id', 'attempted_at']);
        t.index(['attempted_at']);
    });
}

export async function down(knex: Knex): Promise<void> {
    for (const table of ['integration_attempts', 'integration_deliveries', 'integrations']) {
        await knex.schema.dropTable(table);
    }
}
