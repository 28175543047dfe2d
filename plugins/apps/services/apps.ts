import * as Boom from '@hapi/boom';
import type { Knex } from 'knex';

import { isUniqueViolation } from '../../../lib/db/errors';
import { newId } from '../../../lib/ids';
import { pageQuery, toPage, type Page } from '../../../lib/pagination';
import { PLANS, type PlanName } from '../../../lib/plans';
import type { DriverContext, DriverTarget } from '../../../lib/runtime/driver';
import { nowIso } from '../../../lib/time';
import { App } from '../models/app';
import type { AppsContext } from './context';
import type { EnvVarsService } from './env-vars';

export interface Repository {
    provider: 'github' | 'gitlab' | 'bitbucket';
    repo: string;
    branch: string;
}

export interface AppInput {
    name?: string;
    plan?: PlanName;
    region?: string;
    instances?: number;
    buildCommand?: string | null;
    startCommand?: string | null;
    repository?: Repository | null;
    autoDeploy?: boolean;
    environmentVariables?: Record<string, string | null>;
}

// Apps: the settings a deployment is made from, and the operations a runtime driver performs on a live app.
export class AppsService {
    constructor(private readonly context: AppsContext, private readonly envVars: EnvVarsService) { }

    /** Apps in the caller's projects and apps shared with them as a collaborator, newest first. */
    async list(userId: string, page: { limit: number; cursor?: string; projectId?: string }): Promise<Page<App>> {
        const query = App.query(this.context.knex);
        if (page.projectId) {
            query.where('project_id', page.projectId);
        }
        else {
            query.where((q) => q
                .whereRaw('project_id IN (SELECT project_id FROM memberships WHERE user_id = ?)', [userId])
                .orWhereRaw('id IN (SELECT resource_id FROM collaborators WHERE user_id = ? AND resource_type = \'app\')', [userId]));
        }

        return toPage(await pageQuery(query, page), page.limit);
    }

    async get(id: string): Promise<App> {
        const app = await App.query(this.context.knex).findById(id);
        if (!app) {
            throw Boom.notFound('App not found');
        }

        return app;
    }

    async create(projectId: string, input: AppInput & { name: string }): Promise<App> {
        const plan = input.plan ?? 'starter';
        this.assertInstances(plan, input.instances ?? 1);
        const now = nowIso();
        try {
            return await this.context.knex.transaction(async (trx) => {
                const app = await App.query(trx).insertAndFetch({
                    id: newId('app'), name: input.name, projectId, status: 'created', plan, region: input.region ?? 'eu-west', instances: input.instances ?? 1,
                    buildCommand: input.buildCommand ?? null, startCommand: input.startCommand ?? null, ...repositoryFields(input.repository ?? null),
                    autoDeploy: input.autoDeploy ?? false, liveDeploymentId: null, createdAt: now, updatedAt: now
                });
                await this.envVars.write(trx, app.id, input.environmentVariables ?? {});
                return app;
            });
        }
        catch (err) {
            throw isUniqueViolation(err) ? Boom.conflict(`The name ${input.name} is taken`) : err;
        }
    }

    async update(app: App, input: AppInput): Promise<App> {
        const plan = input.plan ?? app.plan;
        this.assertInstances(plan, input.instances ?? app.instances);
        const { environmentVariables, repository, ...fields } = input;
        return this.context.knex.transaction(async (trx) => {
            await this.envVars.write(trx, app.id, environmentVariables ?? {});
            return App.query(trx).patchAndFetchById(app.id, {
                ...fields, ...(repository !== undefined ? repositoryFields(repository) : {}), updatedAt: nowIso()
            });
        });
    }

    /** The app and everything it owns (deployments, logs, domains, processes, cron jobs, collaborators, ...), at once. */
    async remove(app: App): Promise<void> {
        await this.context.knex.transaction(async (trx) => {
            await trx('collaborators').where({ resource_type: 'app', resource_id: app.id }).delete();
            for (const table of ['deployments', 'log_lines', 'metric_points', 'spans']) {
                await trx(table).where('resource_id', app.id).delete();
            }

            await App.query(trx).deleteById(app.id);
        });
        await this.context.driver.stop(target(app), silentContext());
    }

    async restart(app: App): Promise<App> {
        this.assertLive(app, 'restart');
        await this.context.driver.restart(target(app), this.logContext(app));
        return App.query(this.context.knex).patchAndFetchById(app.id, { updatedAt: nowIso() });
    }

    async scale(app: App, by: number): Promise<App> {
        const instances = app.instances + by;
        this.assertInstances(app.plan, instances, 'Scaling to');
        if (app.liveDeploymentId) {
            await this.context.driver.scale(target(app), instances, this.logContext(app));
        }

        return this.moveInstances(app, instances);
    }

    async upgrade(app: App, plan: PlanName): Promise<App> {
        this.assertInstances(plan, app.instances, `The app runs`);
        return App.query(this.context.knex).patchAndFetchById(app.id, { plan, updatedAt: nowIso() });
    }

    logContext(app: App, extra: { deploymentId?: string; runId?: string } = {}, signal = new AbortController().signal): DriverContext {
        return {
            signal,
            log: (stream, level, message) => this.context.logs.write(this.context.knex, { resourceId: app.id, projectId: app.projectId, stream, level, message, ...extra })
        };
    }

    private async moveInstances(app: App, instances: number): Promise<App> {
        // Conditional on the count read, so two concurrent scalings cannot both pass the bound check.
        const moved = await App.query(this.context.knex).patch({ instances, updatedAt: nowIso() }).where({ id: app.id, instances: app.instances });
        if (!moved) {
            throw Boom.conflict('The app was scaled by another request at the same time; read it again and retry');
        }

        return this.get(app.id);
    }

    private assertLive(app: App, action: string): void {
        if (!app.liveDeploymentId) {
            throw Boom.conflict(`Cannot ${action} ${app.name}: it has no live deployment (status: ${app.status})`);
        }
    }

    private assertInstances(plan: PlanName, instances: number, what = 'Running'): void {
        const bounds = PLANS[plan];
        if (instances < bounds.minInstances || instances > bounds.maxInstances) {
            throw Boom.conflict(`${what} ${instances} instance(s) is outside the ${plan} plan's bounds (${bounds.minInstances}-${bounds.maxInstances})`);
        }
    }
}

function repositoryFields(repository: Repository | null) {
    return { repoProvider: repository?.provider ?? null, repoName: repository?.repo ?? null, repoBranch: repository?.branch ?? null };
}

export function target(app: App): DriverTarget {
    return {
        resourceType: 'app',
        resourceId: app.id,
        name: app.name,
        instances: app.instances,
        plan: app.plan,
        buildCommand: app.buildCommand,
        startCommand: app.startCommand,
        repository: app.repoProvider ? { provider: app.repoProvider, repo: app.repoName!, branch: app.repoBranch! } : null
    };
}

function silentContext(): DriverContext {
    return { signal: new AbortController().signal, log: async () => { } };
}
