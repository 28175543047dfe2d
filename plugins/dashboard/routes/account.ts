import Joi from 'joi';

import type { RouteHandlers } from '../../../lib/route-table';
import { formSchema, localPath, nextField, text } from '../forms';
import { apiError, type Answer } from '../api';
import { page, type Page, type PageDeps } from '../page';

// Sign up, sign in and sign out, through POST /v1/auth/register, /login and /logout.

interface Credentials {
    email: string;
    password: string;
}

const reasons: Record<string, string> = {
    'ended': 'Your session has ended. Please sign in again.',
    'signed-out': 'You are signed out.'
};

/** What signing in or up answers. */
interface SignedIn {
    user: { id: string; email: string; name?: string | null };
    accessToken: string;
    refreshToken: string;
}

export function accountRoutes(deps: PageDeps): RouteHandlers {
    const opened = async (p: Page, answer: Answer<SignedIn>, expected: number, next?: string) => {
        if (answer.status !== expected) {
            return null;
        }

        const { user, accessToken, refreshToken } = answer.body;
        p.session.signIn({ accessToken, refreshToken }, { id: user.id, email: user.email, name: user.name ?? null });
        return p.redirect(localPath(next));
    };

    return {
        'dashboard.root': { handler: (_request, h) => h.redirect('/dashboard') },
        'dashboard.home': {
            handler: page(deps, async (p) => p.h.redirect(p.session.signedIn ? '/dashboard/projects' : '/dashboard/sign-in'))
        },
        'dashboard.signIn': {
            validate: { query: Joi.object({ next: nextField(), reason: Joi.string().valid(...Object.keys(reasons)) }) },
            handler: page(deps, async (p) => {
                const { next, reason } = p.request.query as { next?: string; reason?: string };
                if (p.session.signedIn) {
                    return p.h.redirect(localPath(next));
                }

                return p.view('sign-in', { title: 'Sign in', next: next ?? '', ...(reason ? { notice: reasons[reason] } : {}) });
            })
        },
        'dashboard.signIn.submit': {
            validate: { payload: formSchema({ email: text(254), password: text(256), next: nextField() }) },
            handler: page(deps, async (p) => {
                const { email, password, next } = p.request.payload as Credentials & { next?: string };
                const answer = await p.api.anonymous<SignedIn>('POST', '/v1/auth/login', { email, password });
                return await opened(p, answer, 200, next)
                    ?? p.view('sign-in', { title: 'Sign in', email, next, error: apiError(answer).message }, answer.status);
            })
        },
        'dashboard.signUp': {
            handler: page(deps, async (p) => p.session.signedIn ? p.h.redirect('/dashboard/projects') : p.view('sign-up', { title: 'Create an account' }))
        },
        'dashboard.signUp.submit': {
            validate: { payload: formSchema({ name: text(128), email: text(254), password: text(256) }) },
            handler: page(deps, async (p) => {
                const { name, email, password } = p.request.payload as Credentials & { name: string };
                const answer = await p.api.anonymous<SignedIn>('POST', '/v1/auth/register', { email, password, ...(name ? { name } : {}) });
                return await opened(p, answer, 201)
                    ?? p.view('sign-up', { title: 'Create an account', name, email, error: apiError(answer).message }, answer.status);
            })
        },
        'dashboard.signOut': {
            validate: { payload: formSchema({}) },
            handler: page(deps, async (p) => {
                if (p.session.signedIn) {
                    await p.api.call('POST', '/v1/auth/logout');
                }

                p.session.clear();
                return p.h.redirect('/dashboard/sign-in?reason=signed-out');
            })
        }
    };
}
