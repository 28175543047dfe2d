import * as Fs from 'node:fs';
import * as Os from 'node:os';
import * as Path from 'node:path';

import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { docUrlPath, loadDocs, slugger, splitSections, stripComments, type DocPage } from '../../lib/docs/pages';
import { DocsIndex, snippet, stem, words } from '../../lib/docs/search';

// The documentation as data, and its search: sections with their anchors, stems, BM25 ranking and snippets.
const { describe, it } = exports.lab = Lab.script();
const { expect } = Code;

const page = (path: string, markdown: string): DocPage => {
    const sections = splitSections(markdown);
    return { path, title: /^# +(.+)$/m.exec(markdown)?.[1] ?? path, markdown, sections };
};

describe('docs pages', () => {

    it('maps a page path to its /docs URL, the index to /docs', () => {
        expect(docUrlPath('index')).to.equal('/docs');
        expect(docUrlPath('authentication')).to.equal('/docs/authentication');
        expect(docUrlPath('guides/deploy')).to.equal('/docs/guides/deploy');
    });

    it('makes GitHub\'s heading anchors, numbering repeats', () => {
        const slug = slugger();
        expect(slug('401 messages')).to.equal('401-messages');
        expect(slug('Creating, listing and revoking (session only)')).to.equal('creating-listing-and-revoking-session-only');
        expect(slug('apps:read')).to.equal('appsread');
        expect(slug('401 messages')).to.equal('401-messages-1');
    });

    it('drops full-line comments meant for editors, and only those', () => {
        expect(stripComments('# T\n\n<!-- generated -->\n\ntext <!-- kept -->\n')).to.equal('# T\n\n\ntext <!-- kept -->\n');
    });

    it('cuts a page at its headings into plain-text sections, the title section without an anchor', () => {
        const sections = splitSections('# Title\n\nIntro with `code` and a [link](x.md).\n\n## Part *one*\n\n| a | b |\n|---|---|\n| c | d |\n\n```sh\ncurl it\n```\n');
        expect(sections).to.equal([
            { anchor: null, heading: 'Title', text: 'Intro with code and a link.' },
            { anchor: 'part-one', heading: 'Part one', text: 'a b c d curl it' }
        ]);
    });

    it('loads every markdown file of a folder, the index first and then in the index\'s order', () => {
        const dir = Fs.mkdtempSync(Path.join(Os.tmpdir(), 'hostless-docs-'));
        try {
            Fs.mkdirSync(Path.join(dir, 'guides'));
            Fs.writeFileSync(Path.join(dir, 'index.md'), '# Home\n\n- [B](b.md)\n- [Deploy](guides/deploy.md)\n');
            Fs.writeFileSync(Path.join(dir, 'a.md'), '# A\n');
            Fs.writeFileSync(Path.join(dir, 'b.md'), '# B\n');
            Fs.writeFileSync(Path.join(dir, 'guides', 'deploy.md'), '# Deploy\n');
            Fs.writeFileSync(Path.join(dir, 'notes.txt'), 'not a page');
            expect(loadDocs(dir).map((doc) => [doc.path, doc.title])).to.equal([['index', 'Home'], ['b', 'B'], ['guides/deploy', 'Deploy'], ['a', 'A']]);
        }
        finally {
            Fs.rmSync(dir, { recursive: true, force: true });
        }
    });
});

describe('docs search', () => {

    it('reduces the forms of a word to one stem, and keeps short and double-s words whole', () => {
        expect(['revoke', 'revoked', 'revokes', 'revoking'].map(stem)).to.equal(['revok', 'revok', 'revok', 'revok']);
        expect(['deploy', 'deployed', 'deploying', 'deployment', 'deployments'].map(stem)).to.equal(['deploy', 'deploy', 'deploy', 'deploy', 'deploy']);
        expect(['key', 'keys'].map(stem)).to.equal(['key', 'key']);
        expect(['access', 'accessed'].map(stem)).to.equal(['access', 'access']);
        expect(['use', 'uses'].map(stem)).to.equal(['use', 'use']);
        expect(words('How do I revoke THE key?')).to.equal(['revoke', 'key']);
    });

    it('ranks a section about a term above a page that mentions it, at most three sections a page', () => {
        const index = new DocsIndex([
            page('mentions', '# Mentions\n\nSometimes keys are revoked, among many other things that can happen to an account over time.\n'),
            page('keys', '# Keys\n\n## Revoking a key\n\nRevoke a key to stop it at once.\n\n## Creating\n\nCreate one.\n'),
            page('many', '# Many\n\n## One\n\nrevoke\n\n## Two\n\nrevoke\n\n## Three\n\nrevoke\n\n## Four\n\nrevoke\n')
        ]);
        const hits = index.search('revoke key');
        expect(hits[0].page.path).to.equal('keys');
        expect(hits[0].section.anchor).to.equal('revoking-a-key');
        expect(hits.filter((hit) => hit.page.path === 'many')).to.have.length(3);
        expect(hits.map((hit) => hit.score)).to.equal([...hits.map((hit) => hit.score)].sort((a, b) => b - a));
        expect(index.search('nothing matches this')).to.equal([]);
        expect(index.search('   ')).to.equal([]);
    });

    it('cuts a snippet around the first match and marks every match', () => {
        const text = `${'lead '.repeat(40)}then revoke the key and revoked keys stop ${'tail '.repeat(60)}`;
        const parts = snippet(text, ['revok']);
        expect(parts[0]).to.equal({ text: '… ', match: false });
        expect(parts.filter((part) => part.match).map((part) => part.text)).to.equal(['revoke', 'revoked']);
        expect(parts[parts.length - 1]).to.equal({ text: ' …', match: false });
        expect(parts.map((part) => part.text).join('').length).to.be.below(200);
        expect(snippet('short text', ['nothing'])).to.equal([{ text: 'short text', match: false }]);
    });

    it('finds the real documentation\'s answers: revoking a key leads to the pages that explain it', () => {
        const pages = loadDocs(Path.join(__dirname, '..', '..', 'docs'));
        const hits = new DocsIndex(pages).search('revoke api key');
        expect(hits.length).to.be.at.least(3);
        expect(hits.slice(0, 3).map((hit) => hit.page.path)).to.include('authentication');
        expect(hits[0].snippet.some((part) => part.match)).to.be.true();
    });
    it('weighs headings and titles: "deploy app" finds "Apps: Deployments" first, on the site and for the MCP tools alike', () => {
        const index = new DocsIndex(loadDocs(Path.join(__dirname, '..', '..', 'docs')));
        const [first] = index.search('deploy app');
        expect(`${first.page.title}: ${first.section.heading}`).to.equal('Apps: Deployments');
        const [best] = index.searchPages('deploy app');
        expect(best.page.path).to.equal('apps');
        expect(best.snippet).to.startWith('Deployments: ');

        // A section whose text says "deploy" over and over ranks below the one whose heading and title say it.
        const small = new DocsIndex([
            page('apps', '# Apps\n\n## Collaborators\n\nPermissions: deploy (trigger and rerun deployments, deploy review apps), operate, manage. A collaborator who may deploy can deploy apps.\n\n## Deployments\n\nEach one records the configuration it was made from.\n')
        ]);
        expect(small.search('deploy app').map((hit) => hit.section.anchor).slice(0, 2)).to.equal(['deployments', 'collaborators']);
    });

    it('ranks whole pages by their best section for the MCP tools, once each, with a passage naming the section', () => {
        const index = new DocsIndex([
            page('overview', '# Overview\n\nEverything in one place. Webhooks exist. Billing too.'),
            page('webhooks', '# Webhooks\n\nWebhooks deliver events.\n\n## Signatures\n\nVerify the webhook signature before trusting a webhook.'),
            page('faq', '# FAQ\n\n## Why sign?\n\nA webhook signature proves the sender.')
        ]);
        const hits = index.searchPages('webhook signature');
        expect(hits.map((hit) => hit.page.path)).to.equal(['webhooks', 'faq', 'overview']);
        expect(hits[0].snippet).to.equal('Signatures: Verify the webhook signature before trusting a webhook.');
        expect(hits.map((hit) => hit.score)).to.equal([...hits.map((hit) => hit.score)].sort((a, b) => b - a));
        expect(index.searchPages('webhook', 2)).to.have.length(2);
        expect(index.searchPages('xylophone')).to.equal([]);
    });

    it('finds a page by its path, forgiving a leading slash and the extension, and lists pages in load order', () => {
        const dir = Fs.mkdtempSync(Path.join(Os.tmpdir(), 'hostless-docs-'));
        Fs.mkdirSync(Path.join(dir, 'guides'));
        Fs.writeFileSync(Path.join(dir, 'index.md'), '# Home\n\nSee [deploying](guides/deploy.md).\n');
        Fs.writeFileSync(Path.join(dir, 'guides', 'deploy.mdx'), '# Deploying an app\n\nPush to deploy.\n');
        Fs.writeFileSync(Path.join(dir, 'notes.txt'), 'not a page');
        const index = new DocsIndex(loadDocs(dir));
        expect(index.list().map((doc) => doc.path)).to.equal(['index', 'guides/deploy']);
        for (const path of ['guides/deploy', '/guides/deploy', 'guides/deploy.mdx', ' guides/deploy.md ']) {
            expect(index.get(path)?.title, path).to.equal('Deploying an app');
        }

        expect(index.get('guides')).to.be.null();
        Fs.rmSync(dir, { recursive: true });
    });
});
