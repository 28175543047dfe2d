import Joi from 'joi';

import { access } from '../../../lib/access';
import { respondWithPage } from '../../../lib/list-response';
import { listQuery } from '../../../lib/pagination';
import type { RouteHandlers } from '../../../lib/route-table';
import type { Project } from '../../../lib/models/project';
import { kindRef } from '../../../lib/resources/kinds';
import { fields } from '../../../lib/validation';
import { publicProject } from '../serializers';
import type { ProjectsService } from '../services/projects';

const PROJECT = kindRef<Project>('project');

const projectParams = Joi.object({ projectId: fields.projectId().required() });

export function projectRoutes(service: ProjectsService): RouteHandlers {
    return {
        'projects.list': {
            validate: { query: Joi.object({ ...listQuery, projectId: fields.projectId() }) },
            handler: async (request, h) => {
                const page = await service.list(access(request).user.id, { ...request.query as { limit: number; cursor?: string; projectId?: string }, pinnedProjects: access(request).pinnedProjects });
                return respondWithPage(request, h, page, (project) => publicProject(project, project.role));
            }
        },
        'projects.get': {
            validate: { params: projectParams },
            handler: async (request) => {
                const { project } = access(request);
                return publicProject(PROJECT.of(request), project!.role);
            }
        },
        'projects.create': {
            validate: { payload: Joi.object({ name: fields.projectName().required() }) },
            handler: async (request, h) => {
                const project = await service.create(access(request).user.id, (request.payload as { name: string }).name);
                return h.response(publicProject(project, 'owner')).code(201);
            }
        },
        'projects.patch': {
            validate: { params: projectParams, payload: Joi.object({ name: fields.projectName().required() }) },
            handler: async (request) => {
                const { project } = access(request);
                return publicProject(await service.rename(project!.id, (request.payload as { name: string }).name), project!.role);
            }
        },
        'projects.delete': {
            validate: { params: projectParams },
            handler: async (request, h) => {
                await service.remove(access(request).project!.id);
                return h.response().code(204);
            }
        }
    };
}
