import Joi from 'joi';

import { access } from '../../../lib/access';
import { respondWithPage } from '../../../lib/list-response';
import { listQuery } from '../../../lib/pagination';
import { ROLES, type Role } from '../../../lib/roles';
import type { RouteHandlers } from '../../../lib/route-table';
import { fields } from '../../../lib/validation';
import { publicMember } from '../serializers';
import type { MembersService } from '../services/members';

const role = () => Joi.string().valid(...ROLES);
const memberParams = Joi.object({ projectId: fields.projectId().required(), userId: fields.id('usr').required() });

export function memberRoutes(service: MembersService): RouteHandlers {
    return {
        'members.list': {
            validate: { params: Joi.object({ projectId: fields.projectId().required() }), query: Joi.object(listQuery) },
            handler: async (request, h) => {
                const page = await service.list(access(request).project!.id, request.query as { limit: number; cursor?: string });
                return respondWithPage(request, h, page, publicMember);
            }
        },
        'members.add': {
            validate: {
                params: Joi.object({ projectId: fields.projectId().required() }),
                payload: Joi.object({ email: fields.email().required(), role: role().required() })
            },
            handler: async (request, h) => {
                const { project, user } = access(request);
                const sent = await service.invite(project!.id, { id: user.id, role: project!.role!, email: user.email }, request.payload as { email: string; role: Role });
                return h.response(sent).code(202);
            }
        },
        'members.patch': {
            validate: { params: memberParams, payload: Joi.object({ role: role().required() }) },
            handler: async (request) => {
                const { project } = access(request);
                return publicMember(await service.changeRole(project!.id, project!.role!, request.params.userId as string, (request.payload as { role: Role }).role));
            }
        },
        'members.remove': {
            validate: { params: memberParams },
            handler: async (request, h) => {
                const { project } = access(request);
                await service.remove(project!.id, project!.role!, request.params.userId as string);
                return h.response().code(204);
            }
        }
    };
}
