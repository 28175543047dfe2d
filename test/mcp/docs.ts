import * as Fs from 'node:fs';
import * as Path from 'node:path';

import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';

import { stripComments } from '../../lib/docs/pages';
import { call, connect, mcpInstance, text, toolNames, type McpInstance } from '../helpers/mcp';

// The documentation tools on POST /mcp/docs, through the SDK's client: they serve exactly the pages of docs/, with
// public URLs on the dashboard's docs site, ranked search, and isError for empty arguments and missing pages.
const { describe, it, before, after } = exports.lab = Lab.script();
const { expect } = Code;

const docs = Path.join(__dirname, '..', '..', 'docs');
const pages = Fs.readdirSync(docs).filter((file) => file.endsWith('.md')).map((file) => file.replace(/\.md$/, '')).sort();
const DOCS_URL = 'http://localhost:3000/docs';

describe('the documentation tools', () => {

    let instance: McpInstance;
    let client: Client;

    before(async () => {
        instance = await mcpInstance();
        client = await connect(`${instance.url}/mcp/docs`);
    });

    after(async () => {
        await client?.close();
        await instance?.stop();
    });

    it('are the five docs tools, read-only, each with an input schema', async () => {
        expect(await toolNames(client)).to.equal(['docs_get_page', 'docs_list', 'docs_search', 'fetch', 'search']);
        for (const tool of (await client.listTools()).tools) {
            expect(tool.annotations?.readOnlyHint, tool.name).to.be.true();
            expect(tool.description!.length, tool.name).to.be.above(40);
        }
    });

    describe('docs_list', () => {

        it('lists every page of docs/ with its path, title and public URL, index first', async () => {
            const result = await call(client, 'docs_list');
            const listed = result.structuredContent.pages;
            expect(listed.map((page: any) => page.path).sort()).to.equal(pages);
            expect(listed[0]).to.equal({ path: 'index', title: 'Hostless documentation', url: DOCS_URL });
            expect(listed.find((page: any) => page.path === 'authentication')).to.equal({ path: 'authentication', title: 'Authentication', url: `${DOCS_URL}/authentication` });
            expect(text(result)).to.startWith(`${pages.length} pages.`);
        });
    });

    describe('docs_get_page', () => {

        it('returns a page\'s full markdown by path without extension', async () => {
            const result = await call(client, 'docs_get_page', { path: 'authentication' });
            const source = stripComments(Fs.readFileSync(Path.join(docs, 'authentication.md'), 'utf8'));     // notes for editors are left out
            expect(result.isError).to.not.be.true();
            expect(result.structuredContent).to.equal({ path: 'authentication', title: 'Authentication', url: `${DOCS_URL}/authentication`, text: source });
            expect(text(result)).to.equal(source);
        });

        it('tolerates a leading slash and the .md extension', async () => {
            for (const path of ['/scopes', 'scopes.md']) {
                expect((await call(client, 'docs_get_page', { path })).structuredContent.path).to.equal('scopes');
            }
        });

        it('reports a missing page and an empty path as isError', async () => {
            const missing = await call(client, 'docs_get_page', { path: 'no-such-page' });
            expect(missing.isError).to.be.true();
            expect(text(missing)).to.equal('No documentation page has the path "no-such-page". Call docs_list for every page, or search for one.');
            for (const path of ['', '   ']) {
                const empty = await call(client, 'docs_get_page', { path });
                expect(empty.isError).to.be.true();
                expect(text(empty)).to.startWith('The path is empty');
            }
        });
    });

    describe('docs_search', () => {

        it('ranks the page about a subject first, with a snippet holding the words', async () => {
            const result = await call(client, 'docs_search', { query: 'revoke an API key' });
            const [first] = result.structuredContent.results;
            expect(['authentication', 'getting-started']).to.include(first.path);
            expect(first.url).to.equal(`${DOCS_URL}/${first.path}`);
            expect(first.snippet.toLowerCase()).to.match(/revok/);
            expect(first.snippet.length as number).to.be.at.most(246);
        });

        it('weighs titles and headings: "deploy app" finds the apps page by its Deployments section', async () => {
            const [first] = (await call(client, 'docs_search', { query: 'deploy app' })).structuredContent.results;
            expect(first.path).to.equal('apps');
            expect(first.snippet as string).to.startWith('Deployments: ');
        });

        it('orders by relevance, not by file order: the scopes page leads for scope words', async () => {
            const results = (await call(client, 'docs_search', { query: 'scope' })).structuredContent.results;
            expect(results[0].path).to.equal('scopes');
            const scores = results.map((hit: any) => hit.score);
            expect(scores).to.equal([...scores].sort((a: number, b: number) => b - a));
        });

        it('finds a page by words of its title over pages that only mention them', async () => {
            const results = (await call(client, 'docs_search', { query: 'embedding plugins into your own hapi server' })).structuredContent.results;
            expect(results[0].path).to.equal('embedding');
        });

        it('honours limit and returns no result for words no page holds', async () => {
            expect((await call(client, 'docs_search', { query: 'key', limit: 2 })).structuredContent.results).to.have.length(2);
            const none = await call(client, 'docs_search', { query: 'xylophone zeppelin' });
            expect(none.isError).to.not.be.true();
            expect(none.structuredContent.results).to.equal([]);
        });

        it('reports an empty query as isError', async () => {
            for (const query of ['', '  ']) {
                const result = await call(client, 'docs_search', { query });
                expect(result.isError).to.be.true();
                expect(text(result)).to.startWith('The query is empty');
            }
        });

        it('reports a wrong argument type as isError', async () => {
            const result = await call(client, 'docs_search', { query: 42 });
            expect(result.isError).to.be.true();
            expect(text(result)).to.include('Input validation error');
        });
    });

    describe('search and fetch (the OpenAI retrieval shape)', () => {

        it('search answers one text item holding {results:[{id,title,url}]}, the same as its structured content', async () => {
            const result = await call(client, 'search', { query: 'projectId rules for creating resources' });
            expect(result.content).to.have.length(1);
            const body = JSON.parse(text(result));
            expect(body).to.equal(result.structuredContent);
            expect(body.results.length as number).to.be.above(0);
            expect(body.results.length as number).to.be.at.most(10);
            for (const hit of body.results) {
                expect(Object.keys(hit)).to.equal(['id', 'title', 'url']);
                expect(hit.url).to.equal(hit.id === 'index' ? DOCS_URL : `${DOCS_URL}/${hit.id}`);
            }

            expect(body.results[0].id).to.equal('projects');
        });

        it('fetch loads the full text of a search result with its citation metadata', async () => {
            // Any hit will do: the test is about fetch, not about ranking (search ranking has its own tests).
            const { results } = (await call(client, 'search', { query: 'configuration variable PASSWORD_HASH_COST' })).structuredContent;
            const hit = results.find((entry: { id: string }) => entry.id === 'configuration');
            expect(hit).to.exist();
            const result = await call(client, 'fetch', { id: hit.id });
            expect(result.content).to.have.length(1);
            const body = JSON.parse(text(result));
            expect(body).to.equal(result.structuredContent);
            expect(body).to.equal({
                id: 'configuration',
                title: 'Configuration',
                text: Fs.readFileSync(Path.join(docs, 'configuration.md'), 'utf8'),
                url: `${DOCS_URL}/configuration`,
                metadata: { path: 'configuration', format: 'markdown', source: 'Hostless documentation' }
            });
        });

        it('reports an empty query, an empty id and an unknown id as isError', async () => {
            expect((await call(client, 'search', { query: '' })).isError).to.be.true();
            expect((await call(client, 'fetch', { id: '' })).isError).to.be.true();
            const unknown = await call(client, 'fetch', { id: 'missing-page' });
            expect(unknown.isError).to.be.true();
            expect(text(unknown)).to.include('"missing-page"');
        });

        it('declares query and id as the single required string arguments', async () => {
            const tools = (await client.listTools()).tools;
            const schema = (name: string) => tools.find((tool) => tool.name === name)!.inputSchema as any;
            expect(schema('search').required).to.equal(['query']);
            expect(schema('search').properties.query.type).to.equal('string');
            expect(schema('fetch').required).to.equal(['id']);
            expect(schema('fetch').properties.id.type).to.equal('string');
        });
    });
});
