import Joi from 'joi';

// The visual builder's document: a site title, an optional theme and up to 50 pages of blocks (headings, text,
// images from the site's assets, buttons, dividers). It is data, validated by this schema on every save, and
// rendered to static HTML on publish: every text is escaped, links are relative paths or https URLs, and the pages
// carry no script.
export interface Block {
    type: 'heading' | 'text' | 'image' | 'button' | 'divider';
    text?: string;
    level?: number;
    asset?: string;
    alt?: string;
    href?: string;
}

export interface BuilderPage {
    path: string;
    title: string;
    blocks: Block[];
}

export interface BuilderDocument {
    title: string;
    description?: string;
    theme?: { accent?: string; background?: string; text?: string; font?: 'sans' | 'serif' | 'mono' };
    pages: BuilderPage[];
}

export const ASSET_NAME = /^[a-z0-9][a-z0-9._-]{0,127}$/;
const color = () => Joi.string().pattern(/^#[0-9a-fA-F]{6}$/, 'colour such as #1a2b3c');
const link = () => Joi.string().max(2000).pattern(/^(\/(?!\/)[^\s]*|https:\/\/[^\s]+|#[\w-]*|mailto:[^\s]+)$/, 'relative path (/about), https URL or #anchor');

const block = Joi.object<Block>({
    type: Joi.string().valid('heading', 'text', 'image', 'button', 'divider').required(),
    text: Joi.when('type', { is: Joi.valid('heading', 'button'), then: Joi.string().trim().min(1).max(300).required(), otherwise: Joi.when('type', { is: 'text', then: Joi.string().max(10_000).required(), otherwise: Joi.forbidden() }) }),
    level: Joi.when('type', { is: 'heading', then: Joi.number().integer().min(1).max(3).default(1), otherwise: Joi.forbidden() }),
    asset: Joi.when('type', { is: 'image', then: Joi.string().pattern(ASSET_NAME, 'asset name').required(), otherwise: Joi.forbidden() }),
    alt: Joi.when('type', { is: 'image', then: Joi.string().max(300).allow('').default(''), otherwise: Joi.forbidden() }),
    href: Joi.when('type', { is: 'button', then: link().required(), otherwise: Joi.forbidden() })
});

export const documentSchema = Joi.object<BuilderDocument, true>({
    title: Joi.string().trim().min(1).max(120).required(),
    description: Joi.string().max(300),
    theme: Joi.object({ accent: color(), background: color(), text: color(), font: Joi.string().valid('sans', 'serif', 'mono') }),
    pages: Joi.array().items(Joi.object<BuilderPage, true>({
        path: Joi.string().pattern(/^\/(?:[a-z0-9-]+(?:\/[a-z0-9-]+)*)?$/, 'page path such as / or /about').required(),
        title: Joi.string().trim().min(1).max(120).required(),
        blocks: Joi.array().items(block).max(200).default([])
    })).min(1).max(50).unique('path').required()
}).description('The visual-builder document: { title, description?, theme?, pages: [{ path, title, blocks }] }.');

export function starterDocument(name: string): BuilderDocument {
    return {
        title: name,
        pages: [{ path: '/', title: 'Home', blocks: [{ type: 'heading', text: name, level: 1 }, { type: 'text', text: 'This site was made with the Hostless visual builder.' }] }]
    };
}

/** The assets a document's image blocks use. */
export function assetsUsed(document: BuilderDocument): string[] {
    return [...new Set(document.pages.flatMap((page) => page.blocks.filter((b) => b.type === 'image').map((b) => b.asset!)))];
}

const escape = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
const FONTS = { sans: 'system-ui, sans-serif', serif: 'Georgia, serif', mono: 'ui-monospace, monospace' };

/** Where a page's HTML lives in the deployment: `/` -> `/index.html`, `/about` -> `/about/index.html`. */
export function pageFile(path: string): string {
    return path === '/' ? '/index.html' : `${path}/index.html`;
}

function renderBlock(b: Block): string {
    switch (b.type) {
        case 'heading': return `<h${b.level ?? 1}>${escape(b.text!)}</h${b.level ?? 1}>`;
        case 'text': return b.text!.split(/\n{2,}/).map((paragraph) => `<p>${escape(paragraph).replace(/\n/g, '<br>')}</p>`).join('\n');
        case 'image': return `<img src="/assets/${escape(b.asset!)}" alt="${escape(b.alt ?? '')}">`;
        case 'button': return `<p><a class="button" href="${escape(b.href!)}">${escape(b.text!)}</a></p>`;
        case 'divider': return '<hr>';
    }
}

export function renderPage(document: BuilderDocument, page: BuilderPage): string {
    const theme = document.theme ?? {};
    const nav = document.pages.length > 1
        ? `<nav>${document.pages.map((p) => `<a href="${escape(p.path === '/' ? '/' : `${p.path}/`)}"${p.path === page.path ? ' aria-current="page"' : ''}>${escape(p.title)}</a>`).join(' ')}</nav>`
        : '';
    const css = `body{margin:0 auto;max-width:48rem;padding:2rem 1rem;font:17px/1.6 ${FONTS[theme.font ?? 'sans']};background:${theme.background ?? '#ffffff'};color:${theme.text ?? '#1f2328'}}` +
        `a{color:${theme.accent ?? '#0969da'}}nav{margin-bottom:2rem}nav a{margin-right:1rem}img{max-width:100%}` +
        `.button{display:inline-block;padding:.5rem 1rem;border-radius:.4rem;background:${theme.accent ?? '#0969da'};color:#fff;text-decoration:none}`;
    return `<!doctype html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n<meta name="viewport" content="width=device-width, initial-scale=1">\n` +
        `<title>${escape(page.path === '/' ? document.title : `${page.title} - ${document.title}`)}</title>\n` +
        (document.description ? `<meta name="description" content="${escape(document.description)}">\n` : '') +
        `<style>${css}</style>\n</head>\n<body>\n${nav}\n<main>\n${page.blocks.map(renderBlock).join('\n')}\n</main>\n</body>\n</html>\n`;
}
