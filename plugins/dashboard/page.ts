import * as Boom from '@hapi/boom';
import type { Lifecycle, Request, ResponseObject, ResponseToolkit } from '@hapi/hapi';

import { Api, SignedOut, type ApiOptions } from './api';
import { LOCAL_PATH } from './forms';
import { Session } from './session';

// A page handler gets a Page: the visitor's session, the API client acting for them, and the means to answer with
// a view, a redirect or an error shown on the page. The session cookie is written back whatever the outcome, so a
// refreshed token pair is never lost (its predecessor is already spent).

export type Section = 'projects' | 'keys' | 'docs' | 'account';

export type PageDeps = Omit<ApiOptions, 'remoteAddress'>;

export class Page {
    readonly session: Session;
    readonly api: Api;

    constructor(deps: PageDeps, readonly request: Request, readonly h: ResponseToolkit) {
        this.session = Session.of(request);
        this.api = new Api({ ...deps, remoteAddress: request.clientAddress() ?? request.info.remoteAddress }, this.session);
    }

    /** The view with the layout's context. A read-only page (`forms: false`) hands a visitor no form token. */
    view(template: string, context: Record<string, unknown>, status = 200, options: { forms: boolean } = { forms: true }): ResponseObject {
        const layout = layoutContext(this.session, this.request, { notice: options.forms, forms: options.forms });
        return this.h.view(template, { ...layout, ...context }).code(status);
    }

    redirect(location: string, notice?: string): ResponseObject {
        if (notice) {
            this.session.notify(notice);
        }

        return this.h.redirect(location);
    }

    /** Where a signed-out visitor goes: the sign-in page, coming back here afterwards when this was a page view. */
    toSignIn(reason?: 'ended'): ResponseObject {
        const query = new URLSearchParams();
        const here = this.request.url.pathname + this.request.url.search;
        if (this.request.method === 'get' && this.request.path !== '/dashboard' && LOCAL_PATH.test(here)) {
            query.set('next', here);
        }

        if (reason) {
            query.set('reason', reason);
        }

        const search = query.toString();
        return this.h.redirect(`/dashboard/sign-in${search ? `?${search}` : ''}`);
    }
}

/** What the layout shows: who is signed in, the form token for the sign-out button, and the pending notice. */
export function layoutContext(session: Session, request: Request, options: { notice: boolean; forms: boolean }) {
    return {
        user: session.user,
        csrf: options.forms || session.signedIn ? session.csrf : null,
        notice: options.notice ? session.takeNotice() : null,
        path: request.path
    };
}

/** An error as a page: 4xx with its message, anything else with no detail at all. */
export function errorView(h: ResponseToolkit, context: object, error: Boom.Boom): ResponseObject {
    const status = error.output.statusCode;
    const message = status < 500 ? error.output.payload.message : 'Something went wrong on our side. Please try again.';
    return h.view('error', { ...context, title: error.output.payload.error, status, message }).code(status);
}

export function page(deps: PageDeps, handler: (page: Page) => Promise<ResponseObject>, options: { signedIn?: boolean } = {}): Lifecycle.Method {
    return async (request, h) => {
        const current = new Page(deps, request, h);
        try {
            if (options.signedIn && !current.session.signedIn) {
                return current.toSignIn();
            }

            return await handler(current);
        }
        catch (err) {
            if (err instanceof SignedOut) {
                return current.toSignIn('ended');
            }

            if (Boom.isBoom(err) && !err.isServer) {
                return errorView(h, layoutContext(current.session, request, { notice: false, forms: false }), err);
            }

            throw err;
        }
        finally {
            current.session.persist(h);
        }
    };
}
