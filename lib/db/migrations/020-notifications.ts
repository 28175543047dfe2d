import type { Knex } from 'knex';

// The notifications outbox: a message per notification, written in the transaction of the change that causes it;
// every delivery attempt beside it; and each user's choice of categories (a row only where they chose).
export async function up(knex: Knex): Promise<void> {
    await knex.schema.createTable('notifications', (t) => {
        t.string('id', 32).primary();
        t.string('user_id', 32).notNullable().references('users.id').onDelete('CASCADE');
        t.string('type', 64).notNullable();
        t.string('category', 32).notNullable();
        t.string('recipient', 254).notNullable();
        t.string('subject', 300).notNullable();
        t.text('body').notNullable();
        t.string('status', 16).notNullable();                     // queued | sent | failed | not_configured | suppressed
        t.string('job_id', 32);                                   // the delivery job that owns the message now
        t.string('created_at', 30).notNullable();
        t.string('updated_at', 30).notNullable();
        t.string('sent_at', 30);
        t.index(['user_id', 'created_at', 'id']);                 // a user's messages, newest first, in keyset pages
        t.index(['status']);
        t.index(['created_at']);
    });

    await knex.schema.createTable('notification_attempts', (t) => {
        t.string('id', 32).primary();
        t.string('notification_id', 32).notNullable().references('notifications.id').onDelete('CASCADE');
        t.string('outcome', 16).notNullable();                    // sent | failed | not_configured | suppressed
        t.integer('response_code');                               // the SMTP reply code, when the server answered
        t.string('response', 500).notNullable();                  // what the server (or the outbox) said, no secret
        t.string('attempted_at', 30).notNullable();
        t.index(['notification_id', 'attempted_at']);
        t.index(['attempted_at']);
    });

    await knex.schema.createTable('notification_preferences', (t) => {
        t.string('user_id', 32).notNullable().references('users.id').onDelete('CASCADE');
        t.string('category', 32).notNullable();
        t.boolean('enabled').notNullable();
        t.string('updated_at', 30).notNullable();
        t.primary(['user_id', 'category']);
    });
}

export async function down(knex: Knex): Promise<void> {
    for (const table of ['notification_preferences', 'notification_attempts', 'notifications']) {
        await knex.schema.dropTable(table);
    }
}
