import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { gitHosts, type GitHost, type GitHostsSettings } from '../../lib/git/hosts';
import { OAuthGrantError } from '../../lib/git/oauth';
import { GitProviderError, type GitProvider } from '../../lib/git/provider';
import { fakeBitbucket, type FakeBitbucket } from '../helpers/fake-bitbucket';
import { fakeBitbucketServer, type FakeBitbucketServer } from '../helpers/fake-bitbucket-server';

// The real Bitbucket adapters and OAuth clients, Cloud and Data Center (as lib/git/hosts.ts builds them from
// BITBUCKET_EDITION and the base URLs), against a fake of each on 127.0.0.1.
const { describe, it, before, after } = exports.lab = Lab.script();
const { expect } = Code;

const settings = (bitbucket: GitHostsSettings['bitbucket']): GitHostsSettings => ({
    github: { webUrl: 'https://github.com', apiUrl: 'https://api.github.com', clientId: null, clientSecret: null },
    gitlab: { url: 'https://gitlab.com', clientId: null, clientSecret: null },
    bitbucket
});

describe('Bitbucket Cloud adapter', () => {

    let bitbucket: FakeBitbucket;
    let host: GitHost;
    let adapter: GitProvider;
    const redirect = 'https://hostless.example/dashboard/git/bitbucket/callback';

    before(async () => {
        bitbucket = await fakeBitbucket({ login: 'ada' });
        bitbucket.workspaces.push('acme');
        bitbucket.store.addRepo('acme/shop', { files: { 'package.json': '{}' } });
        for (let i = 0; i < 4; ++i) {
            bitbucket.store.addRepo(`acme/tool-${i}`);
        }

        bitbucket.store.addRepo('ada/notes');
        bitbucket.store.addCommit('acme/shop', 'main', 'Add checkout');
        bitbucket.store.addCommit('acme/shop', 'feature/cart', 'Cart drawer');
        bitbucket.store.addPull('acme/shop', { title: 'Cart drawer', head: 'feature/cart' });
        bitbucket.store.addPull('acme/shop', { title: 'Old', head: 'main', state: 'closed' });
        host = gitHosts(settings({ edition: 'cloud', url: bitbucket.url, apiUrl: `${bitbucket.url}/2.0`, clientId: bitbucket.oauth.clientId, clientSecret: bitbucket.oauth.clientSecret }), ['127.0.0.1']).bitbucket;
    });

    after(async () => {
        await bitbucket?.stop();
    });

    it('connects: the consumer authenticates with HTTP Basic, the token expires and comes with a refresh token', async () => {
        const url = new URL(host.oauth!.authorizeUrl('some-state', redirect));
        expect(url.origin + url.pathname).to.equal(`${bitbucket.url}/site/oauth2/authorize`);
        expect(url.searchParams.get('scope')).to.be.null();

        const tokens = await host.oauth!.exchange(bitbucket.oauth.approve('ada'), redirect);
        expect(tokens.refreshToken).to.exist();
        expect(tokens.expiresAt).to.exist();
        const sent = bitbucket.requests.at(-1)!;
        expect(sent.headers.authorization).to.equal(`Basic ${Buffer.from(`${bitbucket.oauth.clientId}:${bitbucket.oauth.clientSecret}`).toString('base64')}`);
        expect(sent.payload).to.not.include('client_secret');
        adapter = host.provider(tokens.accessToken);
        expect(await adapter.currentUser()).to.equal({ login: 'ada', type: 'user', name: 'Ada Dev' });
    });

    it('lists workspaces, and a workspace\'s repositories across two pages', async () => {
        expect((await adapter.accounts({ limit: 10 })).items).to.equal([{ login: 'acme', type: 'workspace', name: 'ACME' }, { login: 'ada', type: 'workspace', name: 'ADA' }]);
        const first = await adapter.repositories('acme', { limit: 3 });
        expect(first.next).to.equal('2');
        const second = await adapter.repositories('acme', { limit: 3, cursor: first.next! });
        expect(second.next).to.be.null();
        expect([...first.items, ...second.items].map((repo) => repo.fullName).sort()).to.equal(['acme/shop', 'acme/tool-0', 'acme/tool-1', 'acme/tool-2', 'acme/tool-3']);
        expect(first.items.find((repo) => repo.fullName === 'acme/shop') ?? second.items.find((repo) => repo.fullName === 'acme/shop')).to.include({ owner: 'acme', name: 'shop', defaultBranch: 'main', private: true });
        expect(bitbucket.requests.filter((r) => r.path.startsWith('/2.0/repositories/acme?')).map((r) => r.path)).to.equal([
            '/2.0/repositories/acme?role=member&sort=-updated_on&pagelen=3&page=1',
            '/2.0/repositories/acme?role=member&sort=-updated_on&pagelen=3&page=2'
        ]);
    });

    it('reads branches, commits of a branch with their authors, and open pull requests', async () => {
        expect((await adapter.listBranches('acme/shop')).map((branch) => branch.name).sort()).to.equal(['feature/cart', 'main']);
        const commits = await adapter.listCommits('acme/shop', { branch: 'main', limit: 5 });
        expect(commits.map((commit) => commit.message)).to.equal(['Add checkout', 'Initial commit']);
        expect(commits[0].author).to.include({ name: 'Ada Dev', email: 'ada@example.test' });
        const pulls = await adapter.listPullRequests('acme/shop');
        expect(pulls.map((pull) => [pull.number, pull.state, pull.headBranch, pull.baseBranch])).to.equal([[1, 'open', 'feature/cart', 'main']]);
        expect((await adapter.listPullRequests('acme/shop', { state: 'all' })).map((pull) => pull.state)).to.equal(['open', 'closed']);
    });

    it('writes a file with the src form, naming the commit from its Location', async () => {
        const written = await adapter.writeFile({ repo: 'acme/shop', branch: 'main', path: 'hostless.yaml', content: 'v: 1\n', message: 'Add service file', author: { name: 'Ada Dev', email: 'ada@example.test' } });
        expect(bitbucket.store.file('acme/shop', 'main', 'hostless.yaml')).to.equal('v: 1\n');
        expect(written.commitSha).to.equal(bitbucket.store.head('acme/shop', 'main')!);
    });

    it('maps refusals and outages, and has no way to revoke a token', async () => {
        expect(await expect(adapter.listCommits('acme/missing')).to.reject(GitProviderError)).to.include({ code: 'not_found' });
        bitbucket.down = true;
        try {
            expect(await expect(adapter.currentUser()).to.reject(GitProviderError)).to.include({ code: 'unavailable' });
        }
        finally {
            bitbucket.down = false;
        }

        expect(await host.revoke('anything')).to.be.false();
    });
});

describe('Bitbucket Data Center adapter', () => {

    let server: FakeBitbucketServer;
    let host: GitHost;
    let adapter: GitProvider;
    let refreshToken: string;
    const redirect = 'https://hostless.example/dashboard/git/bitbucket/callback';

    before(async () => {
        server = await fakeBitbucketServer({ login: 'ada' });
        server.projects.push('SHOP', 'OPS');
        server.store.addRepo('SHOP/web', { files: { 'package.json': '{}' } });
        server.store.addRepo('SHOP/api');
        server.store.addRepo('SHOP/jobs');
        server.store.addRepo('OPS/infra');
        server.store.addCommit('SHOP/web', 'main', 'Add checkout');
        server.store.addCommit('SHOP/web', 'feature/cart', 'Cart drawer');
        server.store.addPull('SHOP/web', { title: 'Cart drawer', head: 'feature/cart' });
        host = gitHosts(settings({ edition: 'datacenter', url: server.url, apiUrl: `${server.url}/rest/api/1.0`, clientId: server.oauth.clientId, clientSecret: server.oauth.clientSecret }), ['127.0.0.1']).bitbucket;
    });

    after(async () => {
        await server?.stop();
    });

    it('connects through the incoming application link and learns the user from X-AUSERNAME', async () => {
        const url = new URL(host.oauth!.authorizeUrl('some-state', redirect));
        expect(url.origin + url.pathname).to.equal(`${server.url}/rest/oauth2/latest/authorize`);
        expect(url.searchParams.get('scope')).to.equal('PUBLIC_REPOS REPO_WRITE');
        const tokens = await host.oauth!.exchange(server.oauth.approve('ada'), redirect);
        refreshToken = tokens.refreshToken!;
        adapter = host.provider(tokens.accessToken);
        expect(await adapter.currentUser()).to.equal({ login: 'ada', type: 'user', name: 'Ada Dev' });
        expect(host.cloneUrl('SHOP/web')).to.equal(`${server.url}/scm/shop/web.git`);
    });

    it('lists projects, and a project\'s repositories across two pages', async () => {
        expect((await adapter.accounts({ limit: 10 })).items.map((account) => [account.login, account.type])).to.equal([['OPS', 'project'], ['SHOP', 'project']]);
        const first = await adapter.repositories('SHOP', { limit: 2 });
        expect(first.next).to.equal('2');
        const second = await adapter.repositories('SHOP', { limit: 2, cursor: first.next! });
        expect(second.next).to.be.null();
        expect([...first.items, ...second.items].map((repo) => repo.fullName)).to.equal(['SHOP/api', 'SHOP/jobs', 'SHOP/web']);
        expect(server.requests.filter((r) => r.path.startsWith('/rest/api/1.0/projects/SHOP/repos?')).map((r) => r.path)).to.equal([
            '/rest/api/1.0/projects/SHOP/repos?start=0&limit=2',
            '/rest/api/1.0/projects/SHOP/repos?start=2&limit=2'
        ]);
    });

    it('reads commits until a branch and pull requests, and writes a file then replaces it', async () => {
        const commits = await adapter.listCommits('SHOP/web', { branch: 'main', limit: 5 });
        expect(commits.map((commit) => commit.message)).to.equal(['Add checkout', 'Initial commit']);
        expect(commits[0].url).to.equal(`${server.url}/projects/SHOP/repos/web/commits/${commits[0].sha}`);
        expect((await adapter.listPullRequests('SHOP/web')).map((pull) => [pull.number, pull.headBranch])).to.equal([[1, 'feature/cart']]);

        await adapter.writeFile({ repo: 'SHOP/web', branch: 'main', path: 'hostless.yaml', content: 'v: 1\n', message: 'Add service file' });
        const second = await adapter.writeFile({ repo: 'SHOP/web', branch: 'main', path: 'hostless.yaml', content: 'v: 2\n', message: 'Update service file' });
        expect(server.store.file('SHOP/web', 'main', 'hostless.yaml')).to.equal('v: 2\n');
        expect(second.commitSha).to.equal(server.store.head('SHOP/web', 'main')!);
    });

    it('refreshes its token, and maps a refused token', async () => {
        const refreshed = await host.oauth!.refresh(refreshToken);
        await expect(host.oauth!.refresh(refreshToken)).to.reject(OAuthGrantError);
        expect(await expect(adapter.currentUser()).to.reject(GitProviderError)).to.include({ code: 'unauthorized' });
        expect((await host.provider(refreshed.accessToken).currentUser()).login).to.equal('ada');
    });
});
