import Joi from 'joi';

import { resolvedId } from '../../../lib/access';
import type { RouteHandlers } from '../../../lib/route-table';
import type { AppsServices } from '../services';
import { instanceCount, params, processCommand, processName } from '../schemas';
import { publicProcess } from '../serializers';

// Worker processes of an app.
export function processRoutes(services: AppsServices): RouteHandlers {
    const { apps, processes } = services;
    const appOf = (request: Parameters<RouteHandlers[string]['handler']>[0]) => apps.get(resolvedId(request, 'app'));

    return {
        'apps.processes.list': {
            validate: { params: params.app },
            handler: async (request) => {
                const app = await appOf(request);
                return (await processes.list(app)).map((process) => publicProcess(app, process));
            }
        },
        'apps.processes.get': {
            validate: { params: params.process },
            handler: async (request) => {
                const app = await appOf(request);
                return publicProcess(app, await processes.get(app, resolvedId(request, 'worker-process')));
            }
        },
        'apps.processes.create': {
            validate: { params: params.app, payload: Joi.object({ name: processName().required(), command: processCommand().required(), instances: instanceCount }) },
            handler: async (request, h) => {
                const app = await appOf(request);
                return h.response(publicProcess(app, await processes.create(app, request.payload as { name: string; command: string; instances?: number }))).code(201);
            }
        },
        'apps.processes.patch': {
            validate: { params: params.process, payload: Joi.object({ command: processCommand(), instances: instanceCount }).min(1) },
            handler: async (request) => {
                const app = await appOf(request);
                return publicProcess(app, await processes.update(app, resolvedId(request, 'worker-process'), request.payload as { command?: string; instances?: number }));
            }
        },
        'apps.processes.delete': {
            validate: { params: params.process },
            handler: async (request, h) => {
                await processes.remove(await appOf(request), resolvedId(request, 'worker-process'));
                return h.response().code(204);
            }
        }
    };
}
