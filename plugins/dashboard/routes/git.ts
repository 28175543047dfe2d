import Joi from 'joi';

import type { RouteHandlers } from '../../../lib/route-table';
import { fields } from '../../../lib/validation';
import { apiError, required } from '../api';
import { contentSecurityPolicy } from '../content-policy';
import { formSchema, text } from '../forms';
import { page, type Page, type PageDeps } from '../page';
import type { Project } from './projects';

// A project's Git connections, through /v1/projects/{projectId}/connected-accounts, /v1/{provider}/connect and
// /v1/projects/{projectId}/{provider}/disconnect. Connecting sends the browser to the host, which sends it back to
// the callback page; that page completes the connection through POST /v1/{provider}/callback with the session's
// token, so the state the API issued to this session is the only one it accepts.

interface Connection {
    provider: string;
    accountLogin: string;
    accountName: string | null;
    status: string;
    createdAt: string;
}

const HOSTS = [
    { provider: 'github', label: 'GitHub' },
    { provider: 'gitlab', label: 'GitLab' },
    { provider: 'bitbucket', label: 'Bitbucket' }
] as const;

const provider = () => Joi.string().valid(...HOSTS.map((host) => host.provider)).required();
const params = Joi.object({ projectId: fields.projectId().required(), provider: provider() });
const label = (name: string) => HOSTS.find((host) => host.provider === name)?.label ?? name;

export function gitRoutes(deps: PageDeps, authorizeOrigins: readonly string[]): RouteHandlers {
    const signedIn = { signedIn: true };
    // The page's forms end in a redirect to a host: browsers check form-action on it.
    const policy = contentSecurityPolicy(authorizeOrigins);

    const gitPage = async (p: Page, projectId: string, extra: { error?: string } = {}, status = 200) => {
        const base = `/v1/projects/${encodeURIComponent(projectId)}`;
        const project = required(await p.api.call<Project>('GET', base));
        const connections = required(await p.api.call<Connection[]>('GET', `${base}/connected-accounts`));
        const hosts = HOSTS.map((host) => ({ ...host, connection: connections.find((connection) => connection.provider === host.provider) ?? null }));
        return p.view('git', { title: `Git connections · ${project.name}`, project, hosts, manage: project.role === 'owner' || project.role === 'admin', ...extra }, status)
            .header('content-security-policy', policy);
    };

    return {
        'dashboard.git': {
            validate: { params: Joi.object({ projectId: fields.projectId().required() }) },
            handler: page(deps, (p) => gitPage(p, p.request.params.projectId as string), signedIn)
        },
        'dashboard.git.connect': {
            validate: { params, payload: formSchema({}) },
            handler: page(deps, async (p) => {
                const { projectId, provider: host } = p.request.params as { projectId: string; provider: string };
                const answer = await p.api.call<{ authorizeUrl: string }>('GET', `/v1/${host}/connect?projectId=${encodeURIComponent(projectId)}`);
                if (answer.status === 200) {
                    return p.h.redirect(answer.body.authorizeUrl);
                }

                const error = apiError(answer);
                return gitPage(p, projectId, { error: error.message }, error.status);
            }, signedIn)
        },
        'dashboard.git.disconnect': {
            validate: { params, payload: formSchema({}) },
            handler: page(deps, async (p) => {
                const { projectId, provider: host } = p.request.params as { projectId: string; provider: string };
                const answer = await p.api.call<{ accountLogin: string; revoked: string }>('DELETE', `/v1/projects/${encodeURIComponent(projectId)}/${host}/disconnect`);
                if (answer.status === 200) {
                    const revoked = answer.body.revoked === 'revoked' ? ' and its token revoked there' : answer.body.revoked === 'unsupported' ? `; ${label(host)} offers no way to revoke its token, which expires on its own` : `; ${label(host)} did not confirm the revocation of its token`;
                    return p.redirect(`/dashboard/projects/${projectId}/git`, `${label(host)} (${answer.body.accountLogin}) is disconnected from the project${revoked}.`);
                }

                const error = apiError(answer);
                return gitPage(p, projectId, { error: error.message }, error.status);
            }, signedIn)
        },
        'dashboard.git.callback': {
            validate: {
                params: Joi.object({ provider: provider() }),
                query: Joi.object({ code: text(2000), state: text(100), error: text(200), error_description: text(1000) }).unknown(true)
            },
            handler: page(deps, async (p) => {
                const host = p.request.params.provider as string;
                const query = p.request.query as { code?: string; state?: string; error?: string; error_description?: string };
                if (query.error || !query.code || !query.state) {
                    const why = query.error_description || query.error || 'it sent back no authorization code';
                    return p.view('git-callback', { title: `${label(host)} was not connected`, host: label(host), message: `${label(host)} did not connect: ${why}.` }, 400);
                }

                const answer = await p.api.call<{ projectId: string; accountLogin: string }>('POST', `/v1/${host}/callback`, { code: query.code, state: query.state });
                if (answer.status === 201) {
                    return p.redirect(`/dashboard/projects/${answer.body.projectId}/git`, `${label(host)} is connected as ${answer.body.accountLogin}.`);
                }

                const error = apiError(answer);
                return p.view('git-callback', { title: `${label(host)} was not connected`, host: label(host), message: error.message }, error.status);
            }, signedIn)
        }
    };
}
