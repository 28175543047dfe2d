import Joi from 'joi';

import { resolvedId } from '../../../lib/access';
import { respondWithPage } from '../../../lib/list-response';
import type { RouteHandlers } from '../../../lib/route-table';
import type { AppsServices } from '../services';
import { list, logQuery, params } from '../schemas';
import { publicDeployment } from '../serializers';

type Handler = RouteHandlers[string]['handler'];
type RequestOf = Parameters<Handler>[0];

// Deployments of an app, their build and release logs, and build statistics.
export function deploymentRoutes(services: AppsServices): RouteHandlers {
    const { apps, deployments, observability } = services;
    const appOf = (request: RequestOf) => apps.get(resolvedId(request, 'app'));
    const both = async (request: RequestOf) => {
        const app = await appOf(request);
        return { app, deployment: await deployments.get(app, resolvedId(request, 'deployment')) };
    };

    const logsOf = (streams: Array<'build' | 'release'>): Handler => async (request) => {
        const { app, deployment } = await both(request);
        const query = request.query as { q?: string; level?: 'info'; since?: Date; until?: Date; limit: number };
        return services.context.logs.query({
            resourceId: app.id, deploymentId: deployment.id, streams, limit: query.limit, order: 'oldest',
            ...(query.q ? { q: query.q } : {}), ...(query.level ? { level: query.level } : {}),
            ...(query.since ? { since: query.since.toISOString() } : {}), ...(query.until ? { until: query.until.toISOString() } : {})
        });
    };

    return {
        'apps.deployments.list': {
            validate: { params: params.app, query: list.keys({ status: Joi.string().valid('queued', 'building', 'deploying', 'live', 'failed', 'canceled', 'superseded') }) },
            handler: async (request, h) => {
                const app = await appOf(request);
                return respondWithPage(request, h, await deployments.list(app, request.query as { limit: number }), (deployment) => publicDeployment(app, deployment));
            }
        },
        'apps.deployments.get': {
            validate: { params: params.deployment },
            handler: async (request) => {
                const { app, deployment } = await both(request);
                return publicDeployment(app, deployment);
            }
        },
        'apps.deployments.stats': {
            validate: { params: params.deployment },
            handler: async (request) => observability.stats((await both(request)).deployment)
        },
        'apps.build.stats': {
            validate: { params: params.app },
            handler: async (request) => observability.buildStats(await appOf(request))
        },
        'apps.deployments.create': {
            validate: {
                params: params.app,
                payload: Joi.object({ commitSha: Joi.string().pattern(/^[0-9a-f]{7,40}$/, 'commit sha'), branch: Joi.string().max(255) }).allow(null)
            },
            handler: async (request, h) => {
                const app = await appOf(request);
                const body = (request.payload ?? {}) as { commitSha?: string; branch?: string };
                return h.response(publicDeployment(app, await deployments.trigger(app, { trigger: 'manual', commitSha: body.commitSha, branch: body.branch }))).code(201);
            }
        },
        'apps.deployments.rerun': {
            validate: { params: params.deployment },
            handler: async (request, h) => {
                const app = await appOf(request);
                return h.response(publicDeployment(app, await deployments.rerun(app, resolvedId(request, 'deployment')))).code(201);
            }
        },
        'apps.deployments.logs': { validate: { params: params.deployment, query: logQuery }, handler: logsOf(['build']) },
        'apps.deployments.postBuildLogs': { validate: { params: params.deployment, query: logQuery }, handler: logsOf(['release']) }
    };
}

