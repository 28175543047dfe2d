import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { caller, createKey, joinProject, register, type TestUser } from '../../helpers/api';
import { createApp } from '../../helpers/apps';
import { dump } from '../../helpers/db';
import { connectThroughFlow, gitHostFakes, type GitHostFakes, type HostName } from '../../helpers/git-hosts';
import { testServer, type TestServer } from '../../helpers/server';

// Each Git host end to end, through the API against a fake of the host on 127.0.0.1: connect through the flow,
// list repositories across two pages as the host pages them, read commits of an app's repository, disconnect.
const { describe, it, before, after } = exports.lab = Lab.script();
const { expect } = Code;

interface HostCase {
    title: string;
    provider: HostName;
    edition: 'cloud' | 'datacenter';
    repo: string;                                               // the app's repository
    reposUrl: (projectId: string) => string;                    // a list of five repositories
    accountsUrl: ((projectId: string) => string) | null;
    revokes: boolean;
    fill(fakes: GitHostFakes): void;
}

const five = (owner: string) => ['api', 'jobs', 'shop', 'tools', 'web'].map((name) => `${owner}/${name}`);

const CASES: HostCase[] = [
    {
        title: 'GitHub', provider: 'github', edition: 'cloud', repo: 'acme/shop', revokes: true,
        reposUrl: (projectId) => `/v1/projects/${projectId}/github/accounts/acme/repos`,
        accountsUrl: (projectId) => `/v1/projects/${projectId}/github/accounts`,
        fill: ({ github }) => {
            github.addOrg('acme');
            five('acme').forEach((repo) => github.addRepo(repo));
            github.addCommit('acme/shop', 'main', 'Add checkout');
        }
    },
    {
        title: 'GitLab', provider: 'gitlab', edition: 'cloud', repo: 'acme/shop', revokes: true,
        reposUrl: (projectId) => `/v1/projects/${projectId}/gitlab/repos`,
        accountsUrl: null,
        fill: ({ gitlab }) => {
            gitlab.groups.push('acme');
            five('acme').forEach((repo) => gitlab.store.addRepo(repo));
            gitlab.store.addCommit('acme/shop', 'main', 'Add checkout');
        }
    },
    {
        title: 'Bitbucket Cloud', provider: 'bitbucket', edition: 'cloud', repo: 'acme/shop', revokes: false,
        reposUrl: (projectId) => `/v1/projects/${projectId}/bitbucket/workspaces/acme/repos`,
        accountsUrl: (projectId) => `/v1/projects/${projectId}/bitbucket/workspaces`,
        fill: ({ bitbucket }) => {
            (bitbucket as { workspaces: string[] }).workspaces.push('acme');
            five('acme').forEach((repo) => bitbucket.store.addRepo(repo));
            bitbucket.store.addCommit('acme/shop', 'main', 'Add checkout');
        }
    },
    {
        title: 'Bitbucket Data Center', provider: 'bitbucket', edition: 'datacenter', repo: 'ACME/shop', revokes: false,
        reposUrl: (projectId) => `/v1/projects/${projectId}/bitbucket/workspaces/ACME/repos`,
        accountsUrl: (projectId) => `/v1/projects/${projectId}/bitbucket/workspaces`,
        fill: ({ bitbucket }) => {
            (bitbucket as { projects: string[] }).projects.push('ACME');
            five('ACME').forEach((repo) => bitbucket.store.addRepo(repo));
            bitbucket.store.addCommit('ACME/shop', 'main', 'Add checkout');
        }
    }
];

for (const host of CASES) {
    describe(`${host.title} through the API`, () => {

        let fakes: GitHostFakes;
        let instance: TestServer;
        let owner: TestUser;
        let fake: GitHostFakes['github'] | GitHostFakes['gitlab'] | GitHostFakes['bitbucket'];
        const call = caller(() => instance.server);
        let token: string;

        before(async () => {
            fakes = await gitHostFakes({ bitbucket: host.edition });
            host.fill(fakes);
            fake = fakes[host.provider];
            instance = await testServer(fakes.config);
            instance.server.plugins['hostless-jobs'].queue.start();
            owner = await register(instance.server, 'git-owner');
        });

        after(async () => {
            await instance?.stop();
            await fakes?.stop();
        });

        it('connects through the flow: the host sends the browser back to the dashboard, which completes it', async () => {
            const before = new Set(fake.oauth.live());
            const { started, completed } = await connectThroughFlow(instance.server, owner, host.provider, fake);
            const authorize = new URL(started.result.authorizeUrl);
            expect(authorize.origin).to.equal(fake.url);
            expect(authorize.searchParams.get('redirect_uri')).to.equal(`http://localhost:3000/dashboard/git/${host.provider}/callback`);
            expect(authorize.searchParams.get('client_id')).to.equal(fake.oauth.clientId);
            expect(started.result.state).to.match(/^[0-9A-Za-z]{32}$/);

            expect(completed.statusCode, completed.payload).to.equal(201);
            expect(completed.result).to.include({ provider: host.provider, projectId: owner.projectId, accountLogin: 'ada', status: 'connected' });
            expect(completed.payload).to.not.include('token"');
            token = fake.oauth.live().find((candidate) => !before.has(candidate))!;
            expect(token).to.exist();
            expect(fake.oauth.grants.at(-1)).to.equal({ grantType: 'authorization_code', redirectUri: `http://localhost:3000/dashboard/git/${host.provider}/callback` });

            const accounts = await call('GET', `/v1/projects/${owner.projectId}/connected-accounts`, (await createKey(instance.server, owner, ['projects:read'])).token);
            expect(accounts.result.map((account: { provider: string; accountLogin: string }) => [account.provider, account.accountLogin])).to.equal([[host.provider, 'ada']]);
        });

        it('keeps the tokens sealed: neither is in clear anywhere in the database', async () => {
            const database = JSON.stringify(await dump(instance.server.app.knex));
            expect(database).to.not.include(token);
            const row = await instance.server.app.knex('git_connections').where({ project_id: owner.projectId }).first();
            expect(row.token).to.match(/^v1\./);
            if (row.refresh_token) {
                expect(row.refresh_token).to.match(/^v1\./);
                expect(database).to.not.include('rt_');
            }
        });

        it('lists repositories across two pages, as the host pages them, with a git:read key', async () => {
            const key = (await createKey(instance.server, owner, ['git:read'])).token;
            const first = await call('GET', `${host.reposUrl(owner.projectId)}?limit=3`, key);
            expect(first.statusCode, first.payload).to.equal(200);
            expect(first.result).to.have.length(3);
            const next = /<([^>]+)>;\s*rel="next"/.exec(first.headers.link as string)![1];
            expect(new URL(next, 'http://x').searchParams.get('cursor')).to.exist();
            const second = await call('GET', next, key);
            expect(second.statusCode).to.equal(200);
            expect(second.headers.link).to.not.exist();
            const names = [...first.result, ...second.result].map((repo: { fullName: string }) => repo.fullName).sort();
            expect(names).to.equal(five(host.repo.split('/')[0]));

            if (host.accountsUrl) {
                const accounts = await call('GET', host.accountsUrl(owner.projectId), key);
                expect(accounts.statusCode).to.equal(200);
                expect(accounts.result.map((account: { login: string }) => account.login)).to.include(host.repo.split('/')[0]);
            }

            expect((await call('GET', `${host.reposUrl(owner.projectId)}?cursor=abc`, key)).statusCode).to.equal(400);
        });

        it('reads the commits of an app building from one of its repositories', async () => {
            const app = await createApp(instance.server, owner, { repository: { provider: host.provider, repo: host.repo, branch: 'main' } });
            const res = await call('GET', `/v1/apps/${app.name}/commits?limit=5`, owner.session);
            expect(res.statusCode, res.payload).to.equal(200);
            expect(res.result.map((commit: { message: string }) => commit.message)).to.equal(['Add checkout', 'Initial commit']);
        });

        it('answers 502 naming the host when it is down', async () => {
            fake.down = true;
            try {
                const res = await call('GET', host.reposUrl(owner.projectId), owner.session);
                expect(res.statusCode).to.equal(502);
                expect(String(res.result.message)).to.startWith(host.title.split(' ')[0]);
            }
            finally {
                fake.down = false;
            }
        });

        it('disconnects: the tokens are deleted here and, where the host allows, revoked there', async () => {
            const viewer = await register(instance.server, 'git-viewer');
            await joinProject(instance.server, owner, owner.projectId, viewer, 'developer');
            expect((await call('DELETE', `/v1/projects/${owner.projectId}/${host.provider}/disconnect`, viewer.session)).statusCode, 'a developer may not').to.equal(403);

            const res = await call('DELETE', `/v1/projects/${owner.projectId}/${host.provider}/disconnect`, (await createKey(instance.server, owner, ['git:write'])).token);
            expect(res.statusCode, res.payload).to.equal(200);
            expect(res.result).to.include({ provider: host.provider, accountLogin: 'ada', status: 'disconnected', revoked: host.revokes ? 'revoked' : 'unsupported' });
            expect(fake.oauth.valid(token) === null).to.equal(host.revokes);
            expect(await instance.server.app.knex('git_connections').where({ project_id: owner.projectId })).to.equal([]);
            expect((await call('GET', `/v1/projects/${owner.projectId}/connected-accounts`, owner.session)).result).to.equal([]);
            expect((await call('GET', host.reposUrl(owner.projectId), owner.session)).statusCode).to.equal(409);
            expect((await call('DELETE', `/v1/projects/${owner.projectId}/${host.provider}/disconnect`, owner.session)).statusCode).to.equal(404);
        });
    });
}
