import * as Fs from 'node:fs';
import * as Path from 'node:path';

import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { TOOLS_END, TOOLS_START, withToolList } from '../lib/docs/mcp-page';
import { renderScopesPage } from '../lib/docs/scopes-page';
import { servedTables } from '../manifest/api';
import { mcpToolList } from '../manifest/mcp';
import { ROUTE_TABLES } from '../manifest/routes';

// docs/ is also what the MCP docs tools serve: generated pages stay current and links stay whole.
const { describe, it } = exports.lab = Lab.script();
const { expect } = Code;

const docs = Path.join(__dirname, '..', 'docs');
const pages = Fs.readdirSync(docs).filter((file) => file.endsWith('.md'));

describe('docs', () => {

    it('keeps the scopes page generated from the current route tables (run `npm run docs`)', () => {
        const mounted = new Set(servedTables().flatMap((table) => table.rows.map((row) => row.id)));
        expect(Fs.readFileSync(Path.join(docs, 'scopes.md'), 'utf8')).to.equal(renderScopesPage(ROUTE_TABLES, mounted));
    });

    it('keeps the MCP page\'s tool list generated from the tool definitions (run `npm run docs`)', () => {
        const page = Fs.readFileSync(Path.join(docs, 'mcp.md'), 'utf8');
        expect(page).to.equal(withToolList(page, mcpToolList()));
        const listed = [...page.slice(page.indexOf(TOOLS_START), page.indexOf(TOOLS_END)).matchAll(/^#### `(\w+)`$/gm)].map((match) => match[1]);
        expect(listed).to.have.length(36);
        expect(listed).to.include(['search', 'fetch', 'docs_search', 'docs_get_page', 'docs_list', 'projects_list', 'apps_create', 'databases_delete']);
    });

    it('gives every page a title and resolves every link between pages', () => {
        for (const page of pages) {
            const text = Fs.readFileSync(Path.join(docs, page), 'utf8');
            expect(text, page).to.match(/^# \S/);
            for (const [, target] of text.matchAll(/\]\(([a-z0-9-]+\.md)(#[a-z0-9-]+)?\)/g)) {
                expect(pages, `${page} links to ${target}`).to.include(target);
            }
        }
    });

    it('lists every page in the index', () => {
        const index = Fs.readFileSync(Path.join(docs, 'index.md'), 'utf8');
        for (const page of pages.filter((file) => file !== 'index.md')) {
            expect(index, page).to.include(`(${page})`);
        }
    });
});
