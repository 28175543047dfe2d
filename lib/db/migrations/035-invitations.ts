import type { Knex } from 'knex';

// Invitations: adding someone to a project (a role) or to one resource as a collaborator (permissions) is a pending
// invitation bound to an existing account, which becomes a membership or a grant only when that account accepts it.
// One invitation per (target, account); the target is a project (`resource_type` 'project', `resource_id` its id) or
// a resource of a kind that allows collaborators. An invitation goes with its project, its resource and its account.
export async function up(knex: Knex): Promise<void> {
    await knex.schema.createTable('invitations', (t) => {
        t.string('id', 32).primary();
        t.string('resource_type', 32).notNullable();
        t.string('resource_id', 32).notNullable();
        t.string('project_id', 32).notNullable().references('projects.id').onDelete('CASCADE');
        t.string('user_id', 32).notNullable().references('users.id').onDelete('CASCADE');
        t.string('role', 16);                                     // a project invitation's role
        t.text('permissions');                                    // a collaborator invitation's permissions (JSON)
        t.string('invited_by', 32).references('users.id').onDelete('SET NULL');
        t.string('created_at', 30).notNullable();
        t.string('updated_at', 30).notNullable();
        t.string('expires_at', 30).notNullable();
        t.unique(['resource_type', 'resource_id', 'user_id']);
        t.index(['user_id', 'created_at', 'id']);                 // an account's invitations, newest first, in keyset pages
        t.index(['resource_type', 'resource_id', 'created_at', 'id']);   // a project's pending invitations
        t.index(['project_id', 'user_id']);                       // ended with the grants when the account joins the project
        t.index(['expires_at']);
    });
}

export async function down(knex: Knex): Promise<void> {
    await knex.schema.dropTable('invitations');
}
