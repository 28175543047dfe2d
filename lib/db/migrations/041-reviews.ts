import type { Knex } from 'knex';

// Review apps become review lanes of any kind (review apps, review sites), keyed by (resource_type, resource_id);
// rows are copied, and expiry jobs still queued move to the mechanism's job.
export async function up(knex: Knex): Promise<void> {
    await knex.schema.createTable('reviews', (t) => {
        t.string('id', 32).primary();
        t.string('resource_type', 32).notNullable();
        t.string('resource_id', 32).notNullable();
        t.string('project_id', 32).notNullable().references('projects.id').onDelete('CASCADE');
        t.integer('pull_request').notNullable();
        t.string('branch', 255).notNullable();
        t.string('title', 300).notNullable();
        t.string('status', 16).notNullable();                     // deploying | live | failed
        t.string('deployment_id', 32);
        t.string('expires_at', 30).notNullable();
        t.string('created_at', 30).notNullable();
        t.string('updated_at', 30).notNullable();
        t.unique(['resource_id', 'pull_request']);
    });
    await knex.raw(`INSERT INTO reviews (id, resource_type, resource_id, project_id, pull_request, branch, title, status, deployment_id, expires_at, created_at, updated_at)
        SELECT id, 'app', app_id, project_id, pull_request, branch, title, status, deployment_id, expires_at, created_at, updated_at FROM review_apps`);
    await knex.schema.dropTable('review_apps');
    const jobs: Array<{ id: string; payload: string }> = await knex('jobs').where({ type: 'review-apps.expire' }).whereIn('status', ['queued', 'running']).select('id', 'payload');
    for (const job of jobs) {
        const payload = JSON.parse(job.payload) as { reviewAppId: string };
        await knex('jobs').where({ id: job.id }).update({ type: 'reviews.expire', payload: JSON.stringify({ reviewId: payload.reviewAppId }) });
    }
}

export async function down(knex: Knex): Promise<void> {
    await knex.schema.createTable('review_apps', (t) => {
        t.string('id', 32).primary();
        t.string('app_id', 32).notNullable().references('apps.id').onDelete('CASCADE');
        t.string('project_id', 32).notNullable();
        t.integer('pull_request').notNullable();
        t.string('branch', 255).notNullable();
        t.string('title', 300).notNullable();
        t.string('status', 16).notNullable();
        t.string('deployment_id', 32);
        t.string('expires_at', 30).notNullable();
        t.string('created_at', 30).notNullable();
        t.string('updated_at', 30).notNullable();
        t.unique(['app_id', 'pull_request']);
    });
    await knex.raw(`INSERT INTO review_apps (id, app_id, project_id, pull_request, branch, title, status, deployment_id, expires_at, created_at, updated_at)
        SELECT id, resource_id, project_id, pull_request, branch, title, status, deployment_id, expires_at, created_at, updated_at FROM reviews WHERE resource_type = 'app'`);
    await knex.schema.dropTable('reviews');
}
