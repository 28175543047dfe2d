import type { ReqRef, Request, ResponseObject, ResponseToolkit } from '@hapi/hapi';

import type { JsonPage } from './lists';
import type { Page } from './pagination';

/** A list is a JSON array; when more remain, `Link: <next url>; rel="next"` carries the cursor. */
export function respondWithPage<T, R, Refs extends ReqRef>(request: Request<Refs>, h: ResponseToolkit<Refs>, page: Page<T>, serialize: (item: T) => R) {
    return linked(request, h.response(page.items.map(serialize)), page.next);
}

/**
 * An injected request (server.inject) whose `plugins` hold this key set to true takes a list page as its JSON text,
 * `result` and payload alike: the in-process API client of the MCP server, which would otherwise get the text parsed
 * only for hapi to serialize it again into a payload nobody reads.
 */
export const JSON_TEXT_PAGES = 'jsonTextPages';

/**
 * The same answer from a page of JSON text the database keeps (lib/db/stored-json.ts): sent as it is. An injected request
 * (the dashboard in this process, tests) reads `result` as a value, so it gets the text parsed, which hapi writes back
 * to the very same text; one that asks for JSON_TEXT_PAGES gets the text.
 */
export function respondWithJsonPage<Refs extends ReqRef>(request: Request<Refs>, h: ResponseToolkit<Refs>, page: JsonPage) {
    const injected = (request as unknown as { isInjected: boolean }).isInjected;     // hapi's, missing from its types
    const asValue = injected && (request.plugins as Record<string, unknown>)[JSON_TEXT_PAGES] !== true;
    const response = asValue ? h.response(JSON.parse(page.json) as object) : h.response(page.json).type('application/json');
    return linked(request, response, page.next);
}

function linked<Refs extends ReqRef>(request: Request<Refs>, response: ResponseObject, next: string | null) {
    if (next) {
        const search = new URLSearchParams(queryOf(request));
        search.set('cursor', next);
        response.header('link', `<${request.path}?${search.toString()}>; rel="next"`);
    }

    return response;
}

// The query string as the client sent it, read without building the request's URL (hapi builds it on first use, at
// a cost a page can see): a path-absolute target, as every request but a proxy's absolute form, splits at `?`.
function queryOf<Refs extends ReqRef>(request: Request<Refs>): string {
    const target = request.raw.req.url ?? '';
    if (!target.startsWith('/')) {
        return request.url.search;
    }

    const start = target.indexOf('?');
    const end = target.indexOf('#');
    return start === -1 ? '' : target.slice(start + 1, end > start ? end : undefined);
}
