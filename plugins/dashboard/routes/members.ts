import * as Boom from '@hapi/boom';
import Joi from 'joi';

import type { RouteHandlers } from '../../../lib/route-table';
import { fields } from '../../../lib/validation';
import { apiError, findInList, required } from '../api';
import { formSchema, text } from '../forms';
import { page, type PageDeps } from '../page';
import { projectPage, projectParams, type Member, type Project } from './projects';

// Members through /v1/projects/{projectId}/members: invite by the email of an account (the same answer whether or
// not it has one: they join when they accept), change a role, remove behind a confirmation page. Who may do what is the API's decision; its refusals show on the project page.

const memberParams = Joi.object({ projectId: fields.projectId().required(), userId: fields.id('usr').required() });

const membersUrl = (projectId: string) => `/v1/projects/${encodeURIComponent(projectId)}/members`;
const projectUrl = (projectId: string) => `/dashboard/projects/${projectId}`;

export function memberRoutes(deps: PageDeps): RouteHandlers {
    const signedIn = { signedIn: true };

    return {
        'dashboard.members.invite': {
            validate: { params: projectParams, payload: formSchema({ email: text(), role: text(32) }) },
            handler: page(deps, async (p) => {
                const projectId = p.request.params.projectId as string;
                const { email, role } = p.request.payload as { email: string; role: string };
                const answer = await p.api.call<{ email: string; role: string }>('POST', membersUrl(projectId), { email, role });
                if (answer.status === 202) {
                    return p.redirect(projectUrl(projectId), `If ${answer.body.email} has an account, they are invited as ${answer.body.role}: they become a member when they accept.`);
                }

                const error = apiError(answer);
                return projectPage(p, projectId, { error: error.message, inviteEmail: email }, error.status);
            }, signedIn)
        },
        'dashboard.members.role': {
            validate: { params: memberParams, payload: formSchema({ role: text(32) }) },
            handler: page(deps, async (p) => {
                const { projectId, userId } = p.request.params as { projectId: string; userId: string };
                const answer = await p.api.call<Member>('PATCH', `${membersUrl(projectId)}/${encodeURIComponent(userId)}`, { role: (p.request.payload as { role: string }).role });
                if (answer.status === 200) {
                    return p.redirect(projectUrl(projectId), `${answer.body.email} now has the role ${answer.body.role}.`);
                }

                const error = apiError(answer);
                return projectPage(p, projectId, { error: error.message }, error.status);
            }, signedIn)
        },
        'dashboard.members.removeConfirm': {
            validate: { params: memberParams },
            handler: page(deps, async (p) => {
                const { projectId, userId } = p.request.params as { projectId: string; userId: string };
                const project = required(await p.api.call<Project>('GET', `/v1/projects/${encodeURIComponent(projectId)}`));
                const member = await findInList<Member>(p.api, membersUrl(projectId), (candidate) => candidate.userId === userId);
                if (!member) {
                    throw Boom.notFound('Member not found');
                }

                return p.view('member-remove', { title: `Remove ${member.email}`, project, member });
            }, signedIn)
        },
        'dashboard.members.remove': {
            validate: { params: memberParams, payload: formSchema({}) },
            handler: page(deps, async (p) => {
                const { projectId, userId } = p.request.params as { projectId: string; userId: string };
                const answer = await p.api.call('DELETE', `${membersUrl(projectId)}/${encodeURIComponent(userId)}`);
                if (answer.status === 204) {
                    const self = p.session.user?.id === userId;
                    return p.redirect(self ? '/dashboard/projects' : projectUrl(projectId), self ? 'You left the project.' : 'The member is removed from the project.');
                }

                const error = apiError(answer);
                return projectPage(p, projectId, { error: error.message }, error.status);
            }, signedIn)
        }
    };
}
