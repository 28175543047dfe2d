import Joi from 'joi';

import type { RouteHandlers } from '../../../lib/route-table';
import { fields } from '../../../lib/validation';
import { listUrl, nextCursor, required } from '../api';
import { formSchema, text } from '../forms';
import { page, type PageDeps } from '../page';

// Connected AI apps, through /v1/users/me/connected-apps: each OAuth grant with its scopes and projects, and a button
// that disconnects it (refused from its next request, on the API and the MCP server).

interface ConnectedApp {
    id: string;
    client: { id: string; name: string; kind: string; host: string | null };
    scopes: string[];
    projects: Array<{ id: string; name: string | null }> | null;
    createdAt: string;
    lastUsedAt: string | null;
}

const APPS = '/v1/users/me/connected-apps';

export function connectedAppRoutes(deps: PageDeps): RouteHandlers {
    const signedIn = { signedIn: true };
    return {
        'dashboard.connectedApps': {
            validate: { query: Joi.object({ cursor: text(200) }) },
            handler: page(deps, async (p) => {
                const answer = await p.api.call<ConnectedApp[]>('GET', listUrl(APPS, (p.request.query as { cursor?: string }).cursor));
                return p.view('connected-apps', { title: 'Connected AI apps', apps: required(answer), next: nextCursor(answer) });
            }, signedIn)
        },
        'dashboard.connectedApps.revoke': {
            validate: { params: Joi.object({ grantId: fields.id('ogr').required() }), payload: formSchema({}) },
            handler: page(deps, async (p) => {
                const app = required(await p.api.call<ConnectedApp>('DELETE', `${APPS}/${encodeURIComponent(p.request.params.grantId as string)}`));
                return p.redirect('/dashboard/account/connected-apps', `${app.client.name} is disconnected: it is refused from its next request.`);
            }, signedIn)
        }
    };
}
