import * as Boom from '@hapi/boom';
import type { ReqRef, Request } from '@hapi/hapi';
import Joi from 'joi';
import type { Knex } from 'knex';

import { access } from '../../lib/access';
import { compareDeployments, deploymentView, watchDeployment } from '../../lib/diagnostics/deployments';
import { diagnoseDomains } from '../../lib/diagnostics/domains';
import { auditEnvironment, compareEnvironments, current, recorded } from '../../lib/diagnostics/environment';
import { capLogs, LIST_DEFAULT, LIST_MAX, LOGS_DEFAULT, LOGS_MAX, timestampPage, WATCH_BUDGET_MS, WATCH_MAX_SECONDS } from '../../lib/diagnostics/limits';
import { preflight, type PreflightInput } from '../../lib/diagnostics/preflight';
import { projectActivity, projectOverview } from '../../lib/diagnostics/project';
import { databaseHealth, dependenciesOf, runtimeHealth, usageInsights } from '../../lib/diagnostics/resources';
import { Deployment, DEPLOYMENT_STATUSES, type DeploymentStatus } from '../../lib/resources/deployments';
import { kindRef } from '../../lib/resources/kinds';
import { LEVELS } from '../../lib/resources/logs';
import { METRICS, metricRange, metricsQuery, type MetricName } from '../../lib/resources/metrics';
import type { RuntimeResource } from '../../lib/resources/model';
import type { RuntimeKind } from '../../lib/resources/spec';
import type { LogStream } from '../../lib/runtime/driver';
import { bindRoutes, route, type FamilyPlugin, type RouteHandlers } from '../../lib/route-table';
import { fields } from '../../lib/validation';
import { DIAGNOSTIC_KINDS, DIAGNOSTIC_ROUTE_GROUPS, DOMAIN_KINDS, diagnosticsTable, type DiagnosticGroup } from '../../manifest/routes/diagnostics';

// The routes behind the MCP diagnostic tools (manifest/routes/diagnostics.ts, docs/mcp.md "Diagnostic tools"). Each
// group is served only with its flag; without it every route of the group answers 404 saying which flag is off, and
// the MCP tools turn that into `unavailable`.
export interface DiagnosticsPluginOptions {
    knex: Knex;
    developer: boolean;                                         // MCP_DEVELOPER_TOOLS_ENABLED
    context: boolean;                                           // MCP_CONTEXT_TOOLS_ENABLED
    dnsServers?: readonly string[];
    outboundAllowlist: readonly string[];
    tlsPort?: number;                                           // tests only: where domains_diagnose's TLS probe connects
    allowFileGit: boolean;
}

export const FLAGS: Readonly<Record<DiagnosticGroup, string>> = { developer: 'MCP_DEVELOPER_TOOLS_ENABLED', context: 'MCP_CONTEXT_TOOLS_ENABLED' };
export const offMessage = (group: DiagnosticGroup) => `Diagnostics are off on this API: the ${group} tools need ${FLAGS[group]} on the API as well as on the MCP server`;

const deploymentId = fields.id('dep');
const page = { limit: Joi.number().integer().min(1).max(LIST_MAX).default(LIST_DEFAULT), cursor: Joi.string().max(200) };
const BUILD_LOG_FILTERS = ['q', 'level', 'since', 'until'] as const;

interface LogArgs { q?: string; level?: typeof LEVELS[number]; since?: Date; until?: Date; limit: number }
const logQuery = Joi.object<LogArgs, true>({
    q: Joi.string().trim().min(1).max(200),
    level: Joi.string().valid(...LEVELS),
    since: fields.dateTime(),
    until: fields.dateTime(),
    limit: Joi.number().integer().min(1).max(LOGS_MAX).default(LOGS_DEFAULT)
});
interface BuildLogArgs { after?: Date; limit: number; q?: string; level?: string; since?: string; until?: string }
const buildLogQuery = Joi.object<BuildLogArgs, true>({
    after: fields.dateTime(),
    limit: Joi.number().integer().min(1).max(LOGS_MAX).default(LOGS_DEFAULT),
    q: Joi.string().max(200), level: Joi.string().max(20), since: Joi.string().max(40), until: Joi.string().max(40)
});

export const diagnosticsPlugin: FamilyPlugin<DiagnosticsPluginOptions> = {
    name: 'hostless-diagnostics',
    table: diagnosticsTable,
    dependencies: ['hostless-auth', 'hostless-resources'],
    register(server, options) {
        const { knex } = options;
        const services = () => server.plugins['hostless-resources'].services;
        const handlers: RouteHandlers = {};
        const scopes = <Refs extends ReqRef>(request: Request<Refs>) => access(request).scopes;

        for (const kind of Object.values(DIAGNOSTIC_KINDS)) {
            Object.assign(handlers, kindHandlers(kind));
        }

        function kindHandlers(kind: RuntimeKind): RouteHandlers {
            const f = `diagnostics.${kind.family}`;
            const row = kindRef<RuntimeResource>(kind.kind);
            const deployment = kindRef<Deployment>(kind.deploymentKind);
            const one = { [kind.param]: fields.name().required() };
            const params = Joi.object<Record<string, string>, true>(one);
            const deploymentParams = Joi.object<Record<string, string>, true>({ ...one, deploymentId: deploymentId.required() });
            const observes = (metric: MetricName) => services().deployments.driverOf(kind.kind).observes(metric);
            /** A deployment named beside the path's: it must be one of this resource's. */
            const another = async (resource: RuntimeResource, id: string) => {
                const found = await Deployment.query(knex).findById(id);
                if (!found || found.resourceId !== resource.id) {
                    throw Boom.notFound(`Deployment ${id} is not a deployment of the ${kind.noun} ${resource.name}`);
                }

                return found;
            };

            const own: RouteHandlers = {
                [`${f}.deployments`]: route({
                    params,
                    query: Joi.object<{ limit: number; cursor?: string; status?: DeploymentStatus }, true>({ ...page, status: Joi.string().valid(...DEPLOYMENT_STATUSES) }),
                    handler: async (request) => {
                        const found = await services().deployments.list(row.of(request).id, request.query);
                        return { outcome: 'ok', items: found.items.map(deploymentView), next: found.next };
                    }
                }),
                [`${f}.deployment`]: route({ params: deploymentParams, handler: (request) => ({ outcome: 'ok', deployment: deploymentView(deployment.of(request)) }) }),
                [`${f}.logs`]: route({
                    params,
                    query: logQuery,
                    handler: async (request) => {
                        const lines = await services().logs.query({ resourceId: row.of(request).id, streams: ['runtime', 'release'] }, request.query);
                        const { entries, capped } = capLogs(lines);
                        return { outcome: 'ok', order: 'newest', entries, count: entries.length, capped };
                    }
                }),
                [`${f}.buildLogs`]: route({
                    params: deploymentParams,
                    query: buildLogQuery,
                    handler: async (request) => {
                        const refused = BUILD_LOG_FILTERS.filter((name) => request.query[name] !== undefined);
                        if (refused.length) {
                            throw Boom.badRequest(`Build logs paginate by timestamp only ("after" and "limit"): ${refused.map((name) => `"${name}"`).join(', ')} ${refused.length > 1 ? 'are' : 'is'} not supported`);
                        }

                        const { after, limit } = request.query as { after?: Date; limit: number };
                        const scope = { resourceId: row.of(request).id, deploymentId: deployment.of(request).id, streams: ['build', 'release'] as LogStream[], order: 'oldest' as const };
                        const { entries, capped, next } = await timestampPage((since, until, max) => services().logs.query(scope, { limit: max, ...(since ? { since } : {}), ...(until ? { until } : {}) }), after, limit);
                        return { outcome: 'ok', order: 'oldest', entries, count: entries.length, capped, next };
                    }
                }),
                [`${f}.metrics`]: route({
                    params: Joi.object<Record<string, string>, true>({ ...one, metric: Joi.string().valid(...Object.keys(METRICS)).required() }),
                    query: metricsQuery,
                    handler: async (request) => {
                        const metric = request.params.metric as MetricName;
                        const range = metricRange(request.query);
                        if (!observes(metric)) {
                            return { outcome: 'unavailable', reason: `nothing measures ${metric} for this ${kind.noun}`, metric, source: 'unavailable', series: [] };
                        }

                        try {
                            const series = await services().metrics.series(row.of(request).id, metric, range, true);
                            return { outcome: 'ok', ...series, samples: series.series.length };
                        }
                        catch (err) {
                            request.log(['error', 'diagnostics'], err as Error);
                            return { outcome: 'inconclusive', metric, source: 'error', reason: 'the metrics store failed to answer', series: null };
                        }
                    }
                }),
                [`${f}.health`]: route({ params, handler: (request) => runtimeHealth(knex, row.of(request)) }),
                [`${f}.watch`]: route({
                    params: deploymentParams,
                    query: Joi.object<{ wait: number }, true>({ wait: Joi.number().integer().min(0).max(WATCH_MAX_SECONDS).default(WATCH_MAX_SECONDS) }),
                    options: { timeout: { server: WATCH_BUDGET_MS } },
                    handler: (request) => watchDeployment({
                        knex, logs: services().logs, deploymentId: deployment.of(request).id, resourceId: row.of(request).id, waitMs: request.query.wait * 1000,
                        withLogs: scopes(request).includes('logs:read')
                    })
                }),
                [`${f}.compare`]: route({
                    params: deploymentParams,
                    query: Joi.object<{ otherDeploymentId: string }, true>({ otherDeploymentId: deploymentId.required() }),
                    handler: async (request) => compareDeployments(deployment.of(request), await another(row.of(request), request.query.otherDeploymentId))
                }),
                [`${f}.environmentAudit`]: route({
                    params,
                    query: Joi.object<{ deploymentId?: string }, true>({ deploymentId }),
                    handler: async (request) => {
                        const resource = row.of(request);
                        const env = services().envVars;
                        const side = request.query.deploymentId ? recorded(await another(resource, request.query.deploymentId))
                            : current(await env.sealed(knex, { type: kind.kind, id: resource.id, name: resource.name, projectId: resource.projectId }));
                        return auditEnvironment(side, (sealed) => env.open(sealed));
                    }
                }),
                [`${f}.environmentCompare`]: route({
                    params,
                    query: Joi.object<{ deploymentId: string; otherDeploymentId?: string }, true>({ deploymentId: deploymentId.required(), otherDeploymentId: deploymentId }),
                    handler: async (request) => {
                        const resource = row.of(request);
                        const env = services().envVars;
                        const first = recorded(await another(resource, request.query.deploymentId));
                        const second = request.query.otherDeploymentId ? recorded(await another(resource, request.query.otherDeploymentId))
                            : current(await env.sealed(knex, { type: kind.kind, id: resource.id, name: resource.name, projectId: resource.projectId }));
                        return compareEnvironments(first, second, (sealed) => env.open(sealed));
                    }
                }),
                [`${f}.preflight`]: route({
                    params,
                    payload: Joi.object<PreflightInput, true>({
                        branch: Joi.string().max(255),
                        commitSha: Joi.string().max(64),
                        plan: Joi.string().max(32),
                        instances: Joi.number().integer().min(1).max(1000),
                        serviceFile: Joi.string().max(256 * 1024).allow('')
                    }).allow(null),
                    handler: (request) => {
                        const resource = row.of(request);
                        return preflight(services().git, resource, { noun: kind.noun, path: `/v1${kind.path}/${resource.name}`, allowFileGit: options.allowFileGit }, request.payload ?? {});
                    }
                }),
                [`${f}.dependencies`]: route({ params, handler: (request) => dependenciesOf(knex, { type: kind.kind, id: row.of(request).id }) }),
                [`${f}.usageInsights`]: route({
                    params,
                    query: Joi.object<{ days: number }, true>({ days: Joi.number().integer().min(1).max(31).default(7) }),
                    handler: (request) => usageInsights(services().metrics, row.of(request), (metric) => observes(metric), request.query.days)
                })
            };
            if (DOMAIN_KINDS.includes(kind)) {
                own[`${f}.domains`] = route({
                    params,
                    handler: async (request) => {
                        const resource = row.of(request);
                        const rows = await knex('domains').where({ resource_id: resource.id, resource_type: kind.kind }).orderBy('hostname').select<Array<{ hostname: string; status: string }>>('hostname', 'status');
                        const verified = rows.filter((domain) => domain.status === 'verified').map((domain) => domain.hostname);
                        return diagnoseDomains(verified, rows.length - verified.length, {
                            allowlist: options.outboundAllowlist, ...(options.dnsServers?.length ? { servers: options.dnsServers } : {}), ...(options.tlsPort ? { tlsPort: options.tlsPort } : {})
                        });
                    }
                });
            }

            return own;
        }

        const database = kindRef<{ id: string; status: string }>('database');
        const databaseParams = Joi.object<{ databaseName: string }, true>({ databaseName: fields.name().required() });
        const projectParams = Joi.object<{ projectId: string }, true>({ projectId: fields.projectId().required() });
        handlers['diagnostics.databases.health'] = route({ params: databaseParams, handler: (request) => databaseHealth(database.of(request)) });
        handlers['diagnostics.databases.dependencies'] = route({ params: databaseParams, handler: (request) => dependenciesOf(knex, { type: 'database', id: database.of(request).id }) });
        handlers['diagnostics.projects.overview'] = route({ params: projectParams, handler: (request) => projectOverview(knex, request.params.projectId, scopes(request)) });
        handlers['diagnostics.projects.activity'] = route({
            params: projectParams,
            query: Joi.object<{ limit: number; cursor?: string }, true>(page),
            handler: (request) => projectActivity(knex, services().lists, request.params.projectId, request.query)
        });

        // Each group answers only with its flag.
        for (const [id, handler] of Object.entries(handlers)) {
            const group = DIAGNOSTIC_ROUTE_GROUPS[id];
            const inner = handler.handler;
            handler.handler = function (request, h) {
                if (!options[group]) {
                    throw Boom.notFound(offMessage(group));
                }

                return inner.call(this, request, h);
            };
        }

        bindRoutes(server, diagnosticsTable, handlers);
    }
};
