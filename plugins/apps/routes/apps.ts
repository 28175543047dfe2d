import Joi from 'joi';

import { access, canSeeSecrets, resolvedId } from '../../../lib/access';
import { respondWithPage } from '../../../lib/list-response';
import { PLAN_NAMES, type PlanName } from '../../../lib/plans';
import type { RouteHandlers } from '../../../lib/route-table';
import { fields } from '../../../lib/validation';
import type { AppInput } from '../services/apps';
import type { AppsServices } from '../services';
import { createApp, list, params, patchApp } from '../schemas';
import { publicApp } from '../serializers';

export function appRoutes(services: AppsServices): RouteHandlers {
    const { apps } = services;
    const appOf = (request: Parameters<RouteHandlers[string]['handler']>[0]) => apps.get(resolvedId(request, 'app'));
    const listApps: RouteHandlers[string]['handler'] = async (request, h) => {
        const page = await apps.list(access(request).user.id, { ...request.query as { limit: number; cursor?: string }, ...(access(request).project ? { projectId: access(request).project!.id } : {}) });
        return respondWithPage(request, h, page, publicApp);
    };

    return {
        'apps.list': { validate: { query: list.keys({ projectId: fields.projectId() }) }, handler: listApps },
        'projects.apps': { validate: { params: Joi.object({ projectId: fields.projectId().required() }), query: list }, handler: listApps },
        'apps.get': {
            validate: { params: params.app },
            handler: async (request) => publicApp(await appOf(request))
        },
        'apps.create': {
            validate: { payload: createApp },
            handler: async (request, h) => {
                const app = await apps.create(access(request).project!.id, request.payload as AppInput & { name: string });
                return h.response(publicApp(app)).code(201);
            }
        },
        'apps.patch': {
            validate: { params: params.app, payload: patchApp },
            handler: async (request) => publicApp(await apps.update(await appOf(request), request.payload as AppInput))
        },
        'apps.delete': {
            validate: { params: params.app },
            handler: async (request, h) => {
                await apps.remove(await appOf(request));
                return h.response().code(204);
            }
        },
        'apps.restart': {
            validate: { params: params.app },
            handler: async (request) => publicApp(await apps.restart(await appOf(request)))
        },
        'apps.scaleUp': {
            validate: { params: params.app, payload: Joi.object({ by: Joi.number().integer().min(1).max(20).default(1) }).allow(null) },
            handler: async (request) => publicApp(await apps.scale(await appOf(request), (request.payload as { by?: number } | null)?.by ?? 1))
        },
        'apps.scaleDown': {
            validate: { params: params.app, payload: Joi.object({ by: Joi.number().integer().min(1).max(20).default(1) }).allow(null) },
            handler: async (request) => publicApp(await apps.scale(await appOf(request), -((request.payload as { by?: number } | null)?.by ?? 1)))
        },
        'apps.upgrade': {
            validate: { params: params.app, payload: Joi.object({ plan: Joi.string().valid(...PLAN_NAMES).required() }) },
            handler: async (request) => publicApp(await apps.upgrade(await appOf(request), (request.payload as { plan: PlanName }).plan))
        },
        'apps.envVars.get': {
            validate: { params: params.app },
            handler: async (request) => services.envVars.read(resolvedId(request, 'app'), canSeeSecrets(access(request), 'apps:write'))
        },
        'apps.search': {
            validate: { params: params.app, query: Joi.object({ q: Joi.string().trim().min(1).max(200).required(), limit: Joi.number().integer().min(1).max(100).default(20) }) },
            handler: async (request) => {
                const { q, limit } = request.query as { q: string; limit: number };
                return services.observability.search(await appOf(request), q, limit);
            }
        }
    };
}
