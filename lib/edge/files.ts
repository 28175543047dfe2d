import type { ResponseObject } from '@hapi/hapi';

import type { EdgeContext, FilesTarget, TargetHandler } from './edge';
import { notFoundPage } from './pages';
import type { FileStore, StoredFile } from './store';

// The built-in handler of `files` targets: a deployment's stored files, looked up by exact path in the one
// deployment the host resolved to (so a request sees one deployment's files, whichever goes live meanwhile).
// `/` and `/dir/` answer their index.html, `/dir` redirects to `/dir/` when it is a folder, `/about` answers
// `/about.html`; a miss answers the site's own `/404.html` with status 404 (or, for a single-page app, a path
// without a file extension answers `/index.html` with 200), else a plain 404 page. Each file carries a strong ETag (its content hash: 304 on a match),
// a Cache-Control header (fingerprinted names are immutable for a year; everything else is revalidated), and its
// stored gzip variant when the client accepts gzip. Only GET and HEAD are served.
const FINGERPRINTED = /[.-][0-9a-fA-F]{8,}\.[a-z0-9]+$|[.-][A-Za-z0-9_-]{8}\.(js|css|mjs|woff2?)$/;

export function cacheControl(path: string): string {
    return FINGERPRINTED.test(path) ? 'public, max-age=31536000, immutable' : 'public, max-age=0, must-revalidate';
}

/** Whether If-None-Match names this file's tag (strong, weak, or with a content coding's suffix). */
function unmodified(header: string | undefined, tag: string): boolean {
    return !!header && header.split(/\s*,\s*/).some((candidate) => candidate === '*' || candidate.replace(/^W\//, '').replace(/-(gzip|deflate)"$/, '"') === tag);
}

export function filesHandler(store: FileStore): TargetHandler<FilesTarget> {
    const answer = (context: EdgeContext, file: StoredFile, status = 200): ResponseObject => {
        const { request, h } = context;
        const gzip = file.gzipHash !== null && request.info.acceptEncoding === 'gzip';
        const tag = `"${file.hash.slice(0, 32)}"`;
        if (status === 200 && unmodified(request.headers['if-none-match'] as string | undefined, tag)) {
            const response = h.response().code(304).header('etag', gzip ? `${tag.slice(0, -1)}-gzip"` : tag).header('cache-control', cacheControl(file.path));
            return file.gzipHash !== null ? response.vary('accept-encoding') : response;
        }

        const response = h.response(store.open(gzip ? file.gzipHash! : file.hash))
            .code(status)
            .type(file.contentType)
            .header('content-length', String(gzip ? file.gzipSize! : file.size))
            .header('cache-control', status === 200 ? cacheControl(file.path) : 'no-store');
        if (status === 200) {
            response.etag(file.hash.slice(0, 32), { weak: false, vary: true });
        }

        if (file.gzipHash !== null) {
            response.vary('accept-encoding');
        }

        return gzip ? response.compressed('gzip') : response;
    };

    return async (target, context) => {
        const { request, h, path } = context;
        if (request.method !== 'get' && request.method !== 'head') {
            return notFoundPage(h, 'This site serves files: only GET and HEAD are answered.', 405).header('allow', 'GET, HEAD');
        }

        const lookup = (candidate: string) => store.lookup(target.deploymentId, candidate);
        const found = path.endsWith('/') ? await lookup(`${path}index.html`) : await lookup(path) ?? await lookup(`${path}.html`);
        if (found) {
            return answer(context, found);
        }

        if (!path.endsWith('/') && await lookup(`${path}/index.html`)) {
            const query = request.url.search;
            return h.redirect(`${encodeURI(path)}/${query}`).code(301).header('cache-control', 'public, max-age=0, must-revalidate');
        }

        const fallback = target.spa && !/\.[^/]*$/.test(path) ? await lookup('/index.html') : null;
        if (fallback) {
            return answer(context, fallback);
        }

        const page = await lookup('/404.html');
        return page ? answer(context, page, 404) : notFoundPage(h, 'There is nothing at this address.');
    };
}
