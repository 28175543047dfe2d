import type { RouteExample, RouteRow } from '../../lib/route-table';

// Rows of the dashboard's table. Examples are what a signed-out visitor without a form token gets: signed-in pages
// redirect to the sign-in page, and every form post is refused without its CSRF token.
export const signedOut: RouteExample = { status: 302 };
const noFormToken: RouteExample = { status: 403 };

export const page = (id: string, path: string, description: string, example: RouteExample = signedOut): RouteRow =>
    ({ id, method: 'GET', path, auth: 'public', description, example });

export const form = (id: string, path: string, description: string, params?: Record<string, string>): RouteRow =>
    ({ id, method: 'POST', path, auth: 'public', body: 'form', description, example: { ...noFormToken, ...(params ? { params } : {}) } });

/** A form with a file input (multipart/form-data): refused without its form token, its first part, like any form. */
export const upload = (id: string, path: string, description: string, params: Record<string, string>): RouteRow =>
    ({ id, method: 'POST', path, auth: 'public', body: 'multipart', description, example: { ...noFormToken, params, form: [{ name: 'archive', filename: 'site.tar.gz', base64: '' }] } });
