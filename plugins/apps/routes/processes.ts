import Joi from 'joi';

import { commandField, settings } from '../../../lib/resources/fields';
import { route, type RouteHandlers } from '../../../lib/route-table';
import { fields } from '../../../lib/validation';
import type { App, AppProcess } from '../models/app';
import type { ProcessesService } from '../services/processes';
import { APP, params, PROCESS } from './params';

interface ProcessInput {
    name: string;
    command: string;
    instances?: number;
}

function publicProcess(app: App, process: AppProcess) {
    return { id: process.id, appName: app.name, projectId: process.projectId, name: process.name, command: process.command, instances: process.instances, createdAt: process.createdAt, updatedAt: process.updatedAt };
}

// Worker processes of an app.
export function processRoutes(processes: ProcessesService): RouteHandlers {
    return {
        'apps.processes.list': route({
            params: params.app,
            handler: async (request) => {
                const app = APP.of(request);
                return (await processes.list(app)).map((process) => publicProcess(app, process));
            }
        }),
        'apps.processes.get': route({ params: params.process, handler: (request) => publicProcess(APP.of(request), PROCESS.of(request)) }),
        'apps.processes.create': route({
            params: params.app,
            payload: Joi.object<ProcessInput, true>({ name: fields.name().required(), command: commandField().required(), instances: settings.instances }),
            handler: async (request, h) => {
                const app = APP.of(request);
                return h.response(publicProcess(app, await processes.create(app, request.payload))).code(201);
            }
        }),
        'apps.processes.patch': route({
            params: params.process,
            payload: Joi.object<Omit<Partial<ProcessInput>, 'name'>, true>({ command: commandField(), instances: settings.instances }).min(1),
            handler: async (request) => publicProcess(APP.of(request), await processes.update(APP.of(request), PROCESS.of(request), request.payload))
        }),
        'apps.processes.delete': route({
            params: params.process,
            handler: async (request, h) => {
                await processes.remove(APP.of(request), PROCESS.of(request));
                return h.response().code(204);
            }
        })
    };
}
