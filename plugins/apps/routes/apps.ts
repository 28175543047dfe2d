import Joi from 'joi';

import { access } from '../../../lib/access';
import { respondWithJsonPage } from '../../../lib/list-response';
import { listQuery } from '../../../lib/pagination';
import { PLAN_NAMES, type PlanName } from '../../../lib/plans';
import type { RuntimeFamily } from '../../../lib/resources/family';
import { traceQuery } from '../../../lib/resources/traces';
import { route, type RouteHandlers } from '../../../lib/route-table';
import { fields } from '../../../lib/validation';
import { App } from '../models/app';
import { APP, params } from './params';

// What apps have beyond the shared runtime rows: a plan change route, a project's apps, and traces.
export function appRoutes(family: RuntimeFamily<App>): RouteHandlers {
    const { services } = family;
    return {
        'apps.upgrade': route({
            params: params.app,
            payload: Joi.object<{ plan: PlanName }, true>({ plan: Joi.string().valid(...PLAN_NAMES).required() }),
            handler: async (request) => family.serialize(await services.scaling.changePlan(App, 'app', APP.of(request), request.payload.plan))
        }),
        'projects.apps': route({
            params: Joi.object<{ projectId: string }, true>({ projectId: fields.projectId().required() }),
            query: Joi.object<{ limit: number; cursor?: string }, true>(listQuery),
            handler: async (request, h) => {
                const { user, project } = access(request);
                const reachable = { kind: 'app', table: 'apps', projectColumn: 'project_id' };
                return respondWithJsonPage(request, h, await services.lists.reachableJson(reachable, { userId: user.id, projectId: project!.id }, request.query));
            }
        }),
        'apps.traces': route({ params: params.app, query: traceQuery, handler: (request) => services.traces.query(APP.of(request).id, request.query) })
    };
}
