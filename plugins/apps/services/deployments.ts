import * as Boom from '@hapi/boom';
import type { Knex } from 'knex';

import { newId } from '../../../lib/ids';
import { pageQuery, toPage, type Page } from '../../../lib/pagination';
import type { JobContext } from '../../../lib/queue/types';
import { DeploymentFailure, type DriverTarget } from '../../../lib/runtime/driver';
import { nowIso } from '../../../lib/time';
import { App } from '../models/app';
import { Deployment, TERMINAL, type ConfigSnapshot, type DeploymentStatus } from '../models/deployment';
import { ReviewApp } from '../models/review-app';
import type { AppsService } from './apps';
import type { AppsContext } from './context';
import type { EnvVarsService } from './env-vars';

// Deployments move queued -> building -> deploying -> live (or failed), through a job on the queue. The job reads the
// deployment's state and carries on from there, so a process killed in the middle has its job claimed again after the
// lease and the deployment finished (or failed on the job's last attempt): nothing is left hanging.
export const DEPLOY_JOB = 'deployments.run';

export interface TriggerInput {
    trigger: Deployment['trigger'];
    commitSha?: string | undefined;
    branch?: string | undefined;
    rerunOf?: Deployment | undefined;
    reviewApp?: ReviewApp | undefined;
}

export class DeploymentsService {
    constructor(private readonly context: AppsContext, private readonly apps: AppsService, private readonly envVars: EnvVarsService) { }

    async trigger(app: App, input: TriggerInput, trx?: Knex.Transaction): Promise<Deployment> {
        const run = async (db: Knex.Transaction) => {
            const now = nowIso();
            const deployment = await Deployment.query(db).insertAndFetch({
                id: newId('dep'), resourceType: 'app', resourceId: app.id, projectId: app.projectId, reviewAppId: input.reviewApp?.id ?? null,
                status: 'queued', driver: this.context.driver.name, trigger: input.trigger, rerunOf: input.rerunOf?.id ?? null,
                commitSha: input.commitSha ?? input.rerunOf?.commitSha ?? null, branch: input.branch ?? input.rerunOf?.branch ?? app.repoBranch,
                config: input.rerunOf?.config ?? await this.snapshot(db, app), error: null,
                createdAt: now, buildingAt: null, deployingAt: null, finishedAt: null, updatedAt: now
            });
            await this.context.queue.enqueue(DEPLOY_JOB, { deploymentId: deployment.id }, { trx: db, idempotencyKey: `deployment:${deployment.id}` });
            if (!input.reviewApp) {
                await App.query(db).patch({ status: 'deploying', updatedAt: now }).where({ id: app.id }).whereNull('live_deployment_id');
            }

            await this.context.logs.write(db, { resourceId: app.id, projectId: app.projectId, deploymentId: deployment.id, stream: 'build', level: 'info', message: `Deployment ${deployment.id} queued (${input.trigger})` });
            return deployment;
        };

        return trx ? run(trx) : this.context.knex.transaction(run);
    }

    async rerun(app: App, deploymentId: string): Promise<Deployment> {
        const original = await this.get(app, deploymentId);
        return this.trigger(app, { trigger: 'rerun', rerunOf: original });
    }

    async list(app: App, page: { limit: number; cursor?: string; status?: DeploymentStatus }): Promise<Page<Deployment>> {
        const query = Deployment.query(this.context.knex).where({ resource_id: app.id });
        if (page.status) {
            query.where({ status: page.status });
        }

        return toPage(await pageQuery(query, page), page.limit);
    }

    async get(app: App, id: string): Promise<Deployment> {
        const deployment = await Deployment.query(this.context.knex).findOne({ id, resource_id: app.id });
        if (!deployment) {
            throw Boom.notFound('Deployment not found');
        }

        return deployment;
    }

    /** The job: carries a deployment from whatever state it is in to a terminal one. */
    async run(deploymentId: string, job: JobContext): Promise<void> {
        const deployment = await Deployment.query(this.context.knex).findById(deploymentId);
        const app = deployment && await App.query(this.context.knex).findById(deployment.resourceId);
        if (!deployment || !app || TERMINAL.includes(deployment.status)) {
            return;
        }

        const context = this.apps.logContext(app, { deploymentId }, job.signal);
        const target = targetOf(app, deployment.config);
        try {
            if (deployment.status === 'queued') {
                await this.move(deployment, 'queued', 'building', { buildingAt: nowIso() });
                await context.log('build', 'info', 'Building');
            }

            if (deployment.status === 'queued' || deployment.status === 'building') {
                await this.context.driver.build(target, deploymentId, context);
                await this.move(deployment, 'building', 'deploying', { deployingAt: nowIso() });
                await context.log('release', 'info', 'Deploying');
            }

            await this.context.driver.release(target, deploymentId, context);
            await this.goLive(app, deploymentId);
        }
        catch (err) {
            if (err instanceof DeploymentFailure) {
                return this.fail(app, deploymentId, err.message);
            }

            if (job.attempt >= job.maxAttempts) {
                return this.fail(app, deploymentId, 'The platform could not complete the deployment; it was retried and gave up');
            }

            throw err;
        }
    }

    private async move(deployment: Deployment, from: DeploymentStatus, to: DeploymentStatus, fields: Partial<Deployment>): Promise<void> {
        await Deployment.query(this.context.knex).patch({ status: to, ...fields, updatedAt: nowIso() }).where({ id: deployment.id, status: from });
    }

    /** Live, superseding the app's previous live deployment; a deployment overtaken by a newer live one is superseded. */
    private async goLive(app: App, deploymentId: string): Promise<void> {
        await this.context.knex.transaction(async (trx) => {
            const deployment = (await Deployment.query(trx).findById(deploymentId))!;
            const scope = (q: { where(column: string, value: string): unknown; whereNull(column: string): unknown }) => deployment.reviewAppId ? q.where('review_app_id', deployment.reviewAppId) : q.whereNull('review_app_id');
            const newer = await Deployment.query(trx).where({ resource_id: app.id, status: 'live' }).where('created_at', '>', deployment.createdAt).modify(scope).first();
            const now = nowIso();
            if (newer) {
                await Deployment.query(trx).patch({ status: 'superseded', finishedAt: now, updatedAt: now }).where({ id: deploymentId });
                return;
            }

            await Deployment.query(trx).patch({ status: 'superseded', updatedAt: now }).where({ resource_id: app.id, status: 'live' }).whereNot({ id: deploymentId }).modify(scope);
            await Deployment.query(trx).patch({ status: 'live', finishedAt: now, updatedAt: now }).where({ id: deploymentId }).whereIn('status', ['queued', 'building', 'deploying']);
            if (deployment.reviewAppId) {
                await ReviewApp.query(trx).patch({ status: 'live', deploymentId, updatedAt: now }).where({ id: deployment.reviewAppId });
            }
            else {
                await App.query(trx).patch({ status: 'live', liveDeploymentId: deploymentId, updatedAt: now }).where({ id: app.id });
            }
        });
    }

    private async fail(app: App, deploymentId: string, reason: string): Promise<void> {
        await this.context.knex.transaction(async (trx) => {
            const now = nowIso();
            const deployment = (await Deployment.query(trx).findById(deploymentId))!;
            await Deployment.query(trx).patch({ status: 'failed', error: reason, finishedAt: now, updatedAt: now }).where({ id: deploymentId });
            if (deployment.reviewAppId) {
                await ReviewApp.query(trx).patch({ status: 'failed', updatedAt: now }).where({ id: deployment.reviewAppId });
            }
            else {
                await App.query(trx).patch({ status: 'failed', updatedAt: now }).where({ id: app.id }).whereNull('live_deployment_id');
            }

            await this.context.logs.write(trx, { resourceId: app.id, projectId: app.projectId, deploymentId, stream: 'build', level: 'error', message: `Deployment failed: ${reason}` });
        });
    }

    /** The configuration a deployment is made from, recorded with it: names and sealed values, plan, commands, processes. */
    private async snapshot(db: Knex.Transaction, app: App): Promise<ConfigSnapshot> {
        const processes = await db('app_processes').where({ app_id: app.id }).orderBy('name').select('name', 'command', 'instances');
        return {
            plan: app.plan,
            region: app.region,
            instances: app.instances,
            buildCommand: app.buildCommand,
            startCommand: app.startCommand,
            repository: app.repoProvider ? { provider: app.repoProvider, repo: app.repoName!, branch: app.repoBranch! } : null,
            environment: await this.envVars.sealed(db, app.id),
            processes: processes.map((row: { name: string; command: string; instances: number | string }) => ({ name: row.name, command: row.command, instances: Number(row.instances) })),
            databases: []
        };
    }
}

function targetOf(app: App, config: ConfigSnapshot): DriverTarget {
    return {
        resourceType: 'app', resourceId: app.id, name: app.name, instances: config.instances, plan: config.plan,
        buildCommand: config.buildCommand, startCommand: config.startCommand, repository: config.repository
    };
}
