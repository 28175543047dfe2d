import * as Boom from '@hapi/boom';
import type { Knex } from 'knex';

import { throughProvider } from '../git/access';
import { newId } from '../ids';
import { nowIso } from '../time';
import type { Deployment } from './deployments';
import type { RuntimeFamily } from './family';
import type { RuntimeResource } from './model';

// Review lanes of any kind (review apps, review sites): a deployment of an open pull request's branch beside the
// resource, in its own lane, removed when it expires. Pull requests come from the resource's repository through the
// Git provider adapter. A review is called `<name>-pr-<n>`, a name no resource may take (lib/validation.ts), and is
// served by the edge on that name's host.
export const REVIEW_EXPIRE_JOB = 'reviews.expire';
const MAX_LIFETIME_HOURS = 30 * 24;

export interface Review {
    id: string;
    resource_type: string;
    resource_id: string;
    project_id: string;
    pull_request: number;
    branch: string;
    title: string;
    status: 'deploying' | 'live' | 'failed';
    deployment_id: string | null;
    expires_at: string;
    created_at: string;
    updated_at: string;
}

const nameKey = (kind: string) => `${kind.replace(/-(\w)/g, (_, c: string) => c.toUpperCase())}Name`;

export function publicReview(kind: string, resource: { name: string }, review: Review) {
    return {
        id: review.id,
        [nameKey(kind)]: resource.name,
        name: `${resource.name}-pr-${review.pull_request}`,
        pullRequest: review.pull_request,
        branch: review.branch,
        title: review.title,
        status: review.status,
        deploymentId: review.deployment_id,
        expiresAt: review.expires_at,
        createdAt: review.created_at,
        updatedAt: review.updated_at
    };
}

export class Reviews<R extends RuntimeResource> {
    constructor(private readonly family: RuntimeFamily<R>, private readonly lifetimeHours: number) { }

    private get knex(): Knex {
        return this.family.services.knex;
    }

    private get kind(): string {
        return this.family.kind.kind;
    }

    async list(resource: R): Promise<Review[]> {
        return await this.knex('reviews').where({ resource_id: resource.id }).orderBy('pull_request', 'desc') as Review[];
    }

    async pullRequests(resource: R) {
        const repository = await this.repository(resource);
        const pulls = await throughProvider(() => repository.provider.listPullRequests(repository.repo, { state: 'open' }));
        const reviews = new Map((await this.list(resource)).map((review) => [review.pull_request, review]));
        const key = `review${this.family.kind.noun.charAt(0).toUpperCase()}${this.family.kind.noun.slice(1)}`;
        return pulls.map((pull) => ({ ...pull, [key]: reviews.has(pull.number) ? publicReview(this.kind, resource, reviews.get(pull.number)!) : null }));
    }

    /** The open pull request, or 404. */
    async openPull(resource: R, pullRequest: number) {
        const repository = await this.repository(resource);
        const pulls = await throughProvider(() => repository.provider.listPullRequests(repository.repo, { state: 'open' }));
        const pull = pulls.find((candidate) => candidate.number === pullRequest);
        if (!pull) {
            throw Boom.notFound(`Pull request #${pullRequest} is not open on ${repository.repo}`);
        }

        return pull;
    }

    /** Creates the review of an open pull request, or redeploys it, with a fresh lifetime. */
    async trigger(resource: R, pullRequest: number): Promise<{ review: Review; created: boolean }> {
        const pull = await this.openPull(resource, pullRequest);
        return this.knex.transaction(async (trx) => {
            const now = nowIso();
            const expiresAt = new Date(Date.now() + this.lifetimeHours * 3600_000).toISOString();
            const existing = await trx('reviews').where({ resource_id: resource.id, pull_request: pullRequest }).first<Review | undefined>();
            const id = existing?.id ?? newId('rev');
            if (existing) {
                await trx('reviews').where({ id }).update({ branch: pull.headBranch, title: pull.title, status: 'deploying', expires_at: expiresAt, updated_at: now });
            }
            else {
                await trx('reviews').insert({
                    id, resource_type: this.kind, resource_id: resource.id, project_id: resource.projectId, pull_request: pullRequest, branch: pull.headBranch,
                    title: pull.title, status: 'deploying', deployment_id: null, expires_at: expiresAt, created_at: now, updated_at: now
                });
            }

            const deployment = await this.family.services.deployments.trigger(this.kind, resource, { trigger: 'review', reviewAppId: id, branch: pull.headBranch, commitSha: pull.headSha }, trx);
            await this.scheduleExpiry(trx, id, expiresAt);
            await trx('reviews').where({ id }).update({ deployment_id: deployment.id });
            return { review: (await trx('reviews').where({ id }).first<Review | undefined>())!, created: !existing };
        });
    }

    async extend(resource: R, pullRequest: number, hours: number): Promise<Review> {
        const review = await this.knex('reviews').where({ resource_id: resource.id, pull_request: pullRequest }).first<Review | undefined>();
        if (!review) {
            throw Boom.notFound(`Pull request #${pullRequest} has no review ${this.family.kind.noun}`);
        }

        const from = Math.max(Date.parse(review.expires_at), Date.now());
        const expiresAt = new Date(Math.min(from + hours * 3600_000, Date.now() + MAX_LIFETIME_HOURS * 3600_000)).toISOString();
        return this.knex.transaction(async (trx) => {
            await this.scheduleExpiry(trx, review.id, expiresAt);
            await trx('reviews').where({ id: review.id }).update({ expires_at: expiresAt, updated_at: nowIso() });
            return (await trx('reviews').where({ id: review.id }).first<Review | undefined>())!;
        });
    }

    /** The deployment engine's word on a review lane: its review follows the deployment's outcome. */
    async settled(trx: Knex.Transaction, deployment: Deployment, outcome: 'live' | 'failed'): Promise<void> {
        await trx('reviews').where({ id: deployment.reviewAppId! }).update({ status: outcome, ...(outcome === 'live' ? { deployment_id: deployment.id } : {}), updated_at: nowIso() });
    }

    private repository(resource: R) {
        return this.family.services.git.repositoryOf(resource, this.family.kind.noun, `/v1${this.family.kind.path}/${resource.name}`);
    }

    private async scheduleExpiry(trx: Knex.Transaction, id: string, expiresAt: string): Promise<void> {
        await this.family.services.queue.enqueue(REVIEW_EXPIRE_JOB, { reviewId: id }, { trx, runAt: new Date(expiresAt), idempotencyKey: `review-expire:${id}:${expiresAt}` });
    }
}

/** The expiry job (any kind): removes the review if its lifetime has really run out (it may have been extended). */
export async function expireReview(knex: Knex, reviewId: string, now = Date.now()): Promise<void> {
    await knex.transaction(async (trx) => {
        const review = await trx('reviews').where({ id: reviewId }).first<Review | undefined>();
        if (review && Date.parse(review.expires_at) <= now) {
            await trx('deployments').where({ review_app_id: reviewId }).whereIn('status', ['live', 'queued', 'building', 'deploying']).update({ status: 'canceled', updated_at: nowIso() });
            await trx('reviews').where({ id: reviewId }).delete();
        }
    });
}
