import * as Boom from '@hapi/boom';
import Joi from 'joi';

import type { RouteHandlers } from '../../../lib/route-table';
import { fields } from '../../../lib/validation';
import { apiError, findInList, listUrl, nextCursor, required } from '../api';
import { formSchema, text } from '../forms';
import { page, type PageDeps } from '../page';

// OAuth clients for custom connectors, through /v1/users/me/oauth-clients: the list, registration with its one-time
// secret page, and deletion behind a confirmation page.

interface OAuthClient {
    id: string;
    name: string;
    redirectUris: string[];
    createdAt: string;
}

const CLIENTS = '/v1/users/me/oauth-clients';
const clientParams = Joi.object({ clientId: fields.id('svoc').required() });

/** One redirect URI per line of the form's text area. */
export function redirectUrisFrom(value: string): string[] {
    return value.split(/\r?\n/).map((line) => line.trim()).filter(Boolean);
}

export function oauthClientRoutes(deps: PageDeps): RouteHandlers {
    const signedIn = { signedIn: true };
    const newTitle = 'Register an OAuth client';
    return {
        'dashboard.oauthClients': {
            validate: { query: Joi.object({ cursor: text(200) }) },
            handler: page(deps, async (p) => {
                const answer = await p.api.call<OAuthClient[]>('GET', listUrl(CLIENTS, (p.request.query as { cursor?: string }).cursor));
                return p.view('oauth-clients', { title: 'OAuth clients', clients: required(answer), next: nextCursor(answer) });
            }, signedIn)
        },
        'dashboard.oauthClients.new': {
            handler: page(deps, async (p) => p.view('oauth-client-new', { title: newTitle }), signedIn)
        },
        'dashboard.oauthClients.create': {
            validate: { payload: formSchema({ name: text(), redirectUris: text(24 * 1024) }) },
            handler: page(deps, async (p) => {
                const { name, redirectUris } = p.request.payload as { name: string; redirectUris?: string };
                const answer = await p.api.call<{ client: unknown; clientSecret: string }>('POST', CLIENTS, { name, redirectUris: redirectUrisFrom(redirectUris ?? '') });
                if (answer.status === 201) {
                    return p.view('oauth-client-created', { title: 'OAuth client registered', client: answer.body.client, secret: answer.body.clientSecret }, 201);
                }

                return p.view('oauth-client-new', { title: newTitle, name, redirectUris, error: apiError(answer).message }, apiError(answer).status);
            }, signedIn)
        },
        'dashboard.oauthClients.deleteConfirm': {
            validate: { params: clientParams },
            handler: page(deps, async (p) => {
                const client = await findInList<OAuthClient>(p.api, CLIENTS, (candidate) => candidate.id === p.request.params.clientId);
                if (!client) {
                    throw Boom.notFound('OAuth client not found');
                }

                return p.view('oauth-client-delete', { title: `Delete ${client.name}`, client });
            }, signedIn)
        },
        'dashboard.oauthClients.delete': {
            validate: { params: clientParams, payload: formSchema({}) },
            handler: page(deps, async (p) => {
                const client = required(await p.api.call<OAuthClient>('DELETE', `${CLIENTS}/${encodeURIComponent(p.request.params.clientId as string)}`));
                return p.redirect('/dashboard/account/oauth-clients', `The OAuth client “${client.name}” is deleted, and every app connected through it is disconnected.`);
            }, signedIn)
        }
    };
}
