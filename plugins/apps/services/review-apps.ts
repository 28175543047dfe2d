import * as Boom from '@hapi/boom';
import type { Knex } from 'knex';

import { throughProvider } from '../../../lib/git/access';
import { newId } from '../../../lib/ids';
import type { Deployment } from '../../../lib/resources/deployments';
import type { RuntimeFamily } from '../../../lib/resources/family';
import { nowIso } from '../../../lib/time';
import type { App } from '../models/app';
import { ReviewApp } from '../models/review-app';

// Review apps: a deployment of an open pull request's branch beside the app, in its own lane, removed when it
// expires. Pull requests come from the app's repository through the Git provider adapter. A review app is called
// `<app>-pr-<n>`, a name no resource may take (lib/validation.ts `resourceName`).
export const EXPIRE_JOB = 'review-apps.expire';
const MAX_LIFETIME_HOURS = 30 * 24;

export class ReviewAppsService {
    constructor(private readonly family: RuntimeFamily<App>, private readonly lifetimeHours: number) { }

    private get knex(): Knex {
        return this.family.services.knex;
    }

    async list(app: App): Promise<ReviewApp[]> {
        return await ReviewApp.query(this.knex).where({ app_id: app.id }).orderBy('pull_request', 'desc');
    }

    async pullRequests(app: App) {
        const repository = await this.repository(app);
        const pulls = await throughProvider(() => repository.provider.listPullRequests(repository.repo, { state: 'open' }));
        const reviewApps = new Map((await this.list(app)).map((review) => [review.pullRequest, review]));
        return pulls.map((pull) => ({ ...pull, reviewApp: reviewApps.has(pull.number) ? publicReviewApp(app, reviewApps.get(pull.number)!) : null }));
    }

    /** Creates the review app of an open pull request, or redeploys it, with a fresh lifetime. */
    async trigger(app: App, pullRequest: number): Promise<{ reviewApp: ReviewApp; created: boolean }> {
        const repository = await this.repository(app);
        const pulls = await throughProvider(() => repository.provider.listPullRequests(repository.repo, { state: 'open' }));
        const pull = pulls.find((candidate) => candidate.number === pullRequest);
        if (!pull) {
            throw Boom.notFound(`Pull request #${pullRequest} is not open on ${repository.repo}`);
        }

        return this.knex.transaction(async (trx) => {
            const now = nowIso();
            const expiresAt = new Date(Date.now() + this.lifetimeHours * 3600_000).toISOString();
            const existing = await ReviewApp.query(trx).findOne({ app_id: app.id, pull_request: pullRequest });
            const reviewApp = existing
                ? await ReviewApp.query(trx).patchAndFetchById(existing.id, { branch: pull.headBranch, title: pull.title, status: 'deploying', expiresAt, updatedAt: now })
                : await ReviewApp.query(trx).insertAndFetch({
                    id: newId('rev'), appId: app.id, projectId: app.projectId, pullRequest, branch: pull.headBranch, title: pull.title,
                    status: 'deploying', deploymentId: null, expiresAt, createdAt: now, updatedAt: now
                });
            const deployment = await this.family.services.deployments.trigger('app', app, { trigger: 'review', reviewAppId: reviewApp.id, branch: pull.headBranch, commitSha: pull.headSha }, trx);
            await this.scheduleExpiry(trx, reviewApp.id, expiresAt);
            return { reviewApp: await ReviewApp.query(trx).patchAndFetchById(reviewApp.id, { deploymentId: deployment.id }), created: !existing };
        });
    }

    async extend(app: App, pullRequest: number, hours: number): Promise<ReviewApp> {
        const reviewApp = await ReviewApp.query(this.knex).findOne({ app_id: app.id, pull_request: pullRequest });
        if (!reviewApp) {
            throw Boom.notFound(`Pull request #${pullRequest} has no review app`);
        }

        const from = Math.max(Date.parse(reviewApp.expiresAt), Date.now());
        const expiresAt = new Date(Math.min(from + hours * 3600_000, Date.now() + MAX_LIFETIME_HOURS * 3600_000)).toISOString();
        return this.knex.transaction(async (trx) => {
            await this.scheduleExpiry(trx, reviewApp.id, expiresAt);
            return ReviewApp.query(trx).patchAndFetchById(reviewApp.id, { expiresAt, updatedAt: nowIso() });
        });
    }

    /** The expiry job: removes the review app if its lifetime has really run out (it may have been extended). */
    async expire(reviewAppId: string): Promise<void> {
        await this.knex.transaction(async (trx) => {
            const reviewApp = await ReviewApp.query(trx).findById(reviewAppId);
            if (reviewApp && Date.parse(reviewApp.expiresAt) <= Date.now()) {
                await trx('deployments').where({ review_app_id: reviewAppId }).whereIn('status', ['live', 'queued', 'building', 'deploying']).update({ status: 'canceled', updated_at: nowIso() });
                await ReviewApp.query(trx).deleteById(reviewAppId);
            }
        });
    }

    /** The deployment engine's word on a review lane: its review app follows the deployment's outcome. */
    async settled(trx: Knex.Transaction, deployment: Deployment, outcome: 'live' | 'failed'): Promise<void> {
        await ReviewApp.query(trx).patch({ status: outcome, ...(outcome === 'live' ? { deploymentId: deployment.id } : {}), updatedAt: nowIso() }).where({ id: deployment.reviewAppId! });
    }

    private repository(app: App) {
        return this.family.services.git.repositoryOf(app, 'app', `/v1/apps/${app.name}`);
    }

    private async scheduleExpiry(trx: Knex.Transaction, id: string, expiresAt: string): Promise<void> {
        await this.family.services.queue.enqueue(EXPIRE_JOB, { reviewAppId: id }, { trx, runAt: new Date(expiresAt), idempotencyKey: `review-expire:${id}:${expiresAt}` });
    }
}

export function publicReviewApp(app: App, review: ReviewApp) {
    return {
        id: review.id,
        appName: app.name,
        name: `${app.name}-pr-${review.pullRequest}`,
        pullRequest: review.pullRequest,
        branch: review.branch,
        title: review.title,
        status: review.status,
        deploymentId: review.deploymentId,
        expiresAt: review.expiresAt,
        createdAt: review.createdAt,
        updatedAt: review.updatedAt
    };
}
