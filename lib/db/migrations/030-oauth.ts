import type { Knex } from 'knex';

// The OAuth authorization server: its signing keys (sealed with ENCRYPTION_KEY), per-user confidential clients,
// authorizations (a request awaiting consent, then the code it issued), grants (a connected AI app) and their
// single-use refresh tokens. Codes, client secrets and refresh tokens are stored as SHA-256 digests only.
export async function up(knex: Knex): Promise<void> {
    await knex.schema.createTable('oauth_signing_keys', (t) => {
        t.string('id', 32).primary();                             // the `kid`
        t.text('public_jwk').notNullable();
        t.text('private_jwk').notNullable();                      // sealed with ENCRYPTION_KEY
        t.string('created_at', 30).notNullable();
        t.string('retired_at', 30);                               // a newer key signs since; kept in the JWKS a while
        t.index(['created_at']);
    });

    await knex.schema.createTable('oauth_clients', (t) => {
        t.string('id', 32).primary();                             // svoc_...
        t.string('user_id', 32).notNullable().references('users.id').onDelete('CASCADE');
        t.string('name', 128).notNullable();
        t.string('secret_hash', 64).notNullable();
        t.text('redirect_uris').notNullable();
        t.string('created_at', 30).notNullable();
        t.index(['user_id', 'created_at', 'id']);
    });

    await knex.schema.createTable('oauth_grants', (t) => {
        t.string('id', 32).primary();
        t.string('user_id', 32).notNullable().references('users.id').onDelete('CASCADE');
        t.string('client_id', 2048).notNullable();
        t.string('client_name', 128).notNullable();
        t.string('client_kind', 16).notNullable();
        t.text('scopes').notNullable();
        t.text('projects');                                       // null: every project the user reaches
        t.string('resource', 2048).notNullable();
        t.string('created_at', 30).notNullable();
        t.string('last_used_at', 30);
        t.string('revoked_at', 30);
        t.string('revoked_reason', 32);
        t.index(['user_id', 'created_at', 'id']);
        t.index(['client_id']);
    });

    await knex.schema.createTable('oauth_authorizations', (t) => {
        t.string('id', 32).primary();
        t.string('client_id', 2048).notNullable();
        t.string('client_name', 128).notNullable();
        t.string('client_kind', 16).notNullable();
        t.string('client_host', 255);
        t.text('redirect_uri').notNullable();
        t.text('scopes').notNullable();
        t.string('resource', 2048).notNullable();
        t.text('state');
        t.string('code_challenge', 64).notNullable();
        t.string('expires_at', 30).notNullable();                 // until then the user may answer
        t.string('decided_at', 30);
        t.string('user_id', 32).references('users.id').onDelete('CASCADE');
        t.text('projects');
        t.string('code_hash', 64).unique();
        t.string('code_expires_at', 30);
        t.string('code_used_at', 30);
        t.string('grant_id', 32);                                 // what the code issued: revoked if the code comes back
        t.string('created_at', 30).notNullable();
        t.index(['created_at']);
    });

    await knex.schema.createTable('oauth_refresh_tokens', (t) => {
        t.string('id', 32).primary();
        t.string('grant_id', 32).notNullable().references('oauth_grants.id').onDelete('CASCADE');
        t.string('token_hash', 64).notNullable().unique();
        t.string('created_at', 30).notNullable();
        t.string('expires_at', 30).notNullable();
        t.string('used_at', 30);
        t.index(['grant_id']);
    });
}

export async function down(knex: Knex): Promise<void> {
    for (const table of ['oauth_refresh_tokens', 'oauth_authorizations', 'oauth_grants', 'oauth_clients', 'oauth_signing_keys']) {
        await knex.schema.dropTable(table);
    }
}
