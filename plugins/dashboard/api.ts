import type { Readable } from 'node:stream';

import * as Boom from '@hapi/boom';
import type { Server } from '@hapi/hapi';
import * as Jose from 'jose';

import { sha256Hex } from '../../lib/crypto';
import type { Session } from './session';

// No second path to the data: every page reads and changes through the REST API, in-process with server.inject(),
// sending the session's access token as `Authorization: Bearer`. Scopes, roles, validation and error messages are
// therefore exactly the API's. An access token that expired is refreshed once through POST /v1/auth/refresh.

export interface Answer<T = unknown> {
    status: number;
    body: T;
    link: string | null;                                        // the `Link: <...>; rel="next"` header of lists
}

/** The API session behind the cookie has ended (logged out elsewhere, refresh refused): the visitor signs in again. */
export class SignedOut extends Error { }

interface Tokens {
    accessToken: string;
    refreshToken: string;
}

export interface ApiOptions {
    server: Server;
    remoteAddress: string;
    refreshes: Map<string, Promise<Answer<Tokens>>>;                    // refreshes in flight, by refresh token digest
}

export class Api {
    constructor(private readonly options: ApiOptions, private readonly session: Session) { }

    /** A call without credentials: sign-in and sign-up. */
    anonymous<T = unknown>(method: string, url: string, payload?: object): Promise<Answer<T>> {
        return this.send(method, url, undefined, payload);
    }

    /** A call as the signed-in user; throws SignedOut when the API session cannot be used any more. */
    async call<T = unknown>(method: string, url: string, payload?: object): Promise<Answer<T>> {
        const tokens = this.session.tokens;
        if (!tokens) {
            throw new SignedOut();
        }

        let answer = await this.send<T>(method, url, tokens.accessToken, payload);
        if (answer.status === 401 && expired(tokens.accessToken)) {
            answer = await this.send<T>(method, url, await this.refresh(tokens.refreshToken), payload);
        }

        if (answer.status === 401) {
            this.session.clear();
            throw new SignedOut();
        }

        return answer;
    }

    /**
     * Sends a request body that is a stream (an upload): it can be read once, so a token that has run out is
     * refreshed before, never retried after.
     */
    async upload<T = unknown>(url: string, contentType: string, body: Readable): Promise<Answer<T>> {
        const tokens = this.session.tokens;
        if (!tokens) {
            throw new SignedOut();
        }

        const accessToken = expired(tokens.accessToken) ? await this.refresh(tokens.refreshToken) : tokens.accessToken;
        const answer = await this.send<T>('POST', url, accessToken, body, { 'content-type': contentType });
        if (answer.status === 401) {
            this.session.clear();
            throw new SignedOut();
        }

        return answer;
    }

    /**
     * A call with the access token the session holds now, never refreshed: a stream has sent its headers and cannot
     * write the cookie again. `expired` when the token ran out (a new request refreshes it), `ended` when the API
     * refused it otherwise (signed out, session ended).
     */
    async callAsIs<T = unknown>(method: string, url: string): Promise<Answer<T> | 'expired' | 'ended'> {
        const tokens = this.session.tokens;
        if (!tokens) {
            return 'ended';
        }

        if (expired(tokens.accessToken)) {
            return 'expired';
        }

        const answer = await this.send<T>(method, url, tokens.accessToken);
        return answer.status === 401 ? expired(tokens.accessToken) ? 'expired' : 'ended' : answer;
    }

    // Two pages of one browser can find the token expired at once; they share one refresh, since presenting a
    // refresh token twice ends the session (reuse detection).
    private async refresh(refreshToken: string): Promise<string> {
        const key = sha256Hex(refreshToken);
        let pending = this.options.refreshes.get(key);
        if (!pending) {
            pending = this.send<Tokens>('POST', '/v1/auth/refresh', undefined, { refreshToken })
                .finally(() => this.options.refreshes.delete(key));
            this.options.refreshes.set(key, pending);
        }

        const answer = await pending;
        if (answer.status !== 200) {
            this.session.clear();
            throw new SignedOut();
        }

        this.session.rotate({ accessToken: answer.body.accessToken, refreshToken: answer.body.refreshToken });
        return answer.body.accessToken;
    }

    private async send<T>(method: string, url: string, accessToken: string | undefined, payload?: object, headers: Record<string, string> = {}): Promise<Answer<T>> {
        const res = await this.options.server.inject({
            method,
            url,
            remoteAddress: this.options.remoteAddress,
            headers: { ...headers, ...(accessToken ? { authorization: `Bearer ${accessToken}` } : {}) },
            ...(payload ? { payload } : {})
        });
        const link = res.headers.link;
        return { status: res.statusCode, body: res.result as T, link: typeof link === 'string' ? link : null };
    }
}

/** The API session an access token belongs to (its `sid`), or null. */
export function sessionIdOf(accessToken: string): string | null {
    try {
        const { sid } = Jose.decodeJwt(accessToken);
        return typeof sid === 'string' ? sid : null;
    }
    catch {
        return null;
    }
}

function expired(accessToken: string): boolean {
    try {
        const { exp } = Jose.decodeJwt(accessToken);
        return typeof exp === 'number' && exp * 1000 <= Date.now();
    }
    catch {
        return false;
    }
}

/** The cursor of a list's next page, from its Link header. */
export function nextCursor(answer: Answer): string | null {
    const url = /<([^>]+)>;\s*rel="next"/.exec(answer.link ?? '')?.[1];
    return url ? new URL(url, 'http://local').searchParams.get('cursor') : null;
}

/** A page of an API list: the largest page the API gives, after `cursor`. */
export function listUrl(path: string, cursor?: string | null): string {
    return `${path}?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
}

/** Pages through an API list until an item matches; a list the API refuses throws its error. */
export async function findInList<T>(api: Api, path: string, match: (item: T) => boolean): Promise<T | null> {
    let cursor: string | null = null;
    do {
        const answer: Answer<T[]> = await api.call<T[]>('GET', listUrl(path, cursor));
        const found = required(answer).find(match);
        if (found) {
            return found;
        }

        cursor = nextCursor(answer);
    } while (cursor);

    return null;
}

/** The API's error, as the page shows it: the status it answered and its message. */
export function apiError(answer: Answer): { status: number; message: string } {
    const body = answer.body as { message?: unknown } | null;
    const message = typeof body?.message === 'string' ? body.message : 'The request could not be completed.';
    return { status: answer.status, message };
}

/** An API answer that a page cannot do without (the project it shows, say): its error becomes the page's. */
export function required<T>(answer: Answer<T>, status = 200): T {
    if (answer.status !== status) {
        const { message } = apiError(answer);
        throw new Boom.Boom(message, { statusCode: answer.status >= 400 ? answer.status : 502 });
    }

    return answer.body;
}
