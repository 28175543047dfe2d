import type { Knex } from 'knex';

// Test-data scenarios (docs/test-data.md): immutable plans with their digest, the runs that applied, advanced or
// reset them (each under an idempotency key, per actor and environment), the manifest of every record a scenario
// created (in its disposable database or, for dashboard fixtures, in this one), and which usage scenarios an invoice
// scenario was made from (a source cannot be reset before the invoice made from it).
export async function up(knex: Knex): Promise<void> {
    await knex.schema.createTable('test_scenarios', (t) => {
        t.string('id', 32).primary();                             // tsc_...
        t.string('actor_id', 32).notNullable();
        t.string('environment', 64).notNullable();
        t.string('template', 32).notNullable();
        t.string('mode', 16).notNullable();                       // historical | behavioral
        t.integer('generator_version').notNullable();
        t.text('plan').notNullable();                             // canonical JSON, every default resolved
        t.text('policy').notNullable();                           // the policy snapshot the plan was made under
        t.string('digest', 64).notNullable();
        t.string('status', 16).notNullable();                     // planned | running | ready | failed | superseded | reset
        t.integer('revision').notNullable();
        t.string('logical_time', 30);                             // behavioral: how far records were generated
        t.string('project_id', 32);                               // dashboard fixtures: the project written to
        t.string('period_start', 30);
        t.string('superseded_by', 32);
        t.string('created_at', 30).notNullable();
        t.string('updated_at', 30).notNullable();
        t.index(['actor_id', 'environment', 'status']);
    });

    await knex.schema.createTable('test_scenario_runs', (t) => {
        t.string('id', 32).primary();                             // tsr_...
        t.string('scenario_id', 32).notNullable().references('test_scenarios.id');
        t.string('actor_id', 32).notNullable();
        t.string('environment', 64).notNullable();
        t.string('action', 16).notNullable();                     // apply | advance | reset
        t.string('idempotency_key', 200).notNullable();
        t.string('status', 16).notNullable();                     // running | ready | failed
        t.string('failure_code', 40);
        t.string('lease_until', 30).notNullable();
        t.string('created_at', 30).notNullable();
        t.string('finished_at', 30);
        t.unique(['actor_id', 'environment', 'idempotency_key']);
        t.index(['scenario_id']);
    });

    await knex.schema.createTable('test_scenario_manifest', (t) => {
        t.increments('seq');
        t.string('scenario_id', 32).notNullable().references('test_scenarios.id');
        t.string('location', 16).notNullable();                   // disposable | primary
        t.string('collection', 40).notNullable();
        t.string('record_id', 120).notNullable();
        t.string('created_at', 30).notNullable();
        t.index(['scenario_id', 'seq']);
        t.index(['record_id']);
    });

    await knex.schema.createTable('test_scenario_sources', (t) => {
        t.string('scenario_id', 32).notNullable().references('test_scenarios.id');
        t.string('source_id', 32).notNullable().references('test_scenarios.id');
        t.primary(['scenario_id', 'source_id']);
        t.index(['source_id']);
    });
}

export async function down(knex: Knex): Promise<void> {
    for (const table of ['test_scenario_sources', 'test_scenario_manifest', 'test_scenario_runs', 'test_scenarios']) {
        await knex.schema.dropTable(table);
    }
}
