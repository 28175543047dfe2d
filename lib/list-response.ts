import type { ReqRef, Request, ResponseToolkit } from '@hapi/hapi';

import type { Page } from './pagination';

/** A list is a JSON array; when more remain, `Link: <next url>; rel="next"` carries the cursor. */
export function respondWithPage<T, R, Refs extends ReqRef>(request: Request<Refs>, h: ResponseToolkit<Refs>, page: Page<T>, serialize: (item: T) => R) {
    const response = h.response(page.items.map(serialize));
    if (page.next) {
        const url = new URL(request.url.href);
        url.searchParams.set('cursor', page.next);
        response.header('link', `<${url.pathname}${url.search}>; rel="next"`);
    }

    return response;
}
