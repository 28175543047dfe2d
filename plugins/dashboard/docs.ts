import * as Path from 'node:path';

import MarkdownIt from 'markdown-it';

import { docUrlPath, inlineText, slugger, type DocPage } from '../../lib/docs/pages';

// Markdown to HTML for the docs site, safely: raw HTML in a page is shown as text (never passed through), links go
// through markdown-it's URL check (no javascript: or data: links), links between pages become their /docs URLs, and
// headings get the anchors that search results and links point at.

export interface RenderedPage {
    html: string;
    headings: Array<{ anchor: string; text: string }>;          // level-2 headings, for the page's table of contents
}

export function docsRenderer(): (page: DocPage) => RenderedPage {
    const md = new MarkdownIt({ html: false, linkify: false, typographer: false });

    md.renderer.rules.heading_open = (tokens, idx, options, env, self) => {
        const text = inlineText(tokens[idx + 1]?.children ?? []);
        const anchor = (env as Env).slug(text);
        tokens[idx].attrSet('id', anchor);
        if (tokens[idx].tag === 'h2') {
            (env as Env).headings.push({ anchor, text });
        }

        return self.renderToken(tokens, idx, options);
    };

    md.renderer.rules.link_open = (tokens, idx, options, env, self) => {
        const token = tokens[idx];
        const href = token.attrGet('href') ?? '';
        const local = /^(?![a-z][a-z0-9+.-]*:|\/|#)([^#?]+)\.md(#[^?]*)?$/i.exec(href);
        if (local) {
            const target = Path.posix.normalize(Path.posix.join(Path.posix.dirname((env as Env).path), local[1]));
            token.attrSet('href', `${docUrlPath(target)}${local[2] ?? ''}`);
        }
        else if (/^https?:/i.test(href)) {
            token.attrSet('rel', 'noopener noreferrer');
        }

        return self.renderToken(tokens, idx, options);
    };

    return (page) => {
        const env: Env = { path: page.path, slug: slugger(), headings: [] };
        const html = md.render(page.markdown, env);
        return { html, headings: env.headings };
    };
}

interface Env {
    path: string;
    slug: (text: string) => string;
    headings: Array<{ anchor: string; text: string }>;
}
