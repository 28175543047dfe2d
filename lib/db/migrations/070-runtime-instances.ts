import type { Knex } from 'knex';

// The process runtime's state (lib/runtime/process): every instance it starts is a row with the server process that
// owns it and that owner's heartbeat, so every process's edge routes from this table and an instance whose owner
// stopped heartbeating is started again by another; each resource's own uid (when the server runs as root).
export async function up(knex: Knex): Promise<void> {
    await knex.schema.createTable('runtime_instances', (t) => {
        t.string('id', 32).primary();
        t.string('resource_type', 16).notNullable();
        t.string('resource_id', 32).notNullable();
        t.string('project_id', 32).notNullable();
        t.string('deployment_id', 32).notNullable();
        t.string('process', 32).notNullable();                   // web | worker
        t.integer('slot').notNullable();                          // 0..instances-1
        t.string('state', 16).notNullable();                      // starting | serving | draining | stopped
        t.integer('pid');
        t.string('host', 64).notNullable();
        t.integer('port');
        t.string('owner', 64).notNullable();                      // the server process that supervises it
        t.bigInteger('heartbeat_at').notNullable();                // epoch ms, the owner's last beat
        t.integer('restarts').notNullable().defaultTo(0);
        t.string('started_at', 30).notNullable();
        t.index(['resource_id', 'state']);
        t.index(['owner']);
    });

    await knex.schema.createTable('runtime_uids', (t) => {
        t.string('resource_id', 32).primary();
        t.integer('uid').notNullable().unique();
    });
}

export async function down(knex: Knex): Promise<void> {
    await knex.schema.dropTableIfExists('runtime_uids');
    await knex.schema.dropTableIfExists('runtime_instances');
}
