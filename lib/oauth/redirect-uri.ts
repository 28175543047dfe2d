// Redirect URIs (OAuth 2.1, RFC 9700 section 2.1, RFC 8252 section 7.3): https, or http on a loopback address; never
// a fragment or user info. Registered URIs are matched exactly, except that a loopback URI's port may vary at request
// time. The assistant client's URIs are matched by prefix, with the guards of mcp-oauth.md AZ-03b. Every URI that is
// compared must be in the parser's canonical form, so `..` segments, backslashes, encoded dots and slashes, and
// upper-case hosts never reach a comparison.
export const MAX_REDIRECT_URI_LENGTH = 2048;

const LOOPBACK_HOSTS = /^(localhost|127(\.\d{1,3}){3}|\[::1\])$/;
const ENCODED_SEPARATORS = /%(2e|2f|5c)/i;

export function isLoopbackUrl(url: URL): boolean {
    return LOOPBACK_HOSTS.test(url.hostname);
}

function canonical(uri: string): URL | null {
    if (uri.length > MAX_REDIRECT_URI_LENGTH || ENCODED_SEPARATORS.test(uri)) {
        return null;
    }

    try {
        const url = new URL(uri);
        return url.href === uri ? url : null;
    }
    catch {
        return null;
    }
}

/** Why a URI cannot be a redirect URI, in a user's words, or null when it can. */
export function redirectUriProblem(uri: string): string | null {
    if (uri.includes('#')) {
        return 'must not contain a fragment (#)';
    }

    const url = canonical(uri);
    if (!url) {
        return 'must be an absolute URL in canonical form (lower-case host, no "..", no encoded slashes or dots), at most 2048 characters';
    }

    if (url.username || url.password) {
        return 'must not contain a user name or password';
    }

    if (url.protocol === 'https:' || (url.protocol === 'http:' && isLoopbackUrl(url))) {
        return null;
    }

    return 'must use https, or http on a loopback address (localhost, 127.0.0.1, [::1])';
}

const withoutPort = (url: URL) => `${url.protocol}//${url.hostname}${url.pathname}${url.search}`;

/** Exact match; a loopback URI matches with any port (RFC 8252 section 7.3). */
export function matchesRegistered(registered: string, presented: string): boolean {
    if (registered === presented) {
        return true;
    }

    const [want, got] = [canonical(registered), canonical(presented)];
    return !!want && !!got && !redirectUriProblem(presented) && isLoopbackUrl(want) && want.protocol === 'http:' &&
        withoutPort(want) === withoutPort(got);
}

/** Same scheme, host and port (a loopback port may vary), and a path under the prefix's on a segment boundary. */
export function matchesPrefix(prefix: string, presented: string): boolean {
    const [base, got] = [canonical(prefix), canonical(presented)];
    if (!base || !got || redirectUriProblem(presented) || base.protocol !== got.protocol || base.hostname !== got.hostname) {
        return false;
    }

    if (base.port !== got.port && !isLoopbackUrl(base)) {
        return false;
    }

    const path = base.pathname;
    return got.pathname === path || got.pathname.startsWith(path.endsWith('/') ? path : `${path}/`);
}
