import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { GitHubProvider } from '../../lib/git/github';
import { GitProviderError } from '../../lib/git/provider';
import { OutsideClient, OutsideServiceError } from '../../lib/outside/http-client';
import { fakeGitHub, type FakeGitHub } from '../helpers/fake-github';

// The real GitHub adapter against a fake GitHub on 127.0.0.1.
const { describe, it, before, after } = exports.lab = Lab.script();
const { expect } = Code;

describe('GitHub adapter', () => {

    let github: FakeGitHub;
    let adapter: GitHubProvider;

    before(async () => {
        github = await fakeGitHub({ login: 'ada' });
        github.addOrg('acme');
        github.addRepo('ada/site', { files: { 'index.html': '<h1>hi</h1>' } });
        github.addRepo('acme/api', { private: true });
        for (let i = 0; i < 130; ++i) {
            github.addRepo(`acme/service-${String(i).padStart(3, '0')}`);
        }

        github.addCommit('acme/api', 'main', 'Add health check');
        github.addCommit('acme/api', 'feature/x', 'Start feature x');
        github.addPull('acme/api', { title: 'Feature X', head: 'feature/x' });
        github.addPull('acme/api', { title: 'Old one', head: 'main', state: 'closed', merged: true });
        adapter = new GitHubProvider({ baseUrl: github.url, token: github.token, client: new OutsideClient({ service: 'github', allowlist: ['127.0.0.1'] }) });
    });

    after(async () => {
        await github?.stop();
    });

    it('lists the user and their organisations as accounts', async () => {
        expect(await adapter.accounts({ limit: 30 })).to.equal({
            items: [{ login: 'ada', type: 'user', name: 'Octo Dev' }, { login: 'acme', type: 'organization', name: null }],
            next: null
        });
        expect(github.requests.at(-1)!.headers).to.include({ authorization: `Bearer ${github.token}`, accept: 'application/vnd.github+json', 'x-github-api-version': '2022-11-28' });
    });

    it('lists repositories of the user and of an organisation, page by page as GitHub pages them', async () => {
        const own = await adapter.repositories('ada', { limit: 30 });
        expect(own.items.map((repo) => repo.fullName)).to.equal(['ada/site']);
        expect(own.items[0]).to.include({ owner: 'ada', name: 'site', private: false, defaultBranch: 'main' });
        expect(own.next).to.be.null();

        const first = await adapter.repositories('acme', { limit: 100 });
        expect(first.items).to.have.length(100);
        expect(first.next).to.equal('2');
        const second = await adapter.repositories('acme', { limit: 100, cursor: first.next! });
        expect(second.items).to.have.length(31);
        expect(second.next).to.be.null();
        expect([...first.items, ...second.items].find((repo) => repo.fullName === 'acme/api')!.private).to.be.true();
        expect(github.requests.filter((r) => r.path.startsWith('/orgs/acme/repos')).map((r) => r.path)).to.equal([
            '/orgs/acme/repos?sort=updated&per_page=100',
            '/orgs/acme/repos?sort=updated&per_page=100&page=2'
        ]);
        const mine = await adapter.repositories(null, { limit: 5 });
        expect(mine.items.map((repo) => repo.fullName)).to.equal(['ada/site']);
        expect(github.requests.at(-1)!.path).to.equal('/user/repos?affiliation=owner,collaborator,organization_member&sort=updated&per_page=5');
    });

    it('lists branches, commits newest first, and pull requests with their state', async () => {
        expect((await adapter.listBranches('acme/api')).map((branch) => branch.name).sort()).to.equal(['feature/x', 'main']);
        const commits = await adapter.listCommits('acme/api', { branch: 'main', limit: 5 });
        expect(commits.map((commit) => commit.message)).to.equal(['Add health check', 'Initial commit']);
        expect(commits[0].sha).to.match(/^[0-9a-f]{40}$/);
        const open = await adapter.listPullRequests('acme/api');
        expect(open.map((pull) => [pull.number, pull.title, pull.state, pull.headBranch])).to.equal([[1, 'Feature X', 'open', 'feature/x']]);
        expect((await adapter.listPullRequests('acme/api', { state: 'all' })).map((pull) => pull.state)).to.equal(['open', 'merged']);
    });

    it('writes a file in a commit, and replaces it in the next', async () => {
        const first = await adapter.writeFile({ repo: 'ada/site', branch: 'main', path: 'config/hostless.yaml', content: 'name: site\n', message: 'Add service file' });
        expect(first.commitSha).to.match(/^[0-9a-f]{40}$/);
        expect(github.file('ada/site', 'main', 'config/hostless.yaml')).to.equal('name: site\n');

        const second = await adapter.writeFile({ repo: 'ada/site', branch: 'main', path: 'config/hostless.yaml', content: 'name: site\nplan: pro\n', message: 'Update service file' });
        expect(github.file('ada/site', 'main', 'config/hostless.yaml')).to.equal('name: site\nplan: pro\n');
        const commits = await adapter.listCommits('ada/site', { branch: 'main' });
        expect(commits.slice(0, 2).map((commit) => [commit.sha, commit.message])).to.equal([[second.commitSha, 'Update service file'], [first.commitSha, 'Add service file']]);
    });

    it('maps GitHub\'s refusals to stable codes without the token', async () => {
        const stranger = new GitHubProvider({ baseUrl: github.url, token: 'ghp_wrongwrongwrong', client: new OutsideClient({ service: 'github', allowlist: ['127.0.0.1'] }) });
        const unauthorized = await expect(stranger.currentUser()).to.reject(GitProviderError);
        expect(unauthorized).to.include({ code: 'unauthorized' });
        expect(unauthorized.message).to.not.include('ghp_wrong');

        expect(await expect(adapter.listBranches('acme/missing')).to.reject(GitProviderError)).to.include({ code: 'not_found' });
        expect(await expect(adapter.listBranches('../../etc')).to.reject(GitProviderError)).to.include({ code: 'invalid' });

        github.rateLimited = true;
        try {
            expect(await expect(adapter.currentUser()).to.reject(GitProviderError)).to.include({ code: 'rate_limited' });
        }
        finally {
            github.rateLimited = false;
        }
    });

    it('is refused a GitHub on a private address unless the operator allows it', async () => {
        const unallowed = new GitHubProvider({ baseUrl: github.url, token: github.token, client: new OutsideClient({ service: 'github' }) });
        expect(await expect(unallowed.currentUser()).to.reject(OutsideServiceError)).to.include({ code: 'refused_destination' });
    });
});
