import * as Fs from 'node:fs';
import * as Os from 'node:os';
import * as Path from 'node:path';

import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { DocsIndex, loadDocs, tokenize, type DocPage } from '../../lib/mcp/docs-index';

// The docs index behind the MCP documentation tools: pages from a folder tree, paths as on the docs site, and a
// ranked search (BM25 plus a title bonus) rather than substring order.
const { describe, it } = exports.lab = Lab.script();
const { expect } = Code;

const page = (path: string, title: string, body: string): DocPage => ({ path, title, text: `# ${title}\n\n${body}`, url: `https://docs.example/${path}` });

describe('the docs index', () => {

    it('reads .md and .mdx files of nested folders as extension-less paths with their titles and public URLs', () => {
        const dir = Fs.mkdtempSync(Path.join(Os.tmpdir(), 'hostless-docs-'));
        Fs.mkdirSync(Path.join(dir, 'guides'));
        Fs.writeFileSync(Path.join(dir, 'index.md'), '# Home\n\nWelcome.\n');
        Fs.writeFileSync(Path.join(dir, 'guides', 'deploy.mdx'), 'Intro line\n\n# Deploying an app\n\nPush to deploy.\n');
        Fs.writeFileSync(Path.join(dir, 'notes.txt'), 'not a page');
        const index = loadDocs(dir, 'https://example.com/docs/');
        expect(index.list()).to.equal([
            { path: 'index', title: 'Home', text: '# Home\n\nWelcome.\n', url: 'https://example.com/docs/index' },
            { path: 'guides/deploy', title: 'Deploying an app', text: 'Intro line\n\n# Deploying an app\n\nPush to deploy.\n', url: 'https://example.com/docs/guides/deploy' }
        ]);
        expect(index.get('guides/deploy')?.title).to.equal('Deploying an app');
        expect(index.get('/guides/deploy.mdx')?.path).to.equal('guides/deploy');
        expect(index.get('guides')).to.be.null();
        Fs.rmSync(dir, { recursive: true });
    });

    it('tokenizes into lowercase words, folding plurals and -ed/-ing forms and dropping common words', () => {
        expect(tokenize('The Keys are REVOKED; revoke, revoking!')).to.equal(['key', 'revok', 'revok', 'revok']);
        expect(tokenize('policies embedding a')).to.equal(['policy', 'embed']);
    });

    it('ranks by relevance: a page dense in the words beats one that mentions them once earlier in file order', () => {
        const index = new DocsIndex([
            page('aaa', 'Overview', 'Everything in one place. Webhooks exist. Billing too. Domains as well.'),
            page('zzz', 'Webhooks', 'Webhooks deliver events. Each webhook is signed; verify the webhook signature before trusting a webhook.')
        ]);
        expect(index.search('webhook signature').map((hit) => hit.page.path)).to.equal(['zzz', 'aaa']);
    });

    it('weighs words of the title and headings over body words', () => {
        const index = new DocsIndex([
            page('body', 'General', 'Some text about quotas and about limits.'),
            page('title', 'Quotas', 'Some text about other things and limits.'),
            page('heading', 'Misc', 'Intro text.\n\n## Quotas\n\nSee above for limits.')
        ]);
        expect(index.search('quotas').map((hit) => hit.page.path)).to.equal(['title', 'heading', 'body']);
    });

    it('rewards rare words over words on every page', () => {
        const index = new DocsIndex([
            page('a', 'A', 'api api api api key'),
            page('b', 'B', 'api rotation'),
            page('c', 'C', 'api something')
        ]);
        expect(index.search('api rotation')[0]!.page.path).to.equal('b');
    });

    it('returns nothing for words no page holds, and honours the limit', () => {
        const index = new DocsIndex([page('a', 'A', 'alpha'), page('b', 'B', 'alpha beta'), page('c', 'C', 'alpha gamma')]);
        expect(index.search('omega')).to.equal([]);
        expect(index.search('the of and')).to.equal([]);
        expect(index.search('alpha', 2)).to.have.length(2);
    });

    it('cuts a snippet from the paragraph holding the most query words, around them', () => {
        const filler = 'lorem ipsum dolor sit amet '.repeat(30);
        const index = new DocsIndex([page('a', 'A', `First paragraph mentions tokens.\n\n${filler}tokens expire after fifteen minutes and refresh tokens rotate. ${filler}`)]);
        const [hit] = index.search('refresh tokens rotate');
        expect(hit!.snippet).to.include('refresh tokens rotate');
        expect(hit!.snippet).to.startWith('...');
        expect(hit!.snippet).to.endWith('...');
        expect(hit!.snippet.length).to.be.at.most(246);
    });
});
