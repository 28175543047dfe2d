import * as Boom from '@hapi/boom';
import Hoek from '@hapi/hoek';
import Joi from 'joi';

import { docsCorpus } from '../../../lib/docs/corpus';
import { docUrlPath, type DocPage } from '../../../lib/docs/pages';
import type { RouteHandlers } from '../../../lib/route-table';
import { text } from '../forms';
import { docsRenderer, type RenderedPage } from '../docs';
import { page, type PageDeps } from '../page';

// The docs site: every page of docs/ at /docs/<path> (docs/index.md at /docs), rendered and indexed once per process
// (lib/docs/corpus.ts), with the page list for navigation and a ranked search at /docs/search?q=.

// Rendered once per corpus (docsCorpus keeps one per folder while its files are unchanged).
const renderings = new WeakMap<readonly DocPage[], Map<string, { doc: DocPage } & RenderedPage>>();

function renderedPages(pages: readonly DocPage[]): Map<string, { doc: DocPage } & RenderedPage> {
    let rendered = renderings.get(pages);
    if (!rendered) {
        const render = docsRenderer();
        rendered = new Map(pages.map((doc) => [doc.path, { doc, ...render(doc) }]));
        renderings.set(pages, rendered);
    }

    return rendered;
}

export function docsRoutes(deps: PageDeps, docsDir: string): RouteHandlers {
    const { pages, index } = docsCorpus(docsDir);
    Hoek.assert(pages.some((doc) => doc.path === 'index'), 'The docs folder', docsDir, 'has no index.md');
    Hoek.assert(!pages.some((doc) => doc.path === 'search'), 'docs/search.md would be hidden by the docs search page: rename it');

    const rendered = renderedPages(pages);
    const nav = (current: string | null) => pages.map((doc) => ({ url: docUrlPath(doc.path), title: doc.title, current: doc.path === current }));

    const show = page(deps, async (p) => {
        const path = (p.request.params.path as string | undefined) ?? 'index';
        const found = rendered.get(path);
        if (!found) {
            throw Boom.notFound('There is no documentation page at this address.');
        }

        return p.view('docs-page', { title: found.doc.title, html: found.html, headings: found.headings, nav: nav(path) }, 200, { forms: false });
    });

    return {
        'docs.index': { handler: show },
        'docs.page': {
            validate: { params: Joi.object({ path: Joi.string().max(200).required() }) },
            handler: show
        },
        'docs.search': {
            validate: { query: Joi.object({ q: text(200) }) },
            handler: page(deps, async (p) => {
                const query = ((p.request.query as { q?: string }).q ?? '').trim();
                const hits = query ? index.search(query) : [];
                return p.view('docs-search', {
                    title: query ? `Search: ${query}` : 'Search',
                    query,
                    nav: nav(null),
                    hits: hits.map((hit) => ({
                        title: hit.section.heading && hit.section.anchor ? `${hit.page.title}: ${hit.section.heading}` : hit.page.title,
                        url: `${docUrlPath(hit.page.path)}${hit.section.anchor ? `#${hit.section.anchor}` : ''}`,
                        snippet: hit.snippet
                    }))
                }, 200, { forms: false });
            })
        }
    };
}
