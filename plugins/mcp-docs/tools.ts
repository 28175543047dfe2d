import * as z from 'zod';

import { docUrlPath, type DocPage } from '../../lib/docs/pages';
import type { DocsIndex } from '../../lib/docs/search';
import { failure, jsonResult, success, type Tool } from '../../lib/mcp/tool';

// The documentation tools over docs/: `search` and `fetch` in the OpenAI retrieval shape, and docs_search,
// docs_get_page and docs_list with paths, snippets and public URLs. An empty query or path, or a page that does not
// exist, is a tool result with isError: true.

const readOnly = { readOnlyHint: true, idempotentHint: true, openWorldHint: false };
const page = z.object({ path: z.string(), title: z.string(), url: z.string() });
const shown = (value: string) => JSON.stringify(value.length > 80 ? `${value.slice(0, 80)}...` : value);

const missing = (what: string, value: string) =>
    failure(`No documentation page has the ${what} ${shown(value)}. Call docs_list for every page, or search for one.`);

/** The documentation tools over the docs index; `publicUrl` is the API's origin, whose /docs site shows the pages. */
export function docsTools(index: DocsIndex, publicUrl: string): Tool[] {
    const url = (doc: DocPage) => `${publicUrl}${docUrlPath(doc.path)}`;
    const listed = (doc: DocPage) => ({ path: doc.path, title: doc.title, url: url(doc) });
    return [
        {
            name: 'search',
            group: 'docs',
            title: 'Search the documentation',
            description: 'Search the Hostless documentation by keywords, best match first. Returns up to 10 results with an id for fetch, a title and the page\'s public URL for citation.',
            inputSchema: z.strictObject({ query: z.string().max(500).describe('Keywords to search for, e.g. "revoke an API key".') }),
            outputSchema: z.object({ results: z.array(z.object({ id: z.string(), title: z.string(), url: z.string() })) }),
            annotations: readOnly,
            handler: async ({ query }) => {
                const text = String(query).trim();
                if (!text) {
                    return failure('The query is empty: pass one or more keywords to search for.');
                }

                return jsonResult({ results: index.searchPages(text, 10).map((hit) => ({ id: hit.page.path, title: hit.page.title, url: url(hit.page) })) });
            }
        },
        {
            name: 'fetch',
            group: 'docs',
            title: 'Fetch a documentation page',
            description: 'Load the full text of a documentation page by the id that search returned, with its title, public URL and metadata.',
            inputSchema: z.strictObject({ id: z.string().max(300).describe('A page id from search, e.g. "authentication".') }),
            outputSchema: z.object({ id: z.string(), title: z.string(), text: z.string(), url: z.string(), metadata: z.record(z.string(), z.string()) }),
            annotations: readOnly,
            handler: async ({ id }) => {
                const wanted = String(id).trim();
                if (!wanted) {
                    return failure('The id is empty: pass an id that search returned.');
                }

                const doc = index.get(wanted);
                if (!doc) {
                    return missing('id', wanted);
                }

                return jsonResult({ id: doc.path, title: doc.title, text: doc.markdown, url: url(doc), metadata: { path: doc.path, format: 'markdown', source: 'Hostless documentation' } });
            }
        },
        {
            name: 'docs_search',
            group: 'docs',
            title: 'Search the documentation with snippets',
            description: 'Keyword search over the Hostless documentation, best match first (BM25 ranking; title and heading words count more). Returns each page\'s title, path (for docs_get_page), public URL, the best-matching passage and the score.',
            inputSchema: z.strictObject({
                query: z.string().max(500).describe('Keywords to search for, e.g. "projectId rules".'),
                limit: z.number().int().min(1).max(25).optional().describe('How many results, 1 to 25 (default 10).')
            }),
            outputSchema: z.object({ results: z.array(page.extend({ snippet: z.string(), score: z.number() })) }),
            annotations: readOnly,
            handler: async ({ query, limit }) => {
                const text = String(query).trim();
                if (!text) {
                    return failure('The query is empty: pass one or more keywords to search for.');
                }

                const hits = index.searchPages(text, typeof limit === 'number' ? limit : 10);
                const results = hits.map((hit) => ({ ...listed(hit.page), snippet: hit.snippet, score: hit.score }));
                const summary = results.length ? `${results.length} page(s) match, best first.` : 'No page matches; try other words, or docs_list.';
                return success(summary, { results });
            }
        },
        {
            name: 'docs_get_page',
            group: 'docs',
            title: 'Read a documentation page',
            description: 'Load a documentation page by its path, without the file extension: "authentication", "index", or a two-segment path such as "guides/deploy". Paths come from docs_list and docs_search.',
            inputSchema: z.strictObject({ path: z.string().max(300).describe('The page path without extension, e.g. "scopes".') }),
            outputSchema: page.extend({ text: z.string() }),
            annotations: readOnly,
            handler: async ({ path }) => {
                const wanted = String(path).trim();
                if (!wanted) {
                    return failure('The path is empty: pass a page path such as "authentication" (docs_list shows them all).');
                }

                const doc = index.get(wanted);
                if (!doc) {
                    return missing('path', wanted);
                }

                return { content: [{ type: 'text', text: doc.markdown }], structuredContent: { ...listed(doc), text: doc.markdown } };
            }
        },
        {
            name: 'docs_list',
            group: 'docs',
            title: 'List the documentation pages',
            description: 'List every documentation page with its path (for docs_get_page), title and public URL.',
            inputSchema: z.strictObject({}),
            outputSchema: z.object({ pages: z.array(page) }),
            annotations: readOnly,
            handler: async () => {
                const pages = index.list().map(listed);
                return success(`${pages.length} pages.`, { pages });
            }
        }
    ];
}
