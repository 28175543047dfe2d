import * as Boom from '@hapi/boom';
import Joi from 'joi';

import type { RouteHandlers } from '../../../lib/route-table';
import { fields } from '../../../lib/validation';
import { apiError, findInList, listUrl, nextCursor, required } from '../api';
import { asList, formSchema, many, text } from '../forms';
import { page, type PageDeps } from '../page';
import { presets, scopeRows, servedScopes } from '../scope-picker';

// API keys through /v1/users/me/api-keys: the list with each key's health warnings, the creation form with its
// one-time token page, and revocation behind a confirmation page.

interface ApiKey {
    id: string;
    name: string;
    prefix: string;
    scopes: string[];
    expiresAt: string | null;
    lastUsedAt: string | null;
    createdAt: string;
}

interface KeyHealth {
    id: string;
    lastUsedIp: string | null;
    warnings: Array<{ code: string; message: string }>;
}

const keyParams = Joi.object({ keyId: fields.id('key').required() });
const KEYS = '/v1/users/me/api-keys';

const shown = (key: ApiKey, health?: KeyHealth) => ({
    ...key, expired: key.expiresAt !== null && Date.parse(key.expiresAt) <= Date.now(), lastUsedIp: health?.lastUsedIp ?? null, warnings: health?.warnings ?? []
});

/** A date from the form's date field means the end of that day, UTC; anything else goes to the API as typed. */
export function expiryFrom(value: string): string | null {
    if (!value) {
        return null;
    }

    return /^\d{4}-\d{2}-\d{2}$/.test(value) ? `${value}T23:59:59.999Z` : value;
}

export function keyRoutes(deps: PageDeps): RouteHandlers {
    const signedIn = { signedIn: true };

    return {
        'dashboard.keys': {
            validate: { query: Joi.object({ cursor: text(200) }) },
            handler: page(deps, async (p) => {
                // The health list pages in the same order as the key list: the same cursor gives the same keys.
                const cursor = (p.request.query as { cursor?: string }).cursor;
                const [answer, health] = await Promise.all([p.api.call<ApiKey[]>('GET', listUrl(KEYS, cursor)), p.api.call<KeyHealth[]>('GET', listUrl(`${KEYS}/health`, cursor))]);
                const byId = new Map(required(health).map((entry) => [entry.id, entry]));
                return p.view('keys', { title: 'API keys', keys: required(answer).map((key) => shown(key, byId.get(key.id))), next: nextCursor(answer) });
            }, signedIn)
        },
        'dashboard.keys.new': {
            validate: { query: Joi.object({ preset: Joi.string().max(40) }) },
            handler: page(deps, async (p) => {
                const all = presets(p.request.server);
                const chosen = all.find((preset) => preset.id === (p.request.query as { preset?: string }).preset);
                return p.view('key-new', {
                    title: 'Create an API key', scopeRows: scopeRows(chosen?.scopes ?? [], servedScopes(p.request.server)),
                    presets: all.map((preset) => ({ ...preset, current: preset === chosen })), name: chosen ? chosen.label : undefined
                });
            }, signedIn)
        },
        'dashboard.keys.create': {
            validate: { payload: formSchema({ name: text(), scopes: many(), expires: text(64) }) },
            handler: page(deps, async (p) => {
                const { name, expires } = p.request.payload as { name: string; expires?: string };
                const scopes = asList((p.request.payload as { scopes?: string | string[] }).scopes);
                const answer = await p.api.call<{ token: string; apiKey: unknown }>('POST', KEYS, { name, scopes, expiresAt: expiryFrom(expires ?? '') });
                if (answer.status === 201) {
                    return p.view('key-created', { title: 'API key created', token: answer.body.token, apiKey: answer.body.apiKey }, 201);
                }

                const error = apiError(answer);
                return p.view('key-new', {
                    title: 'Create an API key', name, expires, scopeRows: scopeRows(scopes, servedScopes(p.request.server)), presets: presets(p.request.server), error: error.message
                }, error.status);
            }, signedIn)
        },
        'dashboard.keys.revokeConfirm': {
            validate: { params: keyParams },
            handler: page(deps, async (p) => {
                const key = await findInList<ApiKey>(p.api, KEYS, (candidate) => candidate.id === p.request.params.keyId);
                if (!key) {
                    throw Boom.notFound('API key not found');
                }

                return p.view('key-revoke', { title: `Revoke ${key.name}`, key });
            }, signedIn)
        },
        'dashboard.keys.revoke': {
            validate: { params: keyParams, payload: formSchema({}) },
            handler: page(deps, async (p) => {
                const answer = await p.api.call<ApiKey>('DELETE', `${KEYS}/${encodeURIComponent(p.request.params.keyId as string)}`);
                const key = required(answer);
                return p.redirect('/dashboard/keys', `The key “${key.name}” (${key.prefix}) is revoked: it is refused from its next request.`);
            }, signedIn)
        }
    };
}
