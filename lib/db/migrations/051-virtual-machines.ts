import type { Knex } from 'knex';

// Virtual machines as the platform records them: size and resources, the SSH keys copied in at creation, the
// firewall's inbound rules, and the catalogue version they were priced with.
export async function up(knex: Knex): Promise<void> {
    await knex.schema.createTable('virtual_machines', (t) => {
        t.string('id', 32).primary();
        t.string('name', 63).notNullable();                       // its hostname; not unique (VMs are addressed by id)
        t.string('project_id', 32).notNullable().references('projects.id').onDelete('CASCADE');
        t.string('status', 16).notNullable();                     // provisioning | running | stopped | restarting | deleting | failed
        t.string('driver', 16).notNullable();
        t.string('size', 32).notNullable();
        t.string('image', 64).notNullable();
        t.string('region', 32).notNullable();
        t.integer('vcpus').notNullable();
        t.integer('memory_mib').notNullable();
        t.integer('disk_gib').notNullable();
        t.string('pricing_version', 32).notNullable();
        t.text('ssh_keys').notNullable();                         // [{id, name, fingerprint, publicKey}] copied at creation
        t.text('firewall').notNullable();                         // inbound rules
        t.string('firewall_updated_at', 30).notNullable();
        t.string('ipv4', 45);                                     // assigned by a driver that allocates addresses
        t.text('error');
        t.string('created_at', 30).notNullable();
        t.string('updated_at', 30).notNullable();
        t.index(['project_id', 'created_at', 'id']);
    });
}

export async function down(knex: Knex): Promise<void> {
    await knex.schema.dropTable('virtual_machines');
}
