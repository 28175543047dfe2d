import Joi from 'joi';

import { access, resolvedId } from '../../../lib/access';
import type { RouteHandlers } from '../../../lib/route-table';
import type { AppsServices } from '../services';
import { providerFailure } from '../services/git';
import { publicReviewApp } from '../services/review-apps';
import { renderServiceFile } from '../../../lib/service-file/parse';
import { publicServiceFile } from '../services/service-files';
import { params } from '../schemas';

const content = Joi.object({ content: Joi.string().max(256 * 1024).required(), format: Joi.string().valid('yaml', 'json') });

type RequestOf = Parameters<RouteHandlers[string]['handler']>[0];

// What goes through the app's repository: commits, review apps of pull requests, and the service file.
export function repositoryRoutes(services: AppsServices): RouteHandlers {
    const { apps, reviewApps, serviceFiles } = services;
    const appOf = (request: RequestOf) => apps.get(resolvedId(request, 'app'));

    return {
        'apps.commits.list': {
            validate: { params: params.app, query: Joi.object({ limit: Joi.number().integer().min(1).max(100).default(30) }) },
            handler: async (request) => {
                const repository = await services.context.git.forApp(await appOf(request));
                return repository.provider.listCommits(repository.repo, { branch: repository.branch, limit: (request.query as { limit: number }).limit })
                    .catch((err) => {
                        throw providerFailure(err);
                    });
            }
        },
        'apps.reviewApps.list': {
            validate: { params: params.app },
            handler: async (request) => {
                const app = await appOf(request);
                return (await reviewApps.list(app)).map((review) => publicReviewApp(app, review));
            }
        },
        'apps.reviewApps.pullRequests': {
            validate: { params: params.app },
            handler: async (request) => reviewApps.pullRequests(await appOf(request))
        },
        'apps.reviewApps.trigger': {
            validate: { params: params.app, payload: Joi.object({ pullRequest: Joi.number().integer().min(1).required() }) },
            handler: async (request, h) => {
                const app = await appOf(request);
                const { reviewApp, created } = await reviewApps.trigger(app, (request.payload as { pullRequest: number }).pullRequest);
                return h.response(publicReviewApp(app, reviewApp)).code(created ? 201 : 200);
            }
        },
        'apps.reviewApps.extend': {
            validate: { params: params.app, payload: Joi.object({ pullRequest: Joi.number().integer().min(1).required(), hours: Joi.number().integer().min(1).max(720).required() }) },
            handler: async (request) => {
                const app = await appOf(request);
                const body = request.payload as { pullRequest: number; hours: number };
                return publicReviewApp(app, await reviewApps.extend(app, body.pullRequest, body.hours));
            }
        },
        'apps.serviceFile.generate': {
            validate: { params: params.app, payload: Joi.object({ format: Joi.string().valid('yaml', 'json').default('yaml') }).allow(null) },
            handler: async (request) => {
                const app = await appOf(request);
                const format = (request.payload as { format?: 'yaml' | 'json' } | null)?.format ?? 'yaml';
                return { appName: app.name, format, content: renderServiceFile(await serviceFiles.generate(app), format) };
            }
        },
        'apps.serviceFile.update': {
            validate: { params: params.app, payload: content },
            handler: async (request, h) => {
                const app = await appOf(request);
                const body = request.payload as { content: string; format?: 'yaml' | 'json' };
                return h.response(publicServiceFile(app, await serviceFiles.update(app, body.content, body.format, access(request).user.id))).code(201);
            }
        },
        'apps.serviceFile.commit': {
            validate: {
                params: params.app,
                payload: Joi.object({ path: Joi.string().max(255).pattern(/^(?!\/)(?!.*\.\.)[\w./-]+$/, 'repository path'), message: Joi.string().max(500) }).allow(null)
            },
            handler: async (request) => {
                const app = await appOf(request);
                return publicServiceFile(app, await serviceFiles.commit(app, (request.payload ?? {}) as { path?: string; message?: string }, access(request).user.id));
            }
        },
        'apps.serviceFile.calculateCosts': {
            validate: { params: params.app, payload: Joi.object({ content: Joi.string().max(256 * 1024), format: Joi.string().valid('yaml', 'json') }).allow(null) },
            handler: async (request) => {
                const body = (request.payload ?? {}) as { content?: string; format?: 'yaml' | 'json' };
                return serviceFiles.costs(await appOf(request), body.content, body.format);
            }
        },
        'serviceFile.estimate': {
            validate: { payload: content },
            handler: async (request) => {
                const body = request.payload as { content: string; format?: 'yaml' | 'json' };
                return serviceFiles.costs(null, body.content, body.format);
            }
        }
    };
}
