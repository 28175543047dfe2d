import type { Knex } from 'knex';
import { dialect } from '../knex';

// The admin access audit (docs/mcp.md, "Admin tools"): one row per admin read, written before its answer leaves the
// API. Append-only as the security event log is: a trigger refuses updates and deletes on both databases.
export async function up(knex: Knex): Promise<void> {
    await knex.schema.createTable('admin_access_audit', (t) => {
        t.increments('seq');                                      // the order records were written in: the keyset of the list
        t.string('id', 32).notNullable().unique();
        t.string('admin_id', 32).notNullable();                   // who asked (kept when the account goes: no foreign key)
        t.string('admin_email', 254).notNullable();
        t.string('credential_id', 32).notNullable();              // the session it asked with
        t.string('tool', 64).notNullable();                       // the MCP tool name the route answers for
        t.string('route', 64).notNullable();
        t.text('arguments').notNullable();                        // JSON: the explicit ids and filters, redacted
        t.string('outcome', 24).notNullable();                    // ok | not_found | invalid | failed | unavailable | unsupported | inconclusive
        t.string('ip', 64);
        t.string('created_at', 30).notNullable();
        t.index(['admin_id', 'seq']);
        t.index(['created_at']);
    });

    if (dialect(knex) === 'postgres') {
        await knex.raw(`CREATE FUNCTION admin_access_audit_immutable() RETURNS trigger AS $$
            BEGIN RAISE EXCEPTION 'the admin access audit is append-only'; END; $$ LANGUAGE plpgsql`);
        await knex.raw('CREATE TRIGGER admin_access_audit_no_change BEFORE UPDATE OR DELETE ON admin_access_audit FOR EACH ROW EXECUTE FUNCTION admin_access_audit_immutable()');
    }
    else {
        await knex.raw(`CREATE TRIGGER admin_access_audit_no_update BEFORE UPDATE ON admin_access_audit
            BEGIN SELECT RAISE(ABORT, 'the admin access audit is append-only'); END`);
        await knex.raw(`CREATE TRIGGER admin_access_audit_no_delete BEFORE DELETE ON admin_access_audit
            BEGIN SELECT RAISE(ABORT, 'the admin access audit is append-only'); END`);
    }
}

export async function down(knex: Knex): Promise<void> {
    await knex.schema.dropTable('admin_access_audit');
    if (dialect(knex) === 'postgres') {
        await knex.raw('DROP FUNCTION admin_access_audit_immutable()');
    }
}
