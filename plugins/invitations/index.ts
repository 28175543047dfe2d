import * as Boom from '@hapi/boom';
import Joi from 'joi';
import type { Knex } from 'knex';

import { access } from '../../lib/access';
import { Invitations } from '../../lib/invitations';
import { respondWithPage } from '../../lib/list-response';
import { Project } from '../../lib/models/project';
import { listQuery } from '../../lib/pagination';
import { dailyJob } from '../../lib/queue/daily';
import { bindRoutes, route, type FamilyPlugin } from '../../lib/route-table';
import { kindRef } from '../../lib/resources/kinds';
import { fields } from '../../lib/validation';
import { invitationsTable } from '../../manifest/routes/invitations';
import { leaveProject } from './leave';

// Invitations (lib/invitations.ts): the one place they are made, exposed as `invitations` for the families that add
// people (projects' members, every runtime kind's collaborators), and the routes through which the invited answer,
// admins see and withdraw what their project sent, and members leave. A daily job removes expired invitations.
export interface InvitationsPluginOptions {
    knex: Knex;
}

const PRUNE_JOB = 'invitations.prune';
const PROJECT = kindRef<Project>('project');

interface Page {
    limit: number;
    cursor?: string;
}

const page = Joi.object<Page, true>(listQuery);
const invitationId = fields.id('inv').required();
const mine = Joi.object<{ invitationId: string }, true>({ invitationId });
const ofProject = Joi.object<{ projectId: string }, true>({ projectId: fields.projectId().required() });
const sent = Joi.object<{ projectId: string; invitationId: string }, true>({ projectId: fields.projectId().required(), invitationId });

const targetOf = (project: Project) => ({ type: 'project', id: project.id, projectId: project.id, name: project.name });

export const invitationsPlugin: FamilyPlugin<InvitationsPluginOptions> = {
    name: 'hostless-invitations',
    table: invitationsTable,
    dependencies: ['hostless-auth', 'hostless-jobs', 'hostless-notifications'],
    register(server, options) {
        const auth = server.plugins['hostless-auth'];
        const queue = server.plugins['hostless-jobs'].queue;
        const invitations = new Invitations(options.knex, auth.lists, server.plugins['hostless-notifications'].outbox, () => auth.kinds());
        server.ext('onPostStart', dailyJob(queue, PRUNE_JOB, () => invitations.prune()));
        server.expose('invitations', invitations);

        const view = <T>(item: T) => item;
        bindRoutes(server, invitationsTable, {
            'invitations.list': route({
                query: page,
                handler: async (request, h) => respondWithPage(request, h, await invitations.listFor(access(request).user.id, request.query), view)
            }),
            'invitations.accept': route({
                params: mine,
                handler: (request) => invitations.accept(request.params.invitationId, access(request).user.id)
            }),
            'invitations.decline': route({
                params: mine,
                handler: async (request, h) => {
                    await invitations.decline(request.params.invitationId, access(request).user.id);
                    return h.response().code(204);
                }
            }),
            'invitations.ofProject': route({
                params: ofProject,
                query: page,
                handler: async (request, h) => respondWithPage(request, h, await invitations.listTo(targetOf(PROJECT.of(request)), request.query), view)
            }),
            'invitations.cancel': route({
                params: sent,
                handler: async (request, h) => {
                    const target = targetOf(PROJECT.of(request));
                    const canceled = await options.knex.transaction((trx) => invitations.cancel(trx, target, { id: request.params.invitationId }, access(request).user.id));
                    if (!canceled) {
                        throw Boom.notFound('Invitation not found');
                    }

                    return h.response().code(204);
                }
            }),
            'projects.leave': route({
                params: ofProject,
                handler: async (request, h) => {
                    await leaveProject(options.knex, request.params.projectId, access(request).user.id);
                    return h.response().code(204);
                }
            })
        }, { project: Project });
    }
};
