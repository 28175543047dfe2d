import type { Knex } from 'knex';

// Accounts, sessions, API keys, SSH keys, projects, memberships and collaborator grants.
// Times are ISO 8601 UTC strings (sortable, identical on SQLite and PostgreSQL); flags are nullable times.
export async function up(knex: Knex): Promise<void> {
    await knex.schema.createTable('users', (t) => {
        t.string('id', 32).primary();
        t.string('email', 254).notNullable().unique();
        t.string('name', 128).notNullable();
        t.string('password_hash', 200).notNullable();
        t.string('admin_since', 30);
        t.string('disabled_at', 30);
        t.string('created_at', 30).notNullable();
        t.string('updated_at', 30).notNullable();
    });

    await knex.schema.createTable('sessions', (t) => {
        t.string('id', 32).primary();
        t.string('user_id', 32).notNullable().references('users.id').onDelete('CASCADE');
        t.string('created_at', 30).notNullable();
        t.string('expires_at', 30).notNullable();
        t.string('revoked_at', 30);
        t.string('revoked_reason', 32);
        t.index(['user_id']);
    });

    await knex.schema.createTable('refresh_tokens', (t) => {
        t.string('id', 32).primary();
        t.string('session_id', 32).notNullable().references('sessions.id').onDelete('CASCADE');
        t.string('token_hash', 64).notNullable().unique();
        t.string('created_at', 30).notNullable();
        t.string('used_at', 30);
        t.index(['session_id']);
    });

    await knex.schema.createTable('api_keys', (t) => {
        t.string('id', 32).primary();
        t.string('user_id', 32).notNullable().references('users.id').onDelete('CASCADE');
        t.string('name', 128).notNullable();
        t.string('prefix', 32).notNullable().unique();
        t.string('secret_hash', 64).notNullable();
        t.text('scopes').notNullable();
        t.string('expires_at', 30);
        t.string('last_used_at', 30);
        t.string('revoked_at', 30);
        t.string('created_at', 30).notNullable();
        t.index(['user_id', 'created_at']);
    });

    await knex.schema.createTable('ssh_keys', (t) => {
        t.string('id', 32).primary();
        t.string('user_id', 32).notNullable().references('users.id').onDelete('CASCADE');
        t.string('name', 128).notNullable();
        t.text('public_key').notNullable();
        t.string('fingerprint', 64).notNullable();
        t.string('created_at', 30).notNullable();
        t.unique(['user_id', 'fingerprint']);
    });

    await knex.schema.createTable('projects', (t) => {
        t.string('id', 32).primary();
        t.string('name', 64).notNullable();
        t.string('kind', 16).notNullable();                       // personal | team
        t.string('status', 16).notNullable();
        t.string('created_by', 32).references('users.id').onDelete('SET NULL');
        t.string('created_at', 30).notNullable();
        t.string('updated_at', 30).notNullable();
        t.index(['created_at', 'id']);
    });

    await knex.schema.createTable('memberships', (t) => {
        t.string('project_id', 32).notNullable().references('projects.id').onDelete('CASCADE');
        t.string('user_id', 32).notNullable().references('users.id').onDelete('CASCADE');
        t.string('role', 16).notNullable();
        t.string('created_at', 30).notNullable();
        t.string('updated_at', 30).notNullable();
        t.primary(['project_id', 'user_id']);
        t.index(['user_id']);
    });

    await knex.schema.createTable('collaborators', (t) => {
        t.string('id', 32).primary();
        t.string('resource_type', 32).notNullable();
        t.string('resource_id', 32).notNullable();
        t.string('project_id', 32).notNullable().references('projects.id').onDelete('CASCADE');
        t.string('user_id', 32).notNullable().references('users.id').onDelete('CASCADE');
        t.text('permissions').notNullable();
        t.string('created_at', 30).notNullable();
        t.string('updated_at', 30).notNullable();
        t.unique(['resource_type', 'resource_id', 'user_id']);
        t.index(['user_id']);
    });
}

export async function down(knex: Knex): Promise<void> {
    for (const table of ['collaborators', 'memberships', 'projects', 'ssh_keys', 'api_keys', 'refresh_tokens', 'sessions', 'users']) {
        await knex.schema.dropTable(table);
    }
}
