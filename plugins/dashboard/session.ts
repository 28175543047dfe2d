import * as Crypto from 'node:crypto';

import * as Boom from '@hapi/boom';
import type { Request, ResponseToolkit, ServerStateCookieOptions } from '@hapi/hapi';

import { digestsEqual, sha256 } from '../../lib/crypto';

// The dashboard's session: one cookie, sealed with iron (AES-256-CBC and HMAC-SHA-256, so it can be neither read nor
// forged), HttpOnly, SameSite=Lax, Secure behind https. It holds the API session's access and refresh tokens, the
// form token that every POST must echo (CSRF), and a one-time notice for the next page. Visitors who are not signed
// in get a cookie with a form token only, so the sign-in and sign-up forms are protected too.
export const COOKIE = 'hostless_session';
/** Over https the cookie is `__Host-` prefixed: browsers then accept it only Secure, for `/`, without a Domain, so no
 * other host (a tenant's site under a parent domain included) can set or shadow it. */
export const SECURE_COOKIE = `__Host-${COOKIE}`;
export const cookieName = (secure: boolean) => secure ? SECURE_COOKIE : COOKIE;
const nameOf = (request: Request) => request.server.plugins['hostless-dashboard']?.cookie ?? COOKIE;

export interface SessionUser {
    id: string;
    email: string;
    name: string | null;
}

interface Sealed {
    csrf: string;
    accessToken?: string;
    refreshToken?: string;
    user?: SessionUser;
    notice?: string;
}

export function cookieOptions(password: string, secure: boolean): ServerStateCookieOptions {
    return {
        encoding: 'iron',
        password,
        isSecure: secure,
        isHttpOnly: true,
        isSameSite: 'Lax',
        path: '/',
        ttl: null,                                              // a browser-session cookie; the API session bounds it too
        clearInvalid: true,                                     // a cookie sealed with an old secret is dropped, not an error
        ignoreErrors: true,
        strictHeader: true
    };
}

const newFormToken = () => Crypto.randomBytes(32).toString('base64url');

export class Session {
    private dirty = false;
    private cleared = false;
    private fresh = false;

    private constructor(private data: Sealed) { }

    static of(request: Request): Session {
        const value = request.state[nameOf(request)] as Partial<Sealed> | undefined;
        if (value && typeof value === 'object' && typeof value.csrf === 'string') {
            return new Session(value as Sealed);
        }

        const fresh = new Session({ csrf: newFormToken() });
        fresh.fresh = true;
        return fresh;
    }

    /** The form token; a visitor's first one is stored only once a page hands it out. */
    get csrf(): string {
        if (this.fresh) {
            this.fresh = false;
            this.dirty = true;
        }

        return this.data.csrf;
    }

    get user(): SessionUser | null {
        return this.signedIn ? this.data.user ?? null : null;
    }

    get signedIn(): boolean {
        return !!(this.data.accessToken && this.data.refreshToken);
    }

    get tokens(): { accessToken: string; refreshToken: string } | null {
        return this.signedIn ? { accessToken: this.data.accessToken!, refreshToken: this.data.refreshToken! } : null;
    }

    /** Signing in starts a new session with a new form token: a token seen before sign-in is worth nothing after. */
    signIn(tokens: { accessToken: string; refreshToken: string }, user: SessionUser): void {
        this.data = { csrf: newFormToken(), accessToken: tokens.accessToken, refreshToken: tokens.refreshToken, user };
        this.cleared = false;
        this.fresh = false;
        this.dirty = true;
    }

    rotate(tokens: { accessToken: string; refreshToken: string }): void {
        this.data = { ...this.data, accessToken: tokens.accessToken, refreshToken: tokens.refreshToken };
        this.dirty = true;
    }

    /** Forgets the tokens and clears the cookie; the next page a visitor opens starts a new one. */
    clear(): void {
        this.data = { csrf: newFormToken() };
        this.cleared = true;
        this.fresh = false;
        this.dirty = false;
    }

    notify(notice: string): void {
        this.data = { ...this.data, notice };
        this.dirty = true;
    }

    takeNotice(): string | null {
        const notice = this.data.notice ?? null;
        if (notice) {
            const { notice: _, ...rest } = this.data;
            this.data = rest;
            this.dirty = true;
        }

        return notice;
    }

    /** Writes the cookie when it changed, or clears it. */
    persist(h: ResponseToolkit): void {
        if (this.cleared) {
            h.unstate(nameOf(h.request));
        }
        else if (this.dirty) {
            h.state(nameOf(h.request), this.data);
        }
    }
}

/** Every form post must carry the session's form token: the page that rendered the form is the only place it shows. */
export function checkFormToken(request: Request, sent: unknown = (request.payload as Record<string, unknown> | null)?.csrf): void {
    const session = request.state[nameOf(request)] as Partial<Sealed> | undefined;
    if (typeof session?.csrf !== 'string' || typeof sent !== 'string' || !digestsEqual(sha256(sent), sha256(session.csrf))) {
        throw Boom.forbidden('This form has expired or did not come from this site. Reload the page and try again.');
    }
}
