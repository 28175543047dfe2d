import * as Boom from '@hapi/boom';
import type { Server } from '@hapi/hapi';
import type Joi from 'joi';
import type { Knex } from 'knex';
import type { ModelClass, PartialModelObject } from 'objection';

import { isUniqueViolation } from '../db/errors';
import { syncStoredJson } from '../db/stored-json';
import { newId } from '../ids';
import { bindRoutes, type FamilyPlugin, type RouteHandlers, type RouteTable } from '../route-table';
import type { DriverContext, LogStream } from '../runtime/driver';
import { gitUrlProblem } from '../runtime/process/source';
import { nowIso } from '../time';
import { removeOwned } from './cascade';
import { Deployment, targetOf, type DeploymentAdapter } from './deployments';
import type { RuntimeCreate, RuntimePatch } from './fields';
import { sharedHandlers } from './handlers';
import { kindRef, type KindRef, type RowLoader } from './kinds';
import type { MetricName } from './metrics';
import { refOf, type ResourceRef, type RuntimeResource } from './model';
import type { JsonField } from '../json-shape';
import type { RuntimeServices } from './services';
import type { RuntimeKind } from './spec';

// A runtime family is a kind spec, a model, a small adapter and a route table: the shared rows get their handlers
// from handlers.ts, the kind's own rows from the family's plugin, and every mechanism (deployments, logs, metrics,
// environment, collaborators, domains, scaling, search, the cascade on delete) is the same one for every kind.

/** What a kind adds to the shared mechanisms. Only `model` is required. */
export interface RuntimeAdapter<R extends RuntimeResource> extends DeploymentAdapter<R> {
    model: ModelClass<R> & RowLoader;
    fields?: { create?: Joi.PartialSchemaMap; patch?: Joi.PartialSchemaMap };
    /** Columns of the kind's own body fields, on create (`current` null) and on patch. */
    columns?(input: KindInput, context: { current: R | null; services: RuntimeServices }): PartialModelObject<R>;
    /** Public fields beyond the shared ones. */
    serialize?(row: R): Record<string, unknown>;
    /** The same fields as the database writes them (lib/json-shape.ts) into each row's list JSON (lib/db/stored-json.ts),
     * so lists are that text joined; without them a kind with `serialize` lists through serialize(). */
    jsonFields?: readonly JsonField[];
    /** Whether something measures this metric for the kind (default: the runtime driver says). */
    observes?(metric: MetricName): boolean;
    /** The kind's own cleanup, in the delete's transaction, before the shared tables are emptied. */
    beforeRemove?(trx: Knex.Transaction, row: R): Promise<void>;
    /** Told once a create or a patch is committed (a scheduled kind wakes the scheduler). */
    committed?(row: R, services: RuntimeServices): void;
    /** The streams its `/logs` route reads (default: runtime and release). */
    logStreams?: readonly LogStream[];
    /** After the delete committed (housekeeping outside the database, such as stored files no one names any more). */
    afterRemove?(row: R): Promise<void>;
}

export interface RuntimeFamily<R extends RuntimeResource> {
    kind: RuntimeKind;
    adapter: RuntimeAdapter<R>;
    services: RuntimeServices;
    resource: KindRef<R>;
    deployment: KindRef<Deployment>;
    refOf(row: R): ResourceRef;
    serialize: (row: R) => Record<string, unknown>;
    /** serialize() as the database writes it, for lists; null when the kind's own fields have no such shape. */
    jsonFields: readonly JsonField[] | null;
    serializeDeployment(row: R, deployment: Deployment): Record<string, unknown>;
    context(row: R, extra?: { deploymentId?: string; runId?: string }, signal?: AbortSignal): DriverContext;
    /** Creates one, in the caller's transaction when given (a kind creating it with its first deployment). */
    create(projectId: string, input: RuntimeCreate, trx?: Knex.Transaction): Promise<R>;
    update(row: R, input: RuntimePatch): Promise<R>;
    remove(row: R): Promise<void>;
}

/** A create or patch body with the kind's own fields beside the shared ones. */
export type KindInput = RuntimePatch & { readonly [field: string]: unknown };

// serialize()'s shared fields, in its order, as the database writes them: the kind's own go between head and tail.
const SHARED_JSON = {
    head: [
        { name: 'id', column: 'id' }, { name: 'name', column: 'name' }, { name: 'projectId', column: 'project_id' }, { name: 'status', column: 'status' },
        { name: 'plan', column: 'plan' }, { name: 'region', column: 'region' }, { name: 'instances', column: 'instances' },
        { name: 'buildCommand', column: 'build_command' }, { name: 'startCommand', column: 'start_command' },
        {
            name: 'repository', when: "r.repo_provider IS NOT NULL AND r.repo_provider <> ''",
            object: [{ name: 'provider', column: 'repo_provider' }, { name: 'repo', column: 'repo_name' }, { name: 'branch', column: 'repo_branch' }]
        },
        { name: 'autoDeploy', column: 'auto_deploy', boolean: true }, { name: 'liveDeploymentId', column: 'live_deployment_id' }
    ],
    tail: [{ name: 'createdAt', column: 'created_at' }, { name: 'updatedAt', column: 'updated_at' }]
} satisfies Record<string, JsonField[]>;

const nameKey = (kind: string) => `${kind.replace(/-(\w)/g, (_, c: string) => c.toUpperCase())}Name`;

export function runtimeFamily<R extends RuntimeResource>(kind: RuntimeKind, adapter: RuntimeAdapter<R>, services: RuntimeServices): RuntimeFamily<R> {
    const { knex } = services;
    const model = adapter.model;
    const refOfRow = (row: R) => refOf(kind.kind, row);
    const repositoryColumns = (repository: RuntimeCreate['repository'] | null) => {
        const problem = repository?.provider === 'git' ? gitUrlProblem(repository.repo, services.allowFileGit) : null;
        if (problem) {
            throw Boom.badRequest(problem);
        }

        return { repoProvider: repository?.provider ?? null, repoName: repository?.repo ?? null, repoBranch: repository?.branch ?? null };
    };
    const own = (input: RuntimeCreate | RuntimePatch, current: R | null) => adapter.columns?.(input as KindInput, { current, services }) ?? {};
    const shared = new Set(['name', 'projectId', 'plan', 'region', 'instances', 'buildCommand', 'startCommand', 'autoDeploy', 'repository', 'environmentVariables']);
    const settingsOf = (input: RuntimePatch) => Object.fromEntries(Object.entries(input).filter(([key]) => shared.has(key) && key !== 'repository' && key !== 'environmentVariables'));

    const family: RuntimeFamily<R> = {
        kind,
        adapter,
        services,
        resource: kindRef<R>(kind.kind),
        deployment: kindRef<Deployment>(kind.deploymentKind),
        refOf: refOfRow,

        serialize: (row) => ({
            id: row.id,
            name: row.name,
            projectId: row.projectId,
            status: row.status,
            plan: row.plan,
            region: row.region,
            instances: row.instances,
            buildCommand: row.buildCommand,
            startCommand: row.startCommand,
            repository: row.repoProvider ? { provider: row.repoProvider, repo: row.repoName, branch: row.repoBranch } : null,
            autoDeploy: !!row.autoDeploy,
            liveDeploymentId: row.liveDeploymentId,
            ...adapter.serialize?.(row),
            createdAt: row.createdAt,
            updatedAt: row.updatedAt
        }),

        jsonFields: adapter.serialize && !adapter.jsonFields ? null : [...SHARED_JSON.head, ...adapter.jsonFields ?? [], ...SHARED_JSON.tail],

        serializeDeployment: (row, deployment) => {
            const { environment, ...config } = deployment.config;
            return {
                id: deployment.id,
                [nameKey(kind.kind)]: row.name,
                projectId: deployment.projectId,
                status: deployment.status,
                driver: deployment.driver,
                trigger: deployment.trigger,
                rerunOf: deployment.rerunOf,
                reviewAppId: deployment.reviewAppId,
                commitSha: deployment.commitSha,
                branch: deployment.branch,
                error: deployment.error,
                configuration: { ...config, environmentVariables: environment.map((variable) => variable.name) },
                createdAt: deployment.createdAt,
                buildingAt: deployment.buildingAt,
                deployingAt: deployment.deployingAt,
                finishedAt: deployment.finishedAt,
                updatedAt: deployment.updatedAt
            };
        },

        context: (row, extra = {}, signal = new AbortController().signal) =>
            services.deployments.context({ resourceType: kind.kind, resourceId: row.id, projectId: row.projectId, ...(extra.deploymentId ? { id: extra.deploymentId } : {}) }, signal, extra.runId),

        async create(projectId, input, outer) {
            const now = nowIso();
            try {
                // Inside the caller's transaction when it gives one (a site made with its first upload): then the
                // `committed` hook waits for that transaction to commit.
                const run = (work: (trx: Knex.Transaction) => Promise<R>) => outer ? work(outer) : knex.transaction(work);
                const created = await run(async (trx) => {
                    const row = await model.query(trx).insertAndFetch({
                        id: newId(kind.idPrefix), name: input.name, projectId, status: 'created', plan: input.plan ?? 'starter', region: input.region ?? 'eu-west',
                        instances: input.instances ?? 1, buildCommand: input.buildCommand ?? null, startCommand: input.startCommand ?? null,
                        ...repositoryColumns(input.repository ?? null), autoDeploy: input.autoDeploy ?? false, liveDeploymentId: null,
                        createdAt: now, updatedAt: now, ...own(input, null)
                    } as unknown as PartialModelObject<R>) as unknown as R;
                    if (kind.edge) {
                        await services.edgeNames.claim(trx, refOfRow(row));
                    }

                    await services.envVars.write(trx, refOfRow(row), input.environmentVariables ?? {});
                    await services.allocation.record(trx, refOfRow(row), 'created', { running: false, instances: row.instances, plan: row.plan });
                    return row;
                });
                if (outer) {
                    outer.executionPromise.then(() => adapter.committed?.(created, services), () => { });
                }
                else {
                    adapter.committed?.(created, services);
                }

                return created;
            }
            catch (err) {
                throw isUniqueViolation(err) ? Boom.conflict(`The name ${input.name} is taken`) : err;
            }
        },

        async update(row, input) {
            const changed = await knex.transaction(async (trx) => {
                await services.envVars.write(trx, refOfRow(row), input.environmentVariables ?? {});
                if (input.databases) {
                    await services.links.set(trx, refOfRow(row), input.databases);
                }

                const updated = await model.query(trx).patchAndFetchById(row.id, {
                    ...settingsOf(input), ...(input.repository !== undefined ? repositoryColumns(input.repository) : {}), ...own(input, row), updatedAt: nowIso()
                }) as unknown as R;
                if (updated.plan !== row.plan || updated.instances !== row.instances) {
                    await services.allocation.record(trx, refOfRow(row), updated.plan !== row.plan ? 'plan' : 'scaled', { plan: updated.plan, instances: updated.instances });
                }

                return updated;
            });
            adapter.committed?.(changed, services);
            return changed;
        },

        async remove(row) {
            await knex.transaction(async (trx) => {
                await adapter.beforeRemove?.(trx, row);
                await removeOwned(trx, refOfRow(row));
                if (kind.edge) {
                    await services.edgeNames.release(trx, refOfRow(row));
                }

                await model.query(trx).deleteById(row.id);
                await services.allocation.record(trx, refOfRow(row), 'deleted', { running: false, instances: 0 });
            });
            // Its logs went with it: the driver's account of stopping it has nowhere to go.
            await services.deployments.driverOf(kind.kind).stop(targetOf(kind.kind, row), { signal: new AbortController().signal, log: async () => { } });
            await adapter.afterRemove?.(row);
        }
    };
    return family;
}

export interface RuntimeFamilyDefinition<R extends RuntimeResource, O> {
    name: string;
    table: RouteTable;
    kind: RuntimeKind;
    adapter: RuntimeAdapter<R>;
    dependencies?: string[];
    loaders?: Readonly<Record<string, RowLoader>>;              // models of the table's other kinds (nested ones)
    /**
     * The kind's own rows' handlers (and its jobs): everything the shared rows do not cover, and what its deployments
     * do in a review lane (which needs this server's services).
     */
    register?(server: Server, family: RuntimeFamily<R>, options: O): { routes: RouteHandlers; onReview?: DeploymentAdapter<R>['onReview']; hooks?: Partial<RuntimeAdapter<R>> };
}

/** The hapi plugin of a runtime family: shared handlers for the shared rows its table lists, its own for the rest. */
export function runtimeFamilyPlugin<R extends RuntimeResource, O extends object>(definition: RuntimeFamilyDefinition<R, O>): FamilyPlugin<O> {
    return {
        name: definition.name,
        table: definition.table,
        dependencies: ['hostless-auth', 'hostless-jobs', 'hostless-resources', ...definition.dependencies ?? []],
        async register(server, options) {
            const { services } = server.plugins['hostless-resources'];
            // One adapter per server: the hooks a kind builds from this server's services join it at registration.
            const adapter: RuntimeAdapter<R> = { ...definition.adapter };
            const family = runtimeFamily(definition.kind, adapter, services);
            const own = definition.register?.(server, family, options);
            Object.assign(adapter, own?.hooks, own?.onReview ? { onReview: own.onReview } : {});
            services.deployments.register(definition.kind.kind, adapter);
            const ids = new Set(definition.table.rows.map((row) => row.id));
            const handlers: RouteHandlers = Object.fromEntries(Object.entries(sharedHandlers(family)).filter(([id]) => ids.has(id)));
            Object.assign(handlers, own?.routes);
            bindRoutes(server, definition.table, handlers, {
                ...definition.loaders, [definition.kind.kind]: adapter.model, [definition.kind.deploymentKind]: Deployment
            });
            if (family.jsonFields) {
                await syncStoredJson(services.knex, definition.kind.table, family.jsonFields);
            }
        }
    };
}
