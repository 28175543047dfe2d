import Joi from 'joi';

import { access, introspection, origin } from '../../../lib/access';
import type { RouteHandlers } from '../../../lib/route-table';
import { fields } from '../../../lib/validation';
import { publicUser } from '../serializers';
import type { Services } from '../services';

export const password = () => Joi.string().min(10).max(256);

export function authRoutes(services: Services): RouteHandlers {
    return {
        'auth.register': {
            validate: {
                payload: Joi.object({ email: fields.email().required(), password: password().required(), name: fields.text(128) })
            },
            handler: async (request, h) => {
                const { user, ...session } = await services.accounts.register(request.payload as { email: string; password: string; name?: string }, origin(request));
                return h.response({ user: publicUser(user), ...session }).code(201).header('cache-control', 'no-store');
            }
        },
        'auth.login': {
            validate: {
                payload: Joi.object({ email: Joi.string().max(254).required(), password: Joi.string().max(256).required() })
            },
            handler: async (request, h) => {
                const { user, ...session } = await services.accounts.login(request.payload as { email: string; password: string }, origin(request));
                return h.response({ user: publicUser(user), ...session }).header('cache-control', 'no-store');
            }
        },
        'auth.refresh': {
            validate: {
                payload: Joi.object({ refreshToken: Joi.string().max(200).required() })
            },
            handler: async (request, h) => {
                const pair = await services.sessions.refresh((request.payload as { refreshToken: string }).refreshToken, origin(request));
                return h.response(pair).header('cache-control', 'no-store');
            }
        },
        'auth.logout': {
            handler: async (request, h) => {
                await services.knex.transaction((trx) => services.sessions.revoke(trx, access(request).credentialId, 'logout', origin(request)));
                return h.response().code(204);
            }
        },
        'auth.introspect': {
            handler: (request) => introspection(access(request))
        }
    };
}
