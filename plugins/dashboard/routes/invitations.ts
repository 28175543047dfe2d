import Joi from 'joi';

import type { RouteHandlers } from '../../../lib/route-table';
import { fields } from '../../../lib/validation';
import { apiError, listUrl, nextCursor, required } from '../api';
import { formSchema, text } from '../forms';
import { page, type Page, type PageDeps } from '../page';
import { projectPage, projectParams, type Project } from './projects';

// Invitations through /v1/users/me/invitations: the signed-in user's, each accepted or declined with a button; an
// admin withdraws one their project sent from the project page (/v1/projects/{projectId}/invitations); and any
// member leaves a project behind a confirmation page (/v1/projects/{projectId}/leave).

export interface Invitation {
    id: string;
    status: 'pending' | 'expired';
    resourceType: string;
    resourceName: string;
    projectId: string;
    role: string | null;
    permissions: string[] | null;
    invitedBy: { email: string; name: string } | null;
    createdAt: string;
    expiresAt: string;
}

const INVITATIONS = '/v1/users/me/invitations';
const PAGE = '/dashboard/invitations';
const invitationParams = Joi.object({ invitationId: fields.id('inv').required() });
const sentParams = Joi.object({ projectId: fields.projectId().required(), invitationId: fields.id('inv').required() });

/** What the invitation is to, as a person reads it: `the project Website` or `the app shop`. */
export const invitationTarget = (invitation: Pick<Invitation, 'resourceType' | 'resourceName'>) => `the ${invitation.resourceType} ${invitation.resourceName}`;

export function invitationRoutes(deps: PageDeps): RouteHandlers {
    const signedIn = { signedIn: true };
    const listPage = async (p: Page, extra: { error?: string; cursor?: string } = {}, status = 200) => {
        const answer = await p.api.call<Invitation[]>('GET', listUrl(INVITATIONS, extra.cursor));
        const invitations = required(answer).map((invitation) => ({
            ...invitation, target: invitationTarget(invitation), expired: invitation.status === 'expired', grants: invitation.role ?? invitation.permissions?.join(', ')
        }));
        return p.view('invitations', { title: 'Invitations', invitations, next: nextCursor(answer), ...extra }, status);
    };

    return {
        'dashboard.invitations': {
            validate: { query: Joi.object({ cursor: text(200) }) },
            handler: page(deps, (p) => listPage(p, { cursor: (p.request.query as { cursor?: string }).cursor }), signedIn)
        },
        'dashboard.invitations.accept': {
            validate: { params: invitationParams, payload: formSchema({}) },
            handler: page(deps, async (p) => {
                const answer = await p.api.call<Invitation>('POST', `${INVITATIONS}/${encodeURIComponent(p.request.params.invitationId as string)}/accept`);
                if (answer.status !== 200) {
                    const error = apiError(answer);
                    return listPage(p, { error: error.message }, error.status);
                }

                const accepted = answer.body;
                return accepted.resourceType === 'project'
                    ? p.redirect(`/dashboard/projects/${accepted.projectId}`, `You joined the project ${accepted.resourceName} as ${accepted.role}.`)
                    : p.redirect(PAGE, `You now work on ${invitationTarget(accepted)}, with the permissions ${accepted.permissions!.join(', ')}: use it through the API with your keys.`);
            }, signedIn)
        },
        'dashboard.invitations.decline': {
            validate: { params: invitationParams, payload: formSchema({}) },
            handler: page(deps, async (p) => {
                const answer = await p.api.call('POST', `${INVITATIONS}/${encodeURIComponent(p.request.params.invitationId as string)}/decline`);
                if (answer.status === 204) {
                    return p.redirect(PAGE, 'The invitation is declined.');
                }

                const error = apiError(answer);
                return listPage(p, { error: error.message }, error.status);
            }, signedIn)
        },
        'dashboard.members.invitations.cancel': {
            validate: { params: sentParams, payload: formSchema({}) },
            handler: page(deps, async (p) => {
                const { projectId, invitationId } = p.request.params as { projectId: string; invitationId: string };
                const answer = await p.api.call('DELETE', `/v1/projects/${encodeURIComponent(projectId)}/invitations/${encodeURIComponent(invitationId)}`);
                if (answer.status === 204) {
                    return p.redirect(`/dashboard/projects/${projectId}`, 'The invitation is withdrawn.');
                }

                const error = apiError(answer);
                return projectPage(p, projectId, { error: error.message }, error.status);
            }, signedIn)
        },
        'dashboard.project.leaveConfirm': {
            validate: { params: projectParams },
            handler: page(deps, async (p) => {
                const project = required(await p.api.call<Project>('GET', `/v1/projects/${encodeURIComponent(p.request.params.projectId as string)}`));
                return p.view('project-leave', { title: `Leave ${project.name}`, project });
            }, signedIn)
        },
        'dashboard.project.leave': {
            validate: { params: projectParams, payload: formSchema({}) },
            handler: page(deps, async (p) => {
                const projectId = p.request.params.projectId as string;
                const answer = await p.api.call('POST', `/v1/projects/${encodeURIComponent(projectId)}/leave`);
                if (answer.status === 204) {
                    return p.redirect('/dashboard/projects', 'You left the project.');
                }

                const error = apiError(answer);
                return projectPage(p, projectId, { error: error.message }, error.status);
            }, signedIn)
        }
    };
}
