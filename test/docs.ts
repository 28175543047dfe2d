import * as Fs from 'node:fs';
import * as Path from 'node:path';

import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { renderScopesPage } from '../lib/docs/scopes-page';
import { mountedTables } from '../manifest/api';
import { ROUTE_TABLES } from '../manifest/routes';

// docs/ is also what the MCP docs tools serve: generated pages stay current and links stay whole.
const { describe, it } = exports.lab = Lab.script();
const { expect } = Code;

const docs = Path.join(__dirname, '..', 'docs');
const pages = Fs.readdirSync(docs).filter((file) => file.endsWith('.md'));

describe('docs', () => {

    it('keeps the scopes page generated from the current route tables (run `npm run docs`)', () => {
        const mounted = new Set(mountedTables().flatMap((table) => table.rows.map((row) => row.id)));
        expect(Fs.readFileSync(Path.join(docs, 'scopes.md'), 'utf8')).to.equal(renderScopesPage(ROUTE_TABLES, mounted));
    });

    it('gives every page a title and resolves every link between pages', () => {
        for (const page of pages) {
            const text = Fs.readFileSync(Path.join(docs, page), 'utf8');
            expect(text, page).to.match(/^# \S/);
            for (const [, target] of text.matchAll(/\]\(([a-z0-9-]+\.md)(#[a-z0-9-]+)?\)/g)) {
                expect(pages, `${page} links to ${target}`).to.include(target!);
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
