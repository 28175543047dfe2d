import Joi from 'joi';

import { isRole, ROLES, type Role } from '../../../lib/roles';
import type { RouteHandlers } from '../../../lib/route-table';
import { fields } from '../../../lib/validation';
import { apiError, listUrl, nextCursor, required } from '../api';
import { formSchema, text } from '../forms';
import { page, type Page, type PageDeps } from '../page';
import { allowed } from '../kinds';
import { resourcesAtAGlance } from '../resources';

// Projects through /v1/projects: the list with a creation form, and one project's page with its resources, its
// members (/v1/projects/{projectId}/members), the invitations it sent (to admins) and its settings. A change the API refuses is shown on the page with
// the API's status and message.

export interface Project {
    id: string;
    name: string;
    kind: string;
    role: string | null;
    createdAt: string;
}

export interface Member {
    userId: string;
    email: string;
    name: string;
    role: string;
}

/** An invitation the project sent, as its admins see it (GET /v1/projects/{projectId}/invitations). */
interface PendingInvitation {
    id: string;
    email: string;
    role: string;
    status: 'pending' | 'expired';
    expiresAt: string;
}

export const projectParams = Joi.object({ projectId: fields.projectId().required() });

/** The project page, also answered when one of its forms failed: then with the API's status and message. */
export async function projectPage(p: Page, projectId: string, extra: { error?: string; inviteEmail?: string; membersCursor?: string; appName?: string; startCommand?: string } = {}, status = 200) {
    const base = `/v1/projects/${encodeURIComponent(projectId)}`;
    const project = required(await p.api.call<Project>('GET', base));
    const members = await p.api.call<Member[]>('GET', listUrl(`${base}/members`, extra.membersCursor));
    const manage = project.role === 'owner' || project.role === 'admin';
    const invitations = manage ? required(await p.api.call<PendingInvitation[]>('GET', listUrl(`${base}/invitations`))) : [];
    return p.view('project', {
        title: project.name,
        project,
        members: required(members),
        membersNext: nextCursor(members),
        invitations: invitations.map((invitation) => ({ ...invitation, expired: invitation.status === 'expired' })),
        manage,
        personal: project.kind === 'personal',
        roles: ROLES,
        resources: await resourcesAtAGlance(p.request.server, p.api, project.id),
        canCreateApp: allowed(p.request.server, 'apps.create', isRole(project.role ?? '') ? project.role as Role : null) && project.role !== null,
        ...extra
    }, status);
}

export function projectRoutes(deps: PageDeps): RouteHandlers {
    const signedIn = { signedIn: true };
    const projectsPage = async (p: Page, extra: { error?: string; name?: string; cursor?: string } = {}, status = 200) => {
        const answer = await p.api.call<Project[]>('GET', listUrl('/v1/projects', extra.cursor));
        return p.view('projects', { title: 'Projects', projects: required(answer), next: nextCursor(answer), ...extra }, status);
    };

    return {
        'dashboard.projects': {
            validate: { query: Joi.object({ cursor: text(200) }) },
            handler: page(deps, (p) => projectsPage(p, { cursor: (p.request.query as { cursor?: string }).cursor }), signedIn)
        },
        'dashboard.projects.create': {
            validate: { payload: formSchema({ name: text() }) },
            handler: page(deps, async (p) => {
                const { name } = p.request.payload as { name: string };
                const answer = await p.api.call<Project>('POST', '/v1/projects', { name });
                if (answer.status === 201) {
                    return p.redirect(`/dashboard/projects/${answer.body.id}`, `The project “${answer.body.name}” is created; you are its owner.`);
                }

                const error = apiError(answer);
                return projectsPage(p, { error: error.message, name }, error.status);
            }, signedIn)
        },
        'dashboard.project': {
            validate: { params: projectParams, query: Joi.object({ members: text(200) }) },
            handler: page(deps, (p) => projectPage(p, p.request.params.projectId as string, { membersCursor: (p.request.query as { members?: string }).members }), signedIn)
        },
        'dashboard.project.apps.create': {
            validate: { params: projectParams, payload: formSchema({ name: text(128), startCommand: text(1024) }) },
            handler: page(deps, async (p) => {
                const projectId = p.request.params.projectId as string;
                const { name, startCommand } = p.request.payload as { name: string; startCommand?: string };
                const answer = await p.api.call<{ name: string }>('POST', '/v1/apps', { projectId, name, ...(startCommand ? { startCommand } : {}) });
                if (answer.status === 201) {
                    return p.redirect(`/dashboard/apps/${encodeURIComponent(answer.body.name)}`, `The app “${answer.body.name}” is created. Set its environment, then deploy it.`);
                }

                const error = apiError(answer);
                return projectPage(p, projectId, { error: error.message, appName: name, startCommand }, error.status);
            }, signedIn)
        },
        'dashboard.project.rename': {
            validate: { params: projectParams, payload: formSchema({ name: text() }) },
            handler: page(deps, async (p) => {
                const projectId = p.request.params.projectId as string;
                const answer = await p.api.call<Project>('PATCH', `/v1/projects/${encodeURIComponent(projectId)}`, { name: (p.request.payload as { name: string }).name });
                if (answer.status === 200) {
                    return p.redirect(`/dashboard/projects/${projectId}`, `The project is renamed to “${answer.body.name}”.`);
                }

                const error = apiError(answer);
                return projectPage(p, projectId, { error: error.message }, error.status);
            }, signedIn)
        }
    };
}
