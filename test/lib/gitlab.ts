import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { gitHosts, type GitHost } from '../../lib/git/hosts';
import { OAuthGrantError } from '../../lib/git/oauth';
import { GitProviderError, type GitProvider } from '../../lib/git/provider';
import { fakeGitLab, type FakeGitLab } from '../helpers/fake-gitlab';

// The real GitLab adapter and OAuth client (as lib/git/hosts.ts builds them for a self-managed GitLab at a base
// URL) against a fake GitLab on 127.0.0.1.
const { describe, it, before, after } = exports.lab = Lab.script();
const { expect } = Code;

describe('GitLab adapter', () => {

    let gitlab: FakeGitLab;
    let host: GitHost;
    let adapter: GitProvider;
    let token: string;
    const redirect = 'https://hostless.example/dashboard/git/gitlab/callback';

    before(async () => {
        gitlab = await fakeGitLab({ login: 'ada' });
        gitlab.groups.push('acme', 'acme/platform');
        gitlab.store.addRepo('ada/notes');
        gitlab.store.addRepo('acme/platform/api', { files: { 'package.json': '{}' } });
        for (let i = 0; i < 5; ++i) {
            gitlab.store.addRepo(`acme/service-${i}`);
        }

        gitlab.store.addCommit('acme/platform/api', 'main', 'Add health check');
        gitlab.store.addCommit('acme/platform/api', 'feature/x', 'Start feature x');
        gitlab.store.addPull('acme/platform/api', { title: 'Feature X', head: 'feature/x' });
        gitlab.store.addPull('acme/platform/api', { title: 'Old one', head: 'main', state: 'merged' });
        host = gitHosts({
            github: { webUrl: 'https://github.com', apiUrl: 'https://api.github.com', clientId: null, clientSecret: null },
            gitlab: { url: gitlab.url, clientId: gitlab.oauth.clientId, clientSecret: gitlab.oauth.clientSecret },
            bitbucket: { edition: 'cloud', url: 'https://bitbucket.org', apiUrl: 'https://api.bitbucket.org/2.0', clientId: null, clientSecret: null }
        }, ['127.0.0.1']).gitlab;
    });

    after(async () => {
        await gitlab?.stop();
    });

    it('connects: sends the browser to GitLab\'s authorize page and exchanges the code it sends back', async () => {
        const url = new URL(host.oauth!.authorizeUrl('some-state', redirect));
        expect(url.origin + url.pathname).to.equal(`${gitlab.url}/oauth/authorize`);
        expect(Object.fromEntries(url.searchParams)).to.equal({ client_id: gitlab.oauth.clientId, redirect_uri: redirect, response_type: 'code', state: 'some-state', scope: 'api' });

        const tokens = await host.oauth!.exchange(gitlab.oauth.approve('ada'), redirect);
        expect(tokens.refreshToken).to.match(/^rt_/);
        expect(Date.parse(tokens.expiresAt!) - Date.now()).to.be.within(7100_000, 7200_000);
        expect(gitlab.oauth.grants.at(-1)).to.equal({ grantType: 'authorization_code', redirectUri: redirect });
        token = tokens.accessToken;
        adapter = host.provider(token);
        expect(await adapter.currentUser()).to.equal({ login: 'ada', type: 'user', name: 'Ada Dev' });

        await expect(host.oauth!.exchange('not-a-code', redirect)).to.reject(OAuthGrantError);
    });

    it('lists every project the user is a member of across two pages, and a group\'s with its subgroups', async () => {
        const first = await adapter.repositories(null, { limit: 4 });
        expect(first.items).to.have.length(4);
        expect(first.next).to.equal('2');
        const second = await adapter.repositories(null, { limit: 4, cursor: first.next! });
        expect(second.next).to.be.null();
        const all = [...first.items, ...second.items];
        expect(all.map((repo) => repo.fullName).sort()).to.equal(['acme/platform/api', 'acme/service-0', 'acme/service-1', 'acme/service-2', 'acme/service-3', 'acme/service-4', 'ada/notes']);
        expect(all.find((repo) => repo.fullName === 'acme/platform/api')).to.include({ owner: 'acme/platform', name: 'api', private: true, defaultBranch: 'main' });
        expect(gitlab.requests.filter((r) => r.path.startsWith('/api/v4/projects?')).map((r) => r.path)).to.equal([
            '/api/v4/projects?membership=true&order_by=last_activity_at&sort=desc&per_page=4&page=1',
            '/api/v4/projects?membership=true&order_by=last_activity_at&sort=desc&per_page=4&page=2'
        ]);

        const group = await adapter.repositories('acme/platform', { limit: 10 });
        expect(group.items.map((repo) => repo.fullName)).to.equal(['acme/platform/api']);
        const accounts = await adapter.accounts({ limit: 10 });
        expect(accounts.items.map((account) => [account.login, account.type])).to.equal([['ada', 'user'], ['acme', 'group'], ['acme/platform', 'group']]);
    });

    it('reads branches, commits of a branch newest first, and merge requests of a nested project', async () => {
        expect((await adapter.listBranches('acme/platform/api')).map((branch) => branch.name).sort()).to.equal(['feature/x', 'main']);
        const commits = await adapter.listCommits('acme/platform/api', { branch: 'main', limit: 5 });
        expect(commits.map((commit) => commit.message)).to.equal(['Add health check', 'Initial commit']);
        expect(commits[0].author).to.include({ name: 'Ada Dev', email: 'ada@example.test' });
        expect(gitlab.requests.at(-1)!.path).to.equal('/api/v4/projects/acme%2Fplatform%2Fapi/repository/commits?per_page=5&ref_name=main');
        const open = await adapter.listPullRequests('acme/platform/api');
        expect(open.map((merge) => [merge.number, merge.title, merge.state, merge.headBranch, merge.baseBranch])).to.equal([[1, 'Feature X', 'open', 'feature/x', 'main']]);
        expect((await adapter.listPullRequests('acme/platform/api', { state: 'all' })).map((merge) => merge.state)).to.equal(['open', 'merged']);
    });

    it('writes a file in a commit, and replaces it in the next', async () => {
        const first = await adapter.writeFile({ repo: 'acme/platform/api', branch: 'main', path: 'deploy/hostless.yaml', content: 'v: 1\n', message: 'Add service file' });
        expect(gitlab.store.file('acme/platform/api', 'main', 'deploy/hostless.yaml')).to.equal('v: 1\n');
        const second = await adapter.writeFile({ repo: 'acme/platform/api', branch: 'main', path: 'deploy/hostless.yaml', content: 'v: 2\n', message: 'Update service file' });
        expect(gitlab.store.file('acme/platform/api', 'main', 'deploy/hostless.yaml')).to.equal('v: 2\n');
        expect((await adapter.listCommits('acme/platform/api', { branch: 'main', limit: 2 })).map((commit) => commit.sha)).to.equal([second.commitSha, first.commitSha]);
    });

    it('maps GitLab\'s refusals to stable codes, and an outage to unavailable', async () => {
        expect(await expect(adapter.listCommits('acme/missing')).to.reject(GitProviderError)).to.include({ code: 'not_found' });
        expect(await expect(adapter.listCommits('acme/../x')).to.reject(GitProviderError)).to.include({ code: 'invalid' });
        gitlab.down = true;
        try {
            const err = await expect(adapter.currentUser()).to.reject(GitProviderError);
            expect(err).to.include({ code: 'unavailable', status: 503 });
        }
        finally {
            gitlab.down = false;
        }
    });

    it('refreshes a token with its rotating refresh token', async () => {
        const tokens = await host.oauth!.exchange(gitlab.oauth.approve('ada'), redirect);
        const refreshed = await host.oauth!.refresh(tokens.refreshToken!);
        expect(refreshed.accessToken).to.not.equal(tokens.accessToken);
        expect(gitlab.oauth.valid(tokens.accessToken)).to.be.null();
        expect(await expect(host.oauth!.refresh(tokens.refreshToken!)).to.reject(OAuthGrantError)).to.include({ error: 'invalid_grant' });
    });

    it('disconnects: revokes the token at GitLab', async () => {
        expect(await host.revoke(token)).to.be.true();
        expect(gitlab.oauth.valid(token)).to.be.null();
        expect(await expect(adapter.currentUser()).to.reject(GitProviderError)).to.include({ code: 'unauthorized' });
    });
});
