import type { Knex } from 'knex';

// What API keys hold beyond the spec's seven fields (docs/authentication.md): the secret a roll replaced and the end
// of its overlap, the address allow-list, the address and scopes of recent use, the expiry reminder already sent,
// and where a revoked key leaked. The addresses a key has been used from are a table of their own.
export async function up(knex: Knex): Promise<void> {
    await knex.schema.alterTable('api_keys', (t) => {
        t.string('previous_secret_hash', 64);                     // the secret before the last roll, while its overlap lasts
        t.string('previous_expires_at', 30);                      // when that secret stops working
        t.string('previous_notified_at', 30);                     // the owner was told the old secret is still in use
        t.string('rolled_at', 30);
        t.text('allowed_cidrs');                                  // JSON list of canonical ranges; null: any address
        t.string('last_used_ip', 45);                             // written with last_used_at, at most once a minute
        t.text('scope_uses');                                     // JSON {scope: "YYYY-MM-DD"}: the last day each scope was exercised
        t.string('expiry_reminder', 8);                           // null | 7d | 1d: the last reminder sent
        t.string('revoked_reason', 16);                           // user | leaked
        t.string('leaked_at', 30);
        t.string('leak_url', 2048);
        t.string('leak_source', 64);
        t.string('address_notified_at', 30);                      // the last "used from a new address" message
        t.index(['expires_at']);
    });

    await knex.schema.createTable('api_key_addresses', (t) => {
        t.string('key_id', 32).notNullable().references('api_keys.id').onDelete('CASCADE');
        t.string('ip', 45).notNullable();
        t.string('first_seen_at', 30).notNullable();
        t.primary(['key_id', 'ip']);
    });
}

export async function down(knex: Knex): Promise<void> {
    await knex.schema.dropTable('api_key_addresses');
    await knex.schema.alterTable('api_keys', (t) => {
        t.dropIndex(['expires_at']);
        for (const column of ['previous_secret_hash', 'previous_expires_at', 'previous_notified_at', 'rolled_at', 'allowed_cidrs', 'last_used_ip',
            'scope_uses', 'expiry_reminder', 'revoked_reason', 'leaked_at', 'leak_url', 'leak_source', 'address_notified_at']) {
            t.dropColumn(column);
        }
    });
}
