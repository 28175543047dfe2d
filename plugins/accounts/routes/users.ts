import Joi from 'joi';

import { access, origin } from '../../../lib/access';
import type { RouteHandlers } from '../../../lib/route-table';
import { fields } from '../../../lib/validation';
import { publicSshKey, publicUser } from '../serializers';
import type { Services } from '../services';
import { password } from './auth';

export function userRoutes(services: Services): RouteHandlers {
    return {
        'users.me.get': {
            handler: async (request) => publicUser(await services.accounts.get(access(request).user.id))
        },
        'users.me.patch': {
            validate: {
                payload: Joi.object({
                    name: fields.text(128),
                    password: password(),
                    currentPassword: Joi.string().max(256)
                }).with('password', 'currentPassword').min(1)
            },
            handler: async (request) => {
                const { user, credentialId } = access(request);
                return publicUser(await services.accounts.update(user.id, credentialId, request.payload as { name?: string; password?: string; currentPassword?: string }, origin(request)));
            }
        },
        'sessions.list': {
            handler: async (request) => {
                const { user, credentialId } = access(request);
                return services.sessions.list(user.id, credentialId);
            }
        },
        'sessions.delete': {
            validate: { params: Joi.object({ sessionId: fields.id('ses').required() }) },
            handler: async (request, h) => {
                const { user, credentialId } = access(request);
                await services.sessions.signOut(user.id, request.params.sessionId as string, credentialId, origin(request));
                return h.response().code(204);
            }
        },
        'sessions.revokeOthers': {
            handler: async (request) => {
                const { user, credentialId } = access(request);
                return { signedOut: await services.sessions.signOutOthers(user.id, credentialId, origin(request)) };
            }
        },
        'sshKeys.list': {
            handler: async (request) => (await services.sshKeys.list(access(request).user.id)).map(publicSshKey)
        },
        'sshKeys.create': {
            validate: {
                payload: Joi.object({ name: fields.text(128), publicKey: Joi.string().max(16_384).required() })
            },
            handler: async (request, h) => {
                const key = await services.sshKeys.add(access(request).user.id, request.payload as { name?: string; publicKey: string });
                return h.response(publicSshKey(key)).code(201);
            }
        },
        'sshKeys.delete': {
            validate: {
                params: Joi.object({ id: Joi.string().max(64).required() })
            },
            handler: async (request, h) => {
                await services.sshKeys.remove(access(request).user.id, request.params.id as string);
                return h.response().code(204);
            }
        }
    };
}
