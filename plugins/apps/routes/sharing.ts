import Joi from 'joi';

import { resolvedId } from '../../../lib/access';
import type { Permission } from '../../../lib/roles';
import type { RouteHandlers } from '../../../lib/route-table';
import type { AppsServices } from '../services';
import { publicDomain } from '../services/domains';
import { params, permissions } from '../schemas';
import { fields } from '../../../lib/validation';

const hostname = () => Joi.string().trim().lowercase().max(253).hostname().pattern(/\./, 'domain with a dot').pattern(/^(?!\d+\.\d+\.\d+\.\d+$)/, 'domain name, not an IP address');

// Collaborators and custom domains of an app.
export function sharingRoutes(services: AppsServices): RouteHandlers {
    const { apps, collaborators, domains } = services;
    const appOf = (request: Parameters<RouteHandlers[string]['handler']>[0]) => apps.get(resolvedId(request, 'app'));

    return {
        'apps.collaborators.list': {
            validate: { params: params.app },
            handler: async (request) => collaborators.list(await appOf(request))
        },
        'apps.collaborators.upsert': {
            validate: { params: params.app, payload: Joi.object({ email: fields.email().required(), permissions: permissions.required() }) },
            handler: async (request) => {
                const body = request.payload as { email: string; permissions: Permission[] };
                return collaborators.upsert(await appOf(request), body.email, body.permissions);
            }
        },
        'apps.collaborators.remove': {
            validate: { params: params.collaborator },
            handler: async (request, h) => {
                await collaborators.remove(await appOf(request), request.params.email as string);
                return h.response().code(204);
            }
        },
        'apps.domains.list': {
            validate: { params: params.app },
            handler: async (request) => (await domains.list(await appOf(request))).map(publicDomain)
        },
        'apps.domains.add': {
            validate: { params: params.app, payload: Joi.object({ domain: hostname().required() }) },
            handler: async (request, h) => h.response(publicDomain(await domains.add(await appOf(request), (request.payload as { domain: string }).domain))).code(201)
        },
        'apps.domains.remove': {
            validate: { params: params.app, query: Joi.object({ domain: hostname().required() }) },
            handler: async (request, h) => {
                await domains.remove(await appOf(request), (request.query as { domain: string }).domain);
                return h.response().code(204);
            }
        }
    };
}
