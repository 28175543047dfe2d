import * as Boom from '@hapi/boom';
import Joi from 'joi';

import type { RouteHandlers } from '../../../lib/route-table';
import { apiError, required, sessionIdOf, type Answer } from '../api';
import { asList, formSchema, many, text } from '../forms';
import { allowed, type TabId } from '../kinds';
import type { LiveTails, LogLine } from '../live-tail';
import { page, type Page, type PageDeps } from '../page';
import { details, loadResource, resourceHeader, type EdgeSettings, type Loaded } from '../resource-page';
import { LEVELS, logFilters, logQuery, MAX_SKIP, params, RANGES, tabContext, timings, type Deployment, type ResourceKit } from '../resource-tabs';
import { resourceFormRoutes } from './resource-forms';

// A page per resource, reached from its project: an overview with the resource's status, edge URL, live deployment
// and the actions the caller's role allows, and tabs (deployments, logs with a live tail, metrics, environment,
// domains, cron jobs, runs, worker processes, collaborators, ...: resource-tabs.ts), each read through the resource's
// API routes; the forms of the kinds' own tabs are in resource-forms.ts.

const tabParams = params.keys({ tab: Joi.string().max(32).required() });
const deploymentParams = params.keys({ deploymentId: Joi.string().max(64).required() });
const actionParams = params.keys({ action: Joi.string().max(32).required() });

export interface ResourceRouteOptions {
    edge: EdgeSettings;
    tails: LiveTails;
}

export function resourceRoutes(deps: PageDeps, options: ResourceRouteOptions): RouteHandlers {
    const signedIn = { signedIn: true };
    const { edge, tails } = options;

    const show = async (p: Page, loaded: Loaded, tab: TabId | null, context: Record<string, unknown>, status = 200) =>
        p.view('resource', { ...await resourceHeader(p, loaded, edge, tab), tab: tab ?? 'overview', [`tab_${(tab ?? 'overview').replace('-', '_')}`]: true, ...context }, status);

    const tabPage = async (p: Page, loaded: Loaded, tab: TabId, extra: Record<string, unknown> = {}, status = 200) =>
        show(p, loaded, tab, { ...await tabContext(p, loaded, tab), ...extra }, status);

    const tabOf = (loaded: Loaded, id: string): TabId => {
        const tab = loaded.kind.tabs.find((candidate) => candidate.id === id);
        if (!tab) {
            throw Boom.notFound('There is no page at this address.');
        }

        return tab.id;
    };

    /** After a form: back to the tab with a notice, or the tab again with the API's refusal. */
    const answered = async (p: Page, loaded: Loaded, tab: TabId | null, answer: Answer, ok: number[], notice: string, extra: Record<string, unknown> = {}) => {
        if (ok.includes(answer.status)) {
            return p.redirect(tab ? `${loaded.href}/${tab}` : loaded.href, notice);
        }

        const error = apiError(answer);
        return tab ? tabPage(p, loaded, tab, { error: error.message, ...extra }, error.status) : show(p, loaded, null, { details: details(loaded.resource), error: error.message }, error.status);
    };

    const loaded = (p: Page) => loadResource(p, p.request.params.kind as string, p.request.params.name as string);
    const kit: ResourceKit = { answered, loaded, tabOf, tabPage };

    return {
        ...resourceFormRoutes(deps, kit),
        'dashboard.resource': {
            validate: { params },
            handler: page(deps, async (p) => {
                const resource = await loaded(p);
                return show(p, resource, null, { details: details(resource.resource) });
            }, signedIn)
        },
        'dashboard.resource.tab': {
            validate: {
                params: tabParams,
                query: Joi.object({
                    q: text(200), level: Joi.string().valid('', ...LEVELS), since: text(40), range: Joi.string().valid(...Object.keys(RANGES)),
                    cursor: text(512), until: text(40), skip: Joi.number().integer().min(0).max(MAX_SKIP)
                })
            },
            handler: page(deps, async (p) => {
                const resource = await loaded(p);
                return tabPage(p, resource, tabOf(resource, p.request.params.tab as string));
            }, signedIn)
        },
        'dashboard.resource.deployment': {
            validate: { params: deploymentParams },
            handler: page(deps, async (p) => {
                const resource = await loaded(p);
                const server = p.request.server;
                const family = resource.kind.family;
                const path = `${resource.base}/deployments/${encodeURIComponent(p.request.params.deploymentId as string)}`;
                const deployment = required(await p.api.call<Deployment>('GET', path));
                const buildLog = required(await p.api.call<LogLine[]>('GET', `${path}/logs?limit=500`));
                const releaseLog = server.lookup(`${family}.deployments.postBuildLogs`) ? required(await p.api.call<LogLine[]>('GET', `${path}/post-build-logs?limit=500`)) : null;
                return show(p, resource, 'deployments', {
                    deployment: { ...deployment, timings: timings(deployment) },
                    buildLog: [...buildLog].reverse(),
                    releaseLog: releaseLog ? [...releaseLog].reverse() : null,
                    configuration: JSON.stringify(deployment.configuration, null, 2),
                    canRerun: allowed(server, `${family}.deployments.rerun`, resource.role),
                    tab_deployment: true, tab_deployments: false
                });
            }, signedIn)
        },
        'dashboard.resource.rerun': {
            validate: { params: deploymentParams, payload: formSchema({}) },
            handler: page(deps, async (p) => {
                const resource = await loaded(p);
                const answer = await p.api.call<{ id: string }>('POST', `${resource.base}/deployments/${encodeURIComponent(p.request.params.deploymentId as string)}/rerun`, {});
                return answered(p, resource, 'deployments', answer, [200, 201, 202], 'A rerun of that deployment is queued.');
            }, signedIn)
        },
        'dashboard.resource.logStream': {
            validate: { params, query: logQuery },
            handler: page(deps, async (p) => {
                const resource = await loaded(p);
                const filters = logFilters(p.request.query);
                const url = `${resource.base}/logs?${filters}`;
                const first = required(await p.api.call<LogLine[]>('GET', `${url}&limit=50`));
                const sessionId = sessionIdOf(p.session.tokens!.accessToken);
                if (!sessionId) {
                    return p.toSignIn('ended');
                }

                const stream = tails.open(p.request, sessionId, p.api, url, first);
                // Never compressed: a compressor would hold the events back until it had a block to send.
                return p.h.response(stream).type('text/event-stream').header('content-encoding', 'identity').header('cache-control', 'no-store').header('x-accel-buffering', 'no');
            }, signedIn)
        },
        'dashboard.resource.action': {
            validate: { params: actionParams, payload: formSchema({}) },
            handler: page(deps, async (p) => {
                const resource = await loaded(p);
                const action = resource.kind.actions.find((candidate) => candidate.id === p.request.params.action);
                if (!action || !p.request.server.lookup(action.route)) {
                    throw Boom.notFound('There is no such action.');
                }

                const answer = await p.api.call('POST', `${resource.base}${action.suffix}`, action.body);
                return answered(p, resource, null, answer, [200, 201, 202, 204], action.done);
            }, signedIn)
        },
        'dashboard.resource.deleteConfirm': {
            validate: { params },
            handler: page(deps, async (p) => {
                const resource = await loaded(p);
                return p.view('resource-delete', { ...await resourceHeader(p, resource, edge, null), title: `Delete ${resource.resource.name ?? resource.resource.id}` });
            }, signedIn)
        },
        'dashboard.resource.delete': {
            validate: { params, payload: formSchema({ confirm: text(128) }) },
            handler: page(deps, async (p) => {
                const resource = await loaded(p);
                const expected = resource.resource.name ?? resource.resource.id;
                const header = async () => ({ ...await resourceHeader(p, resource, edge, null), title: `Delete ${expected}` });
                if ((p.request.payload as { confirm?: string }).confirm !== expected) {
                    return p.view('resource-delete', { ...await header(), error: `Type the name “${expected}” exactly to confirm.` }, 400);
                }

                const answer = await p.api.call('DELETE', resource.base);
                if (answer.status === 204 || answer.status === 200 || answer.status === 202) {
                    return p.redirect(resource.project ? `/dashboard/projects/${resource.project.id}` : '/dashboard/projects', `The ${resource.kind.label} “${expected}” is deleted.`);
                }

                return p.view('resource-delete', { ...await header(), error: apiError(answer).message }, answer.status);
            }, signedIn)
        },
        'dashboard.resource.env.set': {
            validate: { params, payload: formSchema({ name: text(256), value: text(32_768) }) },
            handler: page(deps, async (p) => {
                const resource = await loaded(p);
                const { name, value } = p.request.payload as { name: string; value: string };
                const answer = await p.api.call('PATCH', resource.base, { environmentVariables: { [name]: value } });
                return answered(p, resource, 'environment', answer, [200], `The variable ${name} is set; it applies from the next deployment.`, { envName: name });
            }, signedIn)
        },
        'dashboard.resource.env.remove': {
            validate: { params, payload: formSchema({ name: text(256) }) },
            handler: page(deps, async (p) => {
                const resource = await loaded(p);
                const { name } = p.request.payload as { name: string };
                const answer = await p.api.call('PATCH', resource.base, { environmentVariables: { [name]: null } });
                return answered(p, resource, 'environment', answer, [200], `The variable ${name} is removed; it applies from the next deployment.`);
            }, signedIn)
        },
        'dashboard.resource.domains.add': {
            validate: { params, payload: formSchema({ domain: text(253) }) },
            handler: page(deps, async (p) => {
                const resource = await loaded(p);
                const { domain } = p.request.payload as { domain: string };
                const answer = await p.api.call('POST', `${resource.base}/custom-domains`, { domain });
                return answered(p, resource, 'domains', answer, [201], `${domain} is added: create the TXT record shown to verify it.`, { domainValue: domain });
            }, signedIn)
        },
        'dashboard.resource.domains.remove': {
            validate: { params, payload: formSchema({ domain: text(253) }) },
            handler: page(deps, async (p) => {
                const resource = await loaded(p);
                const { domain } = p.request.payload as { domain: string };
                const answer = await p.api.call('DELETE', `${resource.base}/custom-domains?domain=${encodeURIComponent(domain)}`);
                return answered(p, resource, 'domains', answer, [204], `${domain} is removed.`);
            }, signedIn)
        },
        'dashboard.resource.collaborators.invite': {
            validate: { params, payload: formSchema({ email: text(254), permissions: many() }) },
            handler: page(deps, async (p) => {
                const resource = await loaded(p);
                const { email } = p.request.payload as { email: string };
                const permissions = asList((p.request.payload as { permissions?: string | string[] }).permissions);
                const answer = await p.api.call('PATCH', `${resource.base}/collaborators`, { email, permissions });
                return answered(p, resource, 'collaborators', answer, [200, 202], `If ${email} has an account, it is invited; the grant starts when they accept.`, { inviteEmail: email });
            }, signedIn)
        }
    };
}
