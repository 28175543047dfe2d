import Joi from 'joi';

import type { RouteHandlers } from '../../../lib/route-table';
import { fields } from '../../../lib/validation';
import { apiError, listUrl, nextCursor, required, type Api } from '../api';
import { contentSecurityPolicy } from '../content-policy';
import { asList, formSchema, many } from '../forms';
import { page, type Page, type PageDeps } from '../page';

// The OAuth consent screen (/oauth/authorize): GET /v1/oauth/authorize sends the browser here with the pending
// authorization's id. The signed-in user sees which app asks (with its host when a metadata document names it),
// where the answer goes, the read-only scopes, and chooses every project or a few; allowing or denying goes through
// POST /v1/oauth/authorizations/{id}, whose answer is where the browser goes next.

interface Description {
    id: string;
    client: { id: string; name: string; kind: string; host: string | null };
    redirectUri: string;
    redirectHost: string;
    loopbackRedirect: boolean;
    scopes: Array<{ scope: string; description: string }>;
}

interface Project {
    id: string;
    name: string;
    kind: string;
}

const MAX_PAGES = 10;

async function memberProjects(api: Api): Promise<Project[]> {
    const projects: Project[] = [];
    let cursor: string | null = null;
    for (let pages = 0; pages < MAX_PAGES; ++pages) {
        const answer = await api.call<Project[]>('GET', listUrl('/v1/projects', cursor));
        projects.push(...required(answer));
        cursor = nextCursor(answer);
        if (!cursor) {
            break;
        }
    }

    return projects;
}

async function consentPage(p: Page, id: string, extra: { error?: string; chosen?: string[] } = {}, status = 200) {
    const request = required(await p.api.call<Description>('GET', `/v1/oauth/authorizations/${encodeURIComponent(id)}`));
    const chosen = new Set(extra.chosen ?? []);
    const projects = (await memberProjects(p.api)).map((project) => ({ ...project, checked: chosen.has(project.id) }));
    const view = p.view('consent', { title: `Connect ${request.client.name}`, request, projects, some: chosen.size > 0, ...extra }, status);
    return view.header('content-security-policy', contentSecurityPolicy([new URL(request.redirectUri).origin]));
}

export function consentRoutes(deps: PageDeps): RouteHandlers {
    const signedIn = { signedIn: true };
    return {
        'dashboard.consent': {
            validate: { query: Joi.object({ authorization: fields.id('oaz').required() }) },
            handler: page(deps, (p) => consentPage(p, (p.request.query as { authorization: string }).authorization), signedIn)
        },
        'dashboard.consent.decide': {
            validate: {
                payload: formSchema({
                    authorization: fields.id('oaz').required(),
                    decision: Joi.string().valid('allow', 'deny').required(),
                    access: Joi.string().valid('all', 'some').default('all'),
                    projects: many()
                })
            },
            handler: page(deps, async (p) => {
                const { authorization, decision, access } = p.request.payload as { authorization: string; decision: 'allow' | 'deny'; access: 'all' | 'some' };
                const projects = asList((p.request.payload as { projects?: string | string[] }).projects);
                // A checked project pins the grant even when "all" stayed selected: a slip gives the app less, never more.
                const pinned = decision === 'allow' && (access === 'some' || projects.length > 0);
                if (pinned && !projects.length) {
                    return consentPage(p, authorization, { error: 'Choose at least one project, or let the app read all of them.' }, 400);
                }

                const answer = await p.api.call<{ redirectTo: string }>('POST', `/v1/oauth/authorizations/${encodeURIComponent(authorization)}`, { decision, projects: pinned ? projects : null });
                if (answer.status === 400) {
                    return consentPage(p, authorization, { error: apiError(answer).message, chosen: projects }, 400);
                }

                return p.h.redirect(required(answer).redirectTo);
            }, signedIn)
        }
    };
}
