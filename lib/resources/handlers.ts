import * as Boom from '@hapi/boom';
import type { ReqRef, Request } from '@hapi/hapi';
import Joi from 'joi';

import { access, canSeeSecrets } from '../access';
import { throughProvider } from '../git/access';
import { respondWithJsonPage, respondWithPage } from '../list-response';
import { listQuery } from '../pagination';
import type { Permission } from '../roles';
import { route, type RouteHandlers } from '../route-table';
import { fields } from '../validation';
import { DEPLOYMENT_STATUSES, IN_PROGRESS, type Deployment, type DeploymentStatus } from './deployments';
import type { RuntimeFamily } from './family';
import { branchName, createSchema, patchSchema, scaleBody } from './fields';
import { logQuery } from './logs';
import { METRICS, metricRange, metricsQuery, type MetricName, type MetricsQuery } from './metrics';
import type { RuntimeResource } from './model';
import { PERMISSIONS } from '../roles';

// The handlers of the rows every runtime kind shares (rows.ts), keyed by the same ids. Each reads the resource (and
// deployment) the access pipeline loaded, so no handler reads a row the pipeline already read.

export const hostname = () => Joi.string().trim().lowercase().max(253).hostname().pattern(/\./, 'domain with a dot')
    .pattern(/^(?!\d+\.\d+\.\d+\.\d+$)/, 'domain name, not an IP address');
export const permissions = Joi.array().items(Joi.string().valid(...PERMISSIONS)).min(1).unique();

interface Page {
    limit: number;
    cursor?: string;
}

const reachableList = Joi.object<Page & { projectId?: string }, true>({ ...listQuery, projectId: fields.projectId() });
const deploymentList = Joi.object<Page & { status?: DeploymentStatus }, true>({ ...listQuery, status: Joi.string().valid(...DEPLOYMENT_STATUSES) });
const camel = (name: string) => name.replace(/-(\w)/g, (_, c: string) => c.toUpperCase());

/** Build statistics over a resource's deployments: counts, build durations, and when it last went live. */
export function buildStats(deployments: readonly Deployment[]) {
    const builds = deployments.filter((deployment) => deployment.finishedAt && deployment.buildingAt && deployment.deployingAt)
        .map((deployment) => Date.parse(deployment.deployingAt!) - Date.parse(deployment.buildingAt!)).sort((a, b) => a - b);
    const count = (status: DeploymentStatus) => deployments.filter((deployment) => deployment.status === status).length;
    const wentLive = deployments.filter((deployment) => (deployment.status === 'live' || deployment.status === 'superseded') && deployment.finishedAt)
        .map((deployment) => deployment.finishedAt!).sort();
    return {
        deployments: deployments.length,
        live: count('live'),
        succeeded: count('live') + count('superseded'),
        failed: count('failed'),
        inProgress: deployments.filter((deployment) => IN_PROGRESS.includes(deployment.status)).length,
        buildMs: builds.length ? {
            average: Math.round(builds.reduce((sum, value) => sum + value, 0) / builds.length),
            median: builds[Math.floor(builds.length / 2)],
            max: builds[builds.length - 1]
        } : null,
        lastDeployedAt: wentLive[wentLive.length - 1] ?? null
    };
}

/** Timings of one deployment's phases. */
export function deploymentStats(deployment: Deployment) {
    const between = (from: string | null, to: string | null) => from && to ? Date.parse(to) - Date.parse(from) : null;
    const end = deployment.finishedAt;
    return {
        deploymentId: deployment.id,
        status: deployment.status,
        driver: deployment.driver,
        queuedAt: deployment.createdAt,
        buildingAt: deployment.buildingAt,
        deployingAt: deployment.deployingAt,
        finishedAt: end,
        durationsMs: {
            queued: between(deployment.createdAt, deployment.buildingAt ?? end),
            build: between(deployment.buildingAt, deployment.deployingAt ?? end),
            deploy: between(deployment.deployingAt, end),
            total: between(deployment.createdAt, end)
        }
    };
}

export function sharedHandlers<R extends RuntimeResource>(family: RuntimeFamily<R>): RouteHandlers {
    const { kind, services, adapter } = family;
    const f = kind.family;
    const one = { [kind.param]: fields.name().required() };
    const params = Joi.object<Record<string, string>, true>(one);
    const deploymentParams = Joi.object<Record<string, string>, true>({ ...one, deploymentId: fields.id('dep').required() });
    const collaboratorParams = Joi.object<Record<string, string>, true>({ ...one, email: fields.email().required() });
    const row = family.resource;
    const ref = <Refs extends ReqRef>(request: Request<Refs>) => family.refOf(row.of(request));
    const observes = (metric: MetricName) => adapter.observes?.(metric) ?? services.deployments.driverOf(kind.kind).observes(metric);
    const deploymentLogs = (streams: Array<'build' | 'release'>) => route({
        params: deploymentParams,
        query: logQuery,
        handler: async (request) => services.logs.query({ resourceId: row.of(request).id, deploymentId: family.deployment.of(request).id, streams, order: 'oldest' }, request.query)
    });

    const handlers: RouteHandlers = {
        [`${f}.list`]: route({
            query: reachableList,
            handler: async (request, h) => {
                const { user, project, pinnedProjects } = access(request);
                const reachable = { kind: kind.kind, table: kind.table, projectColumn: 'project_id', collaborators: !!kind.collaborators };
                const who = { userId: user.id, projectId: project?.id ?? null, pinnedProjects };
                return family.jsonFields
                    ? respondWithJsonPage(request, h, await services.lists.reachableJson(reachable, who, request.query))
                    : respondWithPage(request, h, await services.lists.reachable(reachable, who, request.query, (found) => adapter.model.fromDatabaseJson(found)), family.serialize);
            }
        }),
        [`${f}.get`]: route({ params, handler: (request) => family.serialize(row.of(request)) }),
        [`${f}.create`]: route({
            payload: createSchema(adapter.fields?.create),
            handler: async (request, h) => h.response(family.serialize(await family.create(access(request).project!.id, request.payload))).code(201)
        }),
        [`${f}.patch`]: route({
            params,
            payload: patchSchema(adapter.fields?.patch),
            handler: async (request) => {
                // Databases belong to the project: a collaborator, who holds only this resource, links none.
                if (request.payload.databases && !access(request).project?.role) {
                    throw Boom.forbidden('Linking databases needs a role in the project: a collaborator holds this resource only');
                }

                return family.serialize(await family.update(row.of(request), request.payload));
            }
        }),
        [`${f}.delete`]: route({
            params,
            handler: async (request, h) => {
                await family.remove(row.of(request));
                return h.response().code(204);
            }
        }),
        [`${f}.envVars.get`]: route({
            params,
            handler: (request) => services.envVars.read(ref(request), canSeeSecrets(access(request), kind.scopes.write))
        }),
        [`${f}.domains.list`]: route({ params, handler: (request) => services.domains.list(ref(request)) }),
        [`${f}.domains.add`]: route({
            params,
            payload: Joi.object<{ domain: string }, true>({ domain: hostname().required() }),
            handler: async (request, h) => h.response(await services.domains.add(ref(request), request.payload.domain)).code(201)
        }),
        [`${f}.domains.remove`]: route({
            params,
            query: Joi.object<{ domain: string }, true>({ domain: hostname().required() }),
            handler: async (request, h) => {
                await services.domains.remove(ref(request), request.query.domain);
                return h.response().code(204);
            }
        }),
        [`${f}.collaborators.list`]: route({ params, handler: (request) => services.collaborators.list(ref(request)) }),
        [`${f}.collaborators.upsert`]: route({
            params,
            payload: Joi.object<{ email: string; permissions: Permission[] }, true>({ email: fields.email().required(), permissions: permissions.required() }),
            handler: async (request, h) => {
                const { user, resource } = access(request);
                const inviter = { id: user.id, email: user.email, member: resource?.role != null };
                const answer = await services.collaborators.upsert(ref(request), request.payload.email, request.payload.permissions, inviter);
                return h.response(answer.body).code(answer.status);
            }
        }),
        [`${f}.collaborators.remove`]: route({
            params: collaboratorParams,
            handler: async (request, h) => {
                await services.collaborators.remove(ref(request), request.params.email, access(request).user.id);
                return h.response().code(204);
            }
        }),
        [`${f}.restart`]: route({
            params,
            handler: async (request) => family.serialize(await services.scaling.restart<R>(adapter.model, kind.kind, row.of(request), family.context(row.of(request))))
        }),
        [`${f}.scaleUp`]: route({
            params,
            payload: scaleBody,
            handler: async (request) => family.serialize(await services.scaling.scale<R>(adapter.model, kind.kind, row.of(request), request.payload?.by ?? 1, family.context(row.of(request))))
        }),
        [`${f}.scaleDown`]: route({
            params,
            payload: scaleBody,
            handler: async (request) => family.serialize(await services.scaling.scale<R>(adapter.model, kind.kind, row.of(request), -(request.payload?.by ?? 1), family.context(row.of(request))))
        }),
        [`${f}.search`]: route({
            params,
            query: Joi.object<{ q: string; limit: number }, true>({ q: Joi.string().trim().min(1).max(200).required(), limit: Joi.number().integer().min(1).max(100).default(20) }),
            handler: (request) => services.search.within(ref(request), request.query.q, request.query.limit)
        }),
        [`${f}.commits.list`]: route({
            params,
            query: Joi.object<{ limit: number }, true>({ limit: Joi.number().integer().min(1).max(100).default(30) }),
            handler: async (request) => {
                const resource = row.of(request);
                const repository = await services.git.repositoryOf(resource, kind.noun, `/v1${kind.path}/${resource.name}`);
                return throughProvider(() => repository.provider.listCommits(repository.repo, { branch: repository.branch, limit: request.query.limit }));
            }
        }),
        [`${f}.deployments.list`]: route({
            params,
            query: deploymentList,
            handler: async (request, h) => {
                const resource = row.of(request);
                return respondWithPage(request, h, await services.deployments.list(resource.id, request.query), (deployment) => family.serializeDeployment(resource, deployment));
            }
        }),
        [`${f}.deployments.get`]: route({ params: deploymentParams, handler: (request) => family.serializeDeployment(row.of(request), family.deployment.of(request)) }),
        [`${f}.deployments.stats`]: route({ params: deploymentParams, handler: (request) => deploymentStats(family.deployment.of(request)) }),
        [`${f}.build.stats`]: route({
            params,
            handler: async (request) => buildStats((await services.deployments.list(row.of(request).id, { limit: 500 })).items)
        }),
        [`${f}.deployments.create`]: route({
            params,
            payload: Joi.object<{ commitSha?: string; branch?: string }, true>({
                commitSha: Joi.string().pattern(/^[0-9a-f]{7,40}$/, 'commit sha').description('The commit to deploy (default: the branch head).'),
                branch: branchName().description('The branch to deploy (default: the configured one).')
            }).allow(null),
            handler: async (request, h) => {
                const resource = row.of(request);
                const body = request.payload ?? {};
                const deployment = await services.deployments.trigger(kind.kind, resource, { trigger: 'manual', commitSha: body.commitSha, branch: body.branch });
                return h.response(family.serializeDeployment(resource, deployment)).code(201);
            }
        }),
        [`${f}.deployments.rerun`]: route({
            params: deploymentParams,
            handler: async (request, h) => {
                const resource = row.of(request);
                const deployment = await services.deployments.trigger(kind.kind, resource, { trigger: 'rerun', rerunOf: family.deployment.of(request) });
                return h.response(family.serializeDeployment(resource, deployment)).code(201);
            }
        }),
        [`${f}.deployments.logs`]: deploymentLogs(['build']),
        [`${f}.deployments.postBuildLogs`]: deploymentLogs(['release']),
        [`${f}.logs`]: route({
            params,
            query: logQuery,
            handler: (request) => services.logs.query({ resourceId: row.of(request).id, streams: adapter.logStreams ?? ['runtime', 'release'] }, request.query)
        })
    };

    handlers[`${f}.metrics.requestCountTotal`] = route({
        params,
        query: metricsQuery,
        handler: (request) => services.metrics.total(row.of(request).id, 'request-count', metricRange(request.query), observes('request-count'))
    });
    handlers[`${f}.metrics.uniqueVisitors`] = route({
        params,
        query: metricsQuery,
        handler: (request) => services.metrics.uniqueVisitors(row.of(request).id, metricRange(request.query), observes('request-count'))
    });
    handlers[`${f}.metrics.topPaths`] = route({
        params,
        query: (metricsQuery as Joi.ObjectSchema).keys({ limit: Joi.number().integer().min(1).max(100).default(20) }) as Joi.ObjectSchema<MetricsQuery & { limit: number }>,
        handler: (request) => {
            const { limit, ...range } = request.query;
            return services.metrics.topPaths(row.of(request).id, metricRange(range), limit, observes('request-count'));
        }
    });

    for (const name of Object.keys(METRICS) as MetricName[]) {
        handlers[`${f}.metrics.${camel(name)}`] = route({
            params,
            query: metricsQuery,
            handler: (request) => services.metrics.series(row.of(request).id, name, metricRange(request.query), observes(name))
        });
    }

    return handlers;
}
