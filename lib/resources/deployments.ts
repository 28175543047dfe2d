import * as Boom from '@hapi/boom';
import type { Knex } from 'knex';
import type { AnyQueryBuilder, ModelClass } from 'objection';

import { BaseModel } from '../db/model';
import type { PlatformEvents } from '../events';
import { newId } from '../ids';
import type { Page } from '../pagination';
import type { JobContext } from '../queue/types';
import { DeploymentFailure, type DriverContext, type DriverTarget, type RuntimeDriver } from '../runtime/driver';
import { nowIso } from '../time';
import type { Allocation } from './allocation';
import type { EnvVars } from './env-vars';
import type { Lists } from '../lists';
import type { DatabaseLinks } from './links';
import type { LogStore } from './logs';
import { refOf, type RuntimeResource } from './model';

// Deployments of every runtime kind move queued -> building -> deploying -> live (or failed), through one job on
// the queue. The job reads the deployment's state and carries on from there, so a process killed in the middle
// has its job claimed again after the lease and the deployment finished (or failed on the job's last attempt).
// A kind plugs in with a small adapter: its model, what its snapshot adds, and what a review lane does on live.
export const DEPLOY_JOB = 'deployments.run';

export type DeploymentStatus = 'queued' | 'building' | 'deploying' | 'live' | 'failed' | 'canceled' | 'superseded';
export const DEPLOYMENT_STATUSES: readonly DeploymentStatus[] = ['queued', 'building', 'deploying', 'live', 'failed', 'canceled', 'superseded'];
export const TERMINAL: readonly DeploymentStatus[] = ['live', 'failed', 'canceled', 'superseded'];
export const IN_PROGRESS: readonly DeploymentStatus[] = ['queued', 'building', 'deploying'];

/** What was deployed: the configuration at the time, environment values sealed, for rerun and later comparison. */
export interface ConfigSnapshot {
    plan: string;
    region: string;
    instances: number;
    buildCommand: string | null;
    startCommand: string | null;
    repository: { provider: string; repo: string; branch: string } | null;
    environment: Array<{ name: string; value: string }>;
    processes: Array<{ name: string; command: string; instances: number }>;
    databases: string[];
}

export class Deployment extends BaseModel {
    static override tableName = 'deployments';
    static override jsonAttributes = ['config'];

    id!: string;
    resourceType!: string;
    resourceId!: string;
    projectId!: string;
    reviewAppId!: string | null;                                // the review lane it belongs to, or the main lane
    status!: DeploymentStatus;
    driver!: string;
    trigger!: 'manual' | 'rerun' | 'review' | 'auto' | 'upload' | 'publish';
    rerunOf!: string | null;
    commitSha!: string | null;
    branch!: string | null;
    config!: ConfigSnapshot;
    error!: string | null;
    createdAt!: string;
    buildingAt!: string | null;
    deployingAt!: string | null;
    finishedAt!: string | null;
    updatedAt!: string;
}

export interface TriggerInput {
    trigger: Deployment['trigger'];
    commitSha?: string | undefined;
    branch?: string | undefined;
    rerunOf?: Deployment | undefined;
    reviewAppId?: string | undefined;
}

/** What a kind tells the engine. Only `model` is required. */
export interface DeploymentAdapter<R extends RuntimeResource = RuntimeResource> {
    model: ModelClass<R>;
    /** The kind's own driver (sites: files served by the edge), instead of the server's runtime driver. */
    driver?: RuntimeDriver;
    snapshot?(db: Knex.Transaction, resource: R): Promise<Partial<ConfigSnapshot>>;
    /** In the trigger's transaction, after the deployment is recorded: what the kind attaches to it (or a refusal). */
    prepare?(trx: Knex.Transaction, resource: R, deployment: Deployment, input: TriggerInput): Promise<void>;
    /** A deployment of a review lane went live or failed (the main lane moves the resource itself). */
    onReview?(trx: Knex.Transaction, deployment: Deployment, outcome: 'live' | 'failed'): Promise<void>;
    /** A deployment of the main lane went live, in that transaction: what must move with it (billing's allocations). */
    onLive?(trx: Knex.Transaction, resource: R, deployment: Deployment): Promise<void>;
    /** After a deployment settled and its transaction committed (housekeeping: old releases, stored files). */
    settled?(deployment: Deployment, outcome: 'live' | 'failed' | 'superseded'): Promise<void>;
}

export interface DeploymentEngineOptions {
    knex: Knex;
    driver: RuntimeDriver;
    logs: LogStore;
    envVars: EnvVars;
    allocation: Allocation;
    lists: Lists;
    links: DatabaseLinks;
    enqueue(trx: Knex.Transaction, deploymentId: string): Promise<void>;
    events?: PlatformEvents;                                    // told `deployment.live` and `deployment.failed`, in the change's transaction
}

export class DeploymentEngine {
    private readonly adapters = new Map<string, DeploymentAdapter>();

    constructor(private readonly options: DeploymentEngineOptions) { }

    register<R extends RuntimeResource>(kind: string, adapter: DeploymentAdapter<R>): void {
        if (this.adapters.has(kind)) {
            throw new Error(`A deployment adapter for ${kind} is registered twice`);
        }

        this.adapters.set(kind, adapter);
    }

    get driverName(): string {
        return this.options.driver.name;
    }

    /** The driver that performs a kind's deployments: its own, or the server's. */
    driverOf(kind: string): RuntimeDriver {
        return this.adapters.get(kind)?.driver ?? this.options.driver;
    }

    async trigger<R extends RuntimeResource>(kind: string, resource: R, input: TriggerInput, trx?: Knex.Transaction): Promise<Deployment> {
        const adapter = this.adapter<R>(kind);
        const run = async (db: Knex.Transaction) => {
            const now = nowIso();
            const deployment = await Deployment.query(db).insertAndFetch({
                id: newId('dep'), resourceType: kind, resourceId: resource.id, projectId: resource.projectId, reviewAppId: input.reviewAppId ?? null,
                status: 'queued', driver: this.driverOf(kind).name, trigger: input.trigger, rerunOf: input.rerunOf?.id ?? null,
                commitSha: input.commitSha ?? input.rerunOf?.commitSha ?? null, branch: input.branch ?? input.rerunOf?.branch ?? resource.repoBranch,
                config: input.rerunOf?.config ?? await this.snapshot(db, kind, adapter, resource), error: null,
                createdAt: now, buildingAt: null, deployingAt: null, finishedAt: null, updatedAt: now
            });
            await adapter.prepare?.(db, resource, deployment, input);
            await this.options.enqueue(db, deployment.id);
            if (!input.reviewAppId) {
                await adapter.model.query(db).patch({ status: 'deploying', updatedAt: now } as never).where({ id: resource.id }).whereNull('live_deployment_id');
            }

            await this.log(db, deployment, 'build', 'info', `Deployment ${deployment.id} queued (${input.trigger})`);
            return deployment;
        };

        return trx ? run(trx) : this.options.knex.transaction(run);
    }

    async list(resourceId: string, page: { limit: number; cursor?: string | undefined; status?: DeploymentStatus | undefined }): Promise<Page<Deployment>> {
        return this.options.lists.page({
            table: 'deployments', scope: { resource_id: resourceId, ...(page.status ? { status: page.status } : {}) }, load: (row) => Deployment.fromDatabaseJson(row)
        }, page);
    }

    /** The job: carries a deployment from whatever state it is in to a terminal one. */
    async run(deploymentId: string, job: JobContext): Promise<void> {
        const deployment = await Deployment.query(this.options.knex).findById(deploymentId);
        const adapter = deployment && this.adapters.get(deployment.resourceType);
        const resource = adapter && await adapter.model.query(this.options.knex).findById(deployment.resourceId);
        if (!deployment || !resource || TERMINAL.includes(deployment.status)) {
            return;
        }

        const context = this.context(deployment, job.signal);
        const target = targetOf(deployment.resourceType, resource, deployment.config);
        const driver = this.driverOf(deployment.resourceType);
        let outcome: 'live' | 'failed' | 'superseded';
        try {
            if (deployment.status === 'queued') {
                await this.move(deployment, 'queued', 'building', { buildingAt: nowIso() });
                await context.log('build', 'info', 'Building');
            }

            if (deployment.status === 'queued' || deployment.status === 'building') {
                await driver.build(target, deploymentId, context);
                await this.move(deployment, 'building', 'deploying', { deployingAt: nowIso() });
                await context.log('release', 'info', 'Deploying');
            }

            await driver.release(target, deploymentId, context);
            outcome = await this.goLive(adapter, resource, deploymentId);
        }
        catch (err) {
            if (!(err instanceof DeploymentFailure) && job.attempt < job.maxAttempts) {
                throw err;
            }

            await this.fail(adapter, resource, deploymentId, err instanceof DeploymentFailure ? err.message : 'The platform could not complete the deployment; it was retried and gave up');
            outcome = 'failed';
        }

        // Housekeeping after the outcome is committed: its failure never changes the outcome.
        await adapter.settled?.(deployment, outcome).catch((err: Error) => context.log('release', 'warn', `Cleanup after the deployment did not finish: ${err.message}`));
    }

    /** A driver context whose log lines belong to the deployment (or run) and its resource. */
    context(owner: { resourceType: string; resourceId: string; projectId: string; id?: string }, signal: AbortSignal, runId?: string): DriverContext {
        return {
            signal,
            log: (stream, level, message) => this.options.logs.write(this.options.knex, {
                resourceType: owner.resourceType, resourceId: owner.resourceId, projectId: owner.projectId, stream, level, message,
                deploymentId: runId ? null : owner.id ?? null, runId: runId ?? null
            })
        };
    }

    /** Cancels a resource's deployments still in progress (it is being deleted). */
    async cancelAll(trx: Knex.Transaction, resourceId: string): Promise<void> {
        await Deployment.query(trx).patch({ status: 'canceled', finishedAt: nowIso(), updatedAt: nowIso() }).where({ resource_id: resourceId }).whereIn('status', IN_PROGRESS as DeploymentStatus[]);
    }

    private adapter<R extends RuntimeResource>(kind: string): DeploymentAdapter<R> {
        const adapter = this.adapters.get(kind);
        if (!adapter) {
            throw Boom.internal(`No deployment adapter is registered for ${kind}`);
        }

        return adapter as unknown as DeploymentAdapter<R>;   // registered for this kind, with its own model
    }

    private async move(deployment: Deployment, from: DeploymentStatus, to: DeploymentStatus, fields: Partial<Deployment>): Promise<void> {
        await Deployment.query(this.options.knex).patch({ status: to, ...fields, updatedAt: nowIso() }).where({ id: deployment.id, status: from });
    }

    /** Live, superseding the lane's previous live deployment; a deployment overtaken by a newer live one is superseded. */
    private async goLive(adapter: DeploymentAdapter, resource: RuntimeResource, deploymentId: string): Promise<'live' | 'superseded'> {
        return this.options.knex.transaction(async (trx) => {
            const deployment = (await Deployment.query(trx).findById(deploymentId))!;
            const lane = (q: AnyQueryBuilder): void => {
                void (deployment.reviewAppId ? q.where('review_app_id', deployment.reviewAppId) : q.whereNull('review_app_id'));
            };
            const newer = await Deployment.query(trx).where({ resource_id: resource.id, status: 'live' }).where('created_at', '>', deployment.createdAt).modify(lane).first();
            const now = nowIso();
            if (newer) {
                await Deployment.query(trx).patch({ status: 'superseded', finishedAt: now, updatedAt: now }).where({ id: deploymentId });
                return 'superseded';
            }

            await Deployment.query(trx).patch({ status: 'superseded', updatedAt: now }).where({ resource_id: resource.id, status: 'live' }).whereNot({ id: deploymentId }).modify(lane);
            await Deployment.query(trx).patch({ status: 'live', finishedAt: now, updatedAt: now }).where({ id: deploymentId }).whereIn('status', IN_PROGRESS as DeploymentStatus[]);
            await this.announce(trx, deployment, resource, 'live');
            if (deployment.reviewAppId) {
                await adapter.onReview?.(trx, deployment, 'live');
                return 'live';
            }

            const current = await adapter.model.query(trx).findById(resource.id);
            await adapter.model.query(trx).patch({ status: 'live', liveDeploymentId: deploymentId, updatedAt: now } as never).where({ id: resource.id });
            if (current && !current.liveDeploymentId) {
                await this.options.allocation.record(trx, refOf(deployment.resourceType, current), 'started', { running: true, instances: deployment.config.instances, plan: deployment.config.plan });
            }

            await adapter.onLive?.(trx, current ?? resource, deployment);

            return 'live';
        });
    }

    private async fail(adapter: DeploymentAdapter, resource: RuntimeResource, deploymentId: string, reason: string): Promise<void> {
        await this.options.knex.transaction(async (trx) => {
            const now = nowIso();
            const deployment = (await Deployment.query(trx).findById(deploymentId))!;
            await Deployment.query(trx).patch({ status: 'failed', error: reason, finishedAt: now, updatedAt: now }).where({ id: deploymentId });
            await this.announce(trx, deployment, resource, 'failed', reason);
            if (deployment.reviewAppId) {
                await adapter.onReview?.(trx, deployment, 'failed');
            }
            else {
                await adapter.model.query(trx).patch({ status: 'failed', updatedAt: now } as never).where({ id: resource.id }).whereNull('live_deployment_id');
            }

            await this.log(trx, deployment, 'build', 'error', `Deployment failed: ${reason}`);
        });
    }

    private async announce(trx: Knex.Transaction, deployment: Deployment, resource: RuntimeResource, outcome: 'live' | 'failed', reason?: string): Promise<void> {
        await this.options.events?.emit(trx, {
            type: outcome === 'live' ? 'deployment.live' : 'deployment.failed',
            projectId: deployment.projectId,
            resource: { type: deployment.resourceType, id: resource.id, name: resource.name },
            data: {
                deploymentId: deployment.id, trigger: deployment.trigger, branch: deployment.branch, commitSha: deployment.commitSha,
                reviewAppId: deployment.reviewAppId, ...(reason ? { error: reason } : {})
            }
        });
    }

    private async log(db: Knex | Knex.Transaction, deployment: Deployment, stream: 'build', level: 'info' | 'error', message: string): Promise<void> {
        await this.options.logs.write(db, { resourceType: deployment.resourceType, resourceId: deployment.resourceId, projectId: deployment.projectId, deploymentId: deployment.id, stream, level, message });
    }

    /** The configuration a deployment is made from, recorded with it: names and sealed values, plan, commands, and the kind's own. */
    private async snapshot<R extends RuntimeResource>(db: Knex.Transaction, kind: string, adapter: DeploymentAdapter<R>, resource: R): Promise<ConfigSnapshot> {
        return {
            plan: resource.plan,
            region: resource.region,
            instances: resource.instances,
            buildCommand: resource.buildCommand,
            startCommand: resource.startCommand,
            repository: resource.repoProvider ? { provider: resource.repoProvider, repo: resource.repoName!, branch: resource.repoBranch! } : null,
            environment: await this.options.envVars.sealed(db, refOf(kind, resource)),
            processes: [],
            databases: await this.options.links.names(db, refOf(kind, resource)),
            ...await adapter.snapshot?.(db, resource)
        };
    }
}

/** What the driver acts on: the resource as recorded in a deployment's snapshot (or as it stands now). */
export function targetOf(resourceType: string, resource: RuntimeResource, config?: ConfigSnapshot): DriverTarget {
    return {
        resourceType, resourceId: resource.id, name: resource.name,
        instances: config?.instances ?? resource.instances, plan: config?.plan ?? resource.plan,
        buildCommand: config ? config.buildCommand : resource.buildCommand, startCommand: config ? config.startCommand : resource.startCommand,
        repository: config ? config.repository : resource.repoProvider ? { provider: resource.repoProvider, repo: resource.repoName!, branch: resource.repoBranch! } : null
    };
}
