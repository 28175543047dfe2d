import * as Fs from 'node:fs';
import * as Path from 'node:path';

import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { loadDocs, splitSections } from '../../../lib/docs/pages';
import { docsRenderer } from '../../../plugins/dashboard/docs';
import { caller } from '../../helpers/api';
import { pageText } from '../../helpers/dashboard';
import { testServer, type TestServer } from '../../helpers/server';

// The docs site: every page of docs/ at /docs/<path>, rendered safely, with navigation and search.
const { describe, it, before, after } = exports.lab = Lab.script();
const { expect } = Code;

const DOCS = Path.join(__dirname, '..', '..', '..', 'docs');

describe('docs site', () => {

    let instance: TestServer;
    const call = caller(() => instance.server);

    before(async () => {
        instance = await testServer();
    });

    after(async () => {
        await instance?.stop();
    });

    it('serves every page of docs/ at /docs/<path> with its title, and the index at /docs', async () => {
        const files = Fs.readdirSync(DOCS).filter((file) => file.endsWith('.md'));
        expect(files.length).to.be.at.least(9);
        for (const file of files) {
            const path = file.slice(0, -3);
            const res = await call('GET', path === 'index' ? '/docs' : `/docs/${path}`);
            const title = /^# +(.+)$/m.exec(Fs.readFileSync(Path.join(DOCS, file), 'utf8'))![1];
            expect(res.statusCode, file).to.equal(200);
            expect(res.payload, file).to.contain(`<title>${title.replace(/&/g, '&amp;')} · Hostless</title>`);
        }

        expect((await call('GET', '/docs/index')).payload).to.contain('<title>Hostless documentation · Hostless</title>');
    });

    it('lists every page in the navigation, marking the current one', async () => {
        const res = await call('GET', '/docs/projects');
        const nav = /<nav class="docs-nav"[\s\S]*?<\/nav>/.exec(res.payload)![0];
        for (const page of loadDocs(DOCS)) {
            expect(nav).to.contain(`href="${page.path === 'index' ? '/docs' : `/docs/${page.path}`}"`);
        }

        expect(nav).to.contain('<a href="/docs/projects" aria-current="page">Projects and roles</a>');
        expect(nav).to.contain('<form role="search" action="/docs/search" method="get"');
    });

    it('turns links between pages into /docs addresses and gives headings the anchors links use', async () => {
        const html = (await call('GET', '/docs/errors')).payload;
        expect(html).to.contain('href="/docs/authentication#401-messages"');
        expect(html).to.not.match(/href="[^"]*\.md/);
        const target = (await call('GET', '/docs/authentication')).payload;
        expect(target).to.contain('<h2 id="401-messages">401 messages</h2>');
    });

    it('renders markdown without passing raw HTML through, and refuses script links', () => {
        const markdown = '# Page\n\n<script>alert(1)</script>\n\n<img src=x onerror=alert(1)>\n\n[click](javascript:alert(1)) [ok](other.md#part) [out](https://example.com)\n';
        const { html, headings } = docsRenderer()({ path: 'guides/page', title: 'Page', markdown, sections: splitSections(markdown) });
        expect(html).to.not.contain('<script');
        expect(html).to.not.contain('<img');
        expect(html).to.contain('&lt;script&gt;alert(1)&lt;/script&gt;');
        expect(html).to.not.contain('href="javascript:');
        expect(html).to.contain('<a href="/docs/guides/other#part">ok</a>');
        expect(html).to.contain('<a href="https://example.com" rel="noopener noreferrer">out</a>');
        expect(headings).to.equal([]);
    });

    it('searches every page, ranked, with snippets that mark the words and link to the section', async () => {
        const res = await call('GET', '/docs/search?q=revoke+key');
        expect(res.statusCode).to.equal(200);
        const results = /<ol class="results">([\s\S]*?)<\/ol>/.exec(res.payload)![1];
        const links = [...results.matchAll(/<a href="([^"]+)">([^<]+)<\/a>/g)].map((match) => match[1]);
        expect(links.length).to.be.at.least(3);
        expect(links.slice(0, 3).some((link) => link.startsWith('/docs/authentication') || link.startsWith('/docs/getting-started'))).to.be.true();
        expect(results).to.match(/<mark>[Rr]evok\w*<\/mark>/);
        expect(pageText(res.payload)).to.match(/\d+ results for “revoke key”/);

        for (const link of links) {
            const [path, anchor] = link.split('#');
            const page = await call('GET', path);
            expect(page.statusCode, link).to.equal(200);
            if (anchor) {
                expect(page.payload, link).to.contain(`id="${anchor}"`);
            }
        }
    });

    it('ranks a section by its page title and heading first: "deploy app" leads to Apps: Deployments', async () => {
        const res = await call('GET', '/docs/search?q=deploy+app');
        const first = /<ol class="results">[\s\S]*?<a href="([^"]+)">/.exec(res.payload)![1];
        expect(first).to.equal('/docs/apps#deployments');
    });

    it('says when nothing is found, escapes the query, and refuses an overlong one', async () => {
        // Markup of words no page holds (a one-letter tag would find the \b of a regular expression in docs/).
        const none = await call('GET', `/docs/search?q=${encodeURIComponent('<zzqy>zzqx</zzqy>')}`);
        expect(none.statusCode).to.equal(200);
        expect(none.payload).to.contain('Nothing found for “&lt;zzqy&gt;zzqx&lt;/zzqy&gt;”');
        expect(none.payload).to.not.contain('<zzqy>zzqx');
        expect(pageText((await call('GET', '/docs/search')).payload)).to.contain('Type words to search every page');
        expect((await call('GET', `/docs/search?q=${'a'.repeat(201)}`)).statusCode).to.equal(400);
    });

    it('answers an HTML 404 for a page that does not exist, including paths outside docs/', async () => {
        for (const path of ['/docs/nope', '/docs/..%2Fpackage', '/docs/guides/missing']) {
            const res = await call('GET', path);
            expect(res.statusCode, path).to.equal(404);
            expect(res.headers['content-type']).to.contain('text/html');
        }
    });
});
