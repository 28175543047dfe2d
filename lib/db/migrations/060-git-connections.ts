import type { Knex } from 'knex';

// Git connections made by the connect flow: what the host issued beside the access token (a refresh token, sealed
// too; when the access token expires; the scopes), the account's display name, whether the host still accepts the
// token, and a generation that grows with each refresh. The connect flow's states, kept as their SHA-256 only.
export async function up(knex: Knex): Promise<void> {
    await knex.schema.alterTable('git_connections', (t) => {
        t.string('account_name', 200);
        t.text('refresh_token');                                  // sealed with ENCRYPTION_KEY
        t.string('expires_at', 30);
        t.string('scopes', 500);
        t.string('status', 16).notNullable().defaultTo('connected');  // connected | reconnect
        t.integer('generation').notNullable().defaultTo(0);
    });

    await knex.schema.createTable('git_connect_states', (t) => {
        t.string('id', 32).primary();
        t.string('state_hash', 64).notNullable().unique();
        t.string('provider', 16).notNullable();
        t.string('project_id', 32).notNullable().references('projects.id').onDelete('CASCADE');
        t.string('user_id', 32).notNullable().references('users.id').onDelete('CASCADE');
        t.string('session_id', 32).notNullable();
        t.string('expires_at', 30).notNullable();
        t.string('used_at', 30);
        t.string('created_at', 30).notNullable();
        t.index(['expires_at']);
    });
}

export async function down(knex: Knex): Promise<void> {
    await knex.schema.dropTable('git_connect_states');
    await knex.schema.alterTable('git_connections', (t) => {
        for (const column of ['account_name', 'refresh_token', 'expires_at', 'scopes', 'status', 'generation']) {
            t.dropColumn(column);
        }
    });
}
