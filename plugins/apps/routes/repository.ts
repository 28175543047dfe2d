import Joi from 'joi';

import { access } from '../../../lib/access';
import { route, type RouteHandlers } from '../../../lib/route-table';
import { renderServiceFile, type ServiceFileFormat } from '../../../lib/service-file/parse';
import { publicReview, type Reviews } from '../../../lib/resources/reviews';
import type { App } from '../models/app';
import { publicServiceFile, type ServiceFilesService } from '../services/service-files';
import { APP, params } from './params';

interface Content {
    content: string;
    format?: ServiceFileFormat;
}

const format = () => Joi.string().valid('yaml', 'json');
const content = Joi.object<Content, true>({ content: Joi.string().max(256 * 1024).required(), format: format() });

// What goes through the app's repository: review apps of pull requests, and the service file.
export function repositoryRoutes(reviewApps: Reviews<App>, serviceFiles: ServiceFilesService): RouteHandlers {
    const publicReviewApp = (app: App, review: Parameters<typeof publicReview>[2]) => publicReview('app', app, review);
    return {
        'apps.reviewApps.list': route({
            params: params.app,
            handler: async (request) => {
                const app = APP.of(request);
                return (await reviewApps.list(app)).map((review) => publicReviewApp(app, review));
            }
        }),
        'apps.reviewApps.pullRequests': route({ params: params.app, handler: (request) => reviewApps.pullRequests(APP.of(request)) }),
        'apps.reviewApps.trigger': route({
            params: params.app,
            payload: Joi.object<{ pullRequest: number }, true>({ pullRequest: Joi.number().integer().min(1).required() }),
            handler: async (request, h) => {
                const app = APP.of(request);
                const { review, created } = await reviewApps.trigger(app, request.payload.pullRequest);
                return h.response(publicReviewApp(app, review)).code(created ? 201 : 200);
            }
        }),
        'apps.reviewApps.extend': route({
            params: params.app,
            payload: Joi.object<{ pullRequest: number; hours: number }, true>({ pullRequest: Joi.number().integer().min(1).required(), hours: Joi.number().integer().min(1).max(720).required() }),
            handler: async (request) => publicReviewApp(APP.of(request), await reviewApps.extend(APP.of(request), request.payload.pullRequest, request.payload.hours))
        }),
        'apps.serviceFile.generate': route({
            params: params.app,
            payload: Joi.object<{ format: ServiceFileFormat }, true>({ format: format().default('yaml') }).allow(null),
            handler: async (request) => {
                const app = APP.of(request);
                const chosen = request.payload?.format ?? 'yaml';
                return { appName: app.name, format: chosen, content: renderServiceFile(await serviceFiles.generate(app), chosen) };
            }
        }),
        'apps.serviceFile.update': route({
            params: params.app,
            payload: content,
            handler: async (request, h) => {
                const app = APP.of(request);
                return h.response(publicServiceFile(app, await serviceFiles.update(app, request.payload.content, request.payload.format, access(request).user.id))).code(201);
            }
        }),
        'apps.serviceFile.commit': route({
            params: params.app,
            payload: Joi.object<{ path?: string; message?: string }, true>({
                path: Joi.string().max(255).pattern(/^(?!\/)(?!.*\.\.)[\w./-]+$/, 'repository path'), message: Joi.string().max(500)
            }).allow(null),
            handler: async (request) => {
                const app = APP.of(request);
                return publicServiceFile(app, await serviceFiles.commit(app, request.payload ?? {}, access(request).user.id));
            }
        }),
        'apps.serviceFile.calculateCosts': route({
            params: params.app,
            payload: Joi.object<Partial<Content>, true>({ content: Joi.string().max(256 * 1024), format: format() }).allow(null),
            handler: (request) => serviceFiles.costs(APP.of(request), request.payload?.content, request.payload?.format)
        }),
        'serviceFile.estimate': route({
            payload: content,
            handler: (request) => serviceFiles.costs(null, request.payload.content, request.payload.format)
        })
    };
}
