import type { Knex } from 'knex';

// Billing (docs/billing.md): the price lists a deployment has had (a change is a new version, so the past keeps its
// prices), hourly usage rows metered from allocation_events, invoices per project and cycle start, the account's
// billing settings and credit, campaigns, and every incoming payment webhook (kept seven days, no payload).
export async function up(knex: Knex): Promise<void> {
    await knex.schema.createTable('price_lists', (t) => {
        t.increments('version');
        t.string('digest', 64).notNullable();                     // SHA-256 of the canonical JSON: the same list is one version
        t.string('currency', 3).notNullable();
        t.text('body').notNullable();                             // the price list and the VM catalogue's prices, JSON
        t.string('effective_from', 30).notNullable();
    });

    await knex.schema.createTable('usage_hours', (t) => {
        t.increments('seq');
        t.string('project_id', 32).notNullable();
        t.string('resource_type', 32).notNullable();
        t.string('resource_id', 32).notNullable();
        t.string('resource_name', 80).notNullable();
        t.string('hour', 30).notNullable();                       // the hour's start, ISO 8601 UTC
        t.string('plan', 32).notNullable().defaultTo('');
        t.bigInteger('instance_ms').notNullable();                // instances x milliseconds running within the hour
        t.bigInteger('storage_gib_ms').notNullable();             // GiB x milliseconds provisioned within the hour
        t.bigInteger('bandwidth_bytes').notNullable().defaultTo(0);   // bytes the edge served within the hour
        t.integer('price_version').notNullable();
        t.unique(['resource_id', 'project_id', 'hour', 'plan']);
        t.index(['project_id', 'hour']);
    });

    await knex.schema.createTable('usage_meter', (t) => {
        t.string('id', 16).primary();                             // 'hourly'
        t.string('metered_until', 30).notNullable();              // every hour before this one is metered
    });

    await knex.schema.createTable('invoices', (t) => {
        t.string('id', 32).primary();
        t.string('project_id', 32).notNullable().references('projects.id').onDelete('CASCADE');
        t.string('account_id', 32).notNullable();                 // the owner whose credit and currency it uses
        t.string('period_start', 10).notNullable();               // YYYY-MM-DD, inclusive
        t.string('period_end', 10).notNullable();                 // YYYY-MM-DD, inclusive
        t.string('currency', 3).notNullable();
        t.text('lines').notNullable();                            // JSON: the priced lines
        t.bigInteger('subtotal').notNullable();                   // minor units
        t.bigInteger('credit_applied').notNullable();
        t.bigInteger('total').notNullable();
        t.string('status', 16).notNullable();                     // open | paid | payment_failed | void
        t.boolean('test').notNullable().defaultTo(false);
        t.string('failure_reason', 300);
        t.string('payment_provider', 16);
        t.string('payment_reference', 120);
        t.string('paid_at', 30);
        t.string('created_at', 30).notNullable();
        t.string('updated_at', 30).notNullable();
        t.unique(['project_id', 'period_start']);
        t.index(['project_id', 'created_at', 'id']);
    });

    await knex.schema.createTable('billing_accounts', (t) => {
        t.string('user_id', 32).primary().references('users.id').onDelete('CASCADE');
        t.string('currency', 3);
        t.string('provider', 16);                                 // stripe | paystack: how invoices are paid
        t.string('customer_ref', 120);                            // the provider's customer id (Stripe) or email (Paystack)
        t.text('payment_method');                                 // sealed: Stripe payment method id or Paystack authorization code
        t.string('payment_method_hint', 80);
        t.string('updated_at', 30).notNullable();
    });

    await knex.schema.createTable('credit_entries', (t) => {
        t.string('id', 32).primary();
        t.string('user_id', 32).notNullable().references('users.id').onDelete('CASCADE');
        t.bigInteger('amount').notNullable();                     // minor units: positive granted, negative applied
        t.string('currency', 3).notNullable();
        t.string('reason', 32).notNullable();                     // campaign | invoice | adjustment
        t.string('reference', 64);                                // campaign id or invoice id
        t.string('created_at', 30).notNullable();
        t.index(['user_id', 'created_at', 'id']);
    });

    await knex.schema.createTable('campaigns', (t) => {
        t.string('id', 32).primary();
        t.string('code', 64).notNullable().unique();
        t.bigInteger('amount').notNullable();
        t.string('currency', 3).notNullable();
        t.string('starts_at', 30).notNullable();
        t.string('ends_at', 30).notNullable();
        t.string('created_at', 30).notNullable();
    });

    await knex.schema.createTable('campaign_redemptions', (t) => {
        t.string('campaign_id', 32).notNullable().references('campaigns.id').onDelete('CASCADE');
        t.string('user_id', 32).notNullable().references('users.id').onDelete('CASCADE');
        t.string('redeemed_at', 30).notNullable();
        t.primary(['campaign_id', 'user_id']);
    });

    await knex.schema.createTable('checkout_sessions', (t) => {
        t.string('id', 32).primary();
        t.string('user_id', 32).notNullable().references('users.id').onDelete('CASCADE');
        t.string('provider', 16).notNullable();
        t.string('reference', 120).notNullable();                 // the provider's session id or transaction reference
        t.string('status', 16).notNullable();                     // open | complete
        t.string('created_at', 30).notNullable();
        t.unique(['provider', 'reference']);
    });

    await knex.schema.createTable('payment_webhooks', (t) => {
        t.increments('seq');
        t.string('provider', 16).notNullable();
        t.string('event_id', 120);
        t.string('type', 80);
        t.string('outcome', 24).notNullable();                    // processed | replayed | ignored | bad_signature | stale
        t.string('received_at', 30).notNullable();
        t.index(['provider', 'received_at']);
        t.index(['received_at']);
    });

    await knex.schema.createTable('payment_events', (t) => {
        t.string('provider', 16).notNullable();
        t.string('event_id', 120).notNullable();
        t.string('processed_at', 30).notNullable();
        t.primary(['provider', 'event_id']);                      // a replayed event is refused here
    });
}

export async function down(knex: Knex): Promise<void> {
    for (const table of ['payment_events', 'payment_webhooks', 'checkout_sessions', 'campaign_redemptions', 'campaigns', 'credit_entries',
        'billing_accounts', 'invoices', 'usage_meter', 'usage_hours', 'price_lists']) {
        await knex.schema.dropTable(table);
    }
}
