import * as Fs from 'node:fs';
import * as Path from 'node:path';

import MarkdownIt from 'markdown-it';

// The documentation as data: every markdown file of docs/ is a page at `/docs/<path>` (its path inside docs/ without
// `.md`; docs/index.md is also `/docs`). The dashboard renders these pages and the MCP docs tools return their URLs.

export interface DocSection {
    anchor: string | null;                                      // the heading's id; null for the text before the first heading
    heading: string;
    text: string;                                               // plain text, markdown syntax removed
}

export interface DocPage {
    path: string;                                               // 'authentication', 'guides/deploy', 'index'
    title: string;                                              // the first level-1 heading
    markdown: string;                                           // HTML comments removed
    sections: DocSection[];
}

const parser = new MarkdownIt({ html: false });

/** `/docs/<path>`, and `/docs` for the index. */
export function docUrlPath(path: string): string {
    return path === 'index' ? '/docs' : `/docs/${path}`;
}

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens; repeats get `-1`, `-2`. */
export function slugger(): (text: string) => string {
    const seen = new Map<string, number>();
    return (text) => {
        const base = text.toLowerCase().trim().replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/\s/g, '-');
        const count = seen.get(base) ?? 0;
        seen.set(base, count + 1);
        return count ? `${base}-${count}` : base;
    };
}

/** Full-line HTML comments are notes for editors (e.g. "generated, do not edit"): they are not part of the page. */
export function stripComments(markdown: string): string {
    return markdown.replace(/^<!--[\s\S]*?-->[ \t]*\n?/gm, '');
}

/** Every .md file under `dir`, index first, then in the order the index links to them, then by path. */
export function loadDocs(dir: string): DocPage[] {
    const pages = markdownFiles(dir).map((file) => {
        const markdown = stripComments(Fs.readFileSync(Path.join(dir, file), 'utf8'));
        const path = file.replace(/\.mdx?$/, '').split(Path.sep).join('/');
        const sections = splitSections(markdown);
        const title = /^# +(.+)$/m.exec(markdown)?.[1]?.trim() ?? path;
        return { path, title, markdown, sections };
    });

    const index = pages.find((page) => page.path === 'index');
    const linked = index ? [...index.markdown.matchAll(/\]\(([\w./-]+)\.md(?:#[\w-]*)?\)/g)].map((match) => match[1]) : [];
    const rank = (page: DocPage) => page.path === 'index' ? -1 : linked.includes(page.path) ? linked.indexOf(page.path) : linked.length;
    return pages.sort((a, b) => rank(a) - rank(b) || a.path.localeCompare(b.path));
}

/** The .md files under `dir`, as paths inside it. */
export function markdownFiles(dir: string, relative = ''): string[] {
    return Fs.readdirSync(Path.join(dir, relative), { withFileTypes: true }).flatMap((entry) => {
        const file = Path.join(relative, entry.name);
        return entry.isDirectory() ? markdownFiles(dir, file) : /\.mdx?$/.test(entry.name) ? [file] : [];
    });
}

/** The page's text cut at its headings, each part with the heading's anchor, as the search index and snippets use it. */
export function splitSections(markdown: string): DocSection[] {
    const slug = slugger();
    const sections: DocSection[] = [{ anchor: null, heading: '', text: '' }];
    const tokens = parser.parse(markdown, {});
    let heading: string | null = null;                          // the tag of the heading being read
    for (const token of tokens) {
        const current = sections[sections.length - 1];
        if (token.type === 'heading_open') {
            heading = token.tag;
        }
        else if (token.type === 'heading_close') {
            heading = null;
        }
        else if (token.type === 'inline' && heading) {
            // The page's title section is the page itself: its link needs no anchor.
            const text = inlineText(token.children ?? []);
            const anchor = slug(text);
            sections.push({ anchor: heading === 'h1' ? null : anchor, heading: text, text: '' });
        }
        else if (token.type === 'inline' || token.type === 'fence' || token.type === 'code_block') {
            const text = token.type === 'inline' ? inlineText(token.children ?? []) : token.content;
            current.text = `${current.text} ${text}`.trim();
        }
    }

    return sections.filter((section) => section.heading || section.text);
}

/** The text of a markdown-it inline token's children: what a heading's anchor is made from. */
export function inlineText(children: ReadonlyArray<{ type: string; content: string }>): string {
    return children.map((child) => child.type === 'softbreak' || child.type === 'hardbreak' ? ' ' : child.content).join('').replace(/\s+/g, ' ').trim();
}
