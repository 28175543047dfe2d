import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { caller, createKey, joinProject, login, register, type TestUser } from '../../helpers/api';
import { createApp } from '../../helpers/apps';
import { digest } from '../../helpers/db';
import { connectThroughFlow, gitHostFakes, type GitHostFakes } from '../../helpers/git-hosts';
import { testServer, type TestServer } from '../../helpers/server';

// The connect flow's refusals (a replayed, foreign, expired or cross-host state is 400 and stores nothing), who may
// connect, a code the host refuses, a revoked token (409 saying to reconnect), and the refresh of an expiring token
// before it is used, once however many requests need it at the same time.
const { describe, it, before, after } = exports.lab = Lab.script();
const { expect } = Code;

describe('the Git connect flow', () => {

    let fakes: GitHostFakes;
    let instance: TestServer;
    let owner: TestUser;
    const call = caller(() => instance.server);
    const start = async (user: TestUser, provider = 'github', projectId = user.projectId) => {
        const res = await call('GET', `/v1/${provider}/connect?projectId=${projectId}`, user.session);
        expect(res.statusCode, res.payload).to.equal(200);
        return res.result.state as string;
    };

    const unchanged = async (action: () => Promise<void>) => {
        const before = await digest(instance.server.app.knex);
        await action();
        expect(await digest(instance.server.app.knex), 'the database changed').to.equal(before);
    };

    before(async () => {
        fakes = await gitHostFakes();
        fakes.gitlab.store.addRepo('ada/notes');
        instance = await testServer(fakes.config);
        owner = await register(instance.server, 'flow-owner');
    });

    after(async () => {
        await instance?.stop();
        await fakes?.stop();
    });

    it('refuses a replayed state with 400 and stores nothing', async () => {
        const state = await start(owner);
        const first = await call('POST', '/v1/github/callback', owner.session, { code: fakes.github.oauth.approve('ada'), state });
        expect(first.statusCode).to.equal(201);
        const code = fakes.github.oauth.approve('ada');
        await unchanged(async () => {
            const replay = await call('POST', '/v1/github/callback', owner.session, { code, state });
            expect(replay.statusCode).to.equal(400);
            expect(String(replay.result.message)).to.startWith('The state is not valid: it was used already, has expired, or was not issued to this session for GitHub.');
        });
    });

    it('refuses another user\'s state and another session\'s, leaving the state to its own session', async () => {
        const state = await start(owner, 'gitlab');
        const stranger = await register(instance.server, 'flow-stranger');
        const otherSession = await login(instance.server, owner);
        const code = fakes.gitlab.oauth.approve('ada');
        await unchanged(async () => {
            expect((await call('POST', '/v1/gitlab/callback', stranger.session, { code, state })).statusCode).to.equal(400);
            expect((await call('POST', '/v1/gitlab/callback', otherSession.session, { code, state })).statusCode).to.equal(400);
        });
        const own = await call('POST', '/v1/gitlab/callback', owner.session, { code, state });
        expect(own.statusCode, own.payload).to.equal(201);
    });

    it('refuses a state spent at another host, an expired one and a malformed one', async () => {
        const state = await start(owner, 'bitbucket');
        await unchanged(async () => {
            expect((await call('POST', '/v1/github/callback', owner.session, { code: fakes.github.oauth.approve('ada'), state })).statusCode).to.equal(400);
            expect((await call('POST', '/v1/bitbucket/callback', owner.session, { code: 'x', state: 'short' })).statusCode).to.equal(400);
        });
        await instance.server.app.knex('git_connect_states').update({ expires_at: new Date(Date.now() - 1000).toISOString() });
        await unchanged(async () => {
            expect((await call('POST', '/v1/bitbucket/callback', owner.session, { code: fakes.bitbucket.oauth.approve('ada'), state })).statusCode).to.equal(400);
        });
    });

    it('is session only, and for a project\'s admins and owners', async () => {
        const key = (await createKey(instance.server, owner, ['git:read', 'git:write'])).token;
        expect((await call('GET', `/v1/github/connect?projectId=${owner.projectId}`, key)).statusCode).to.equal(403);
        expect((await call('GET', '/v1/github/connect', owner.session)).statusCode).to.equal(400);

        const developer = await register(instance.server, 'flow-developer');
        await joinProject(instance.server, owner, owner.projectId, developer, 'developer');
        const refused = await call('GET', `/v1/github/connect?projectId=${owner.projectId}`, developer.session);
        expect(refused.statusCode).to.equal(403);
        expect(refused.result.message).to.equal('This action requires the admin role or higher in the project');

        // Demoted between the start and the callback: refused (the state is spent), no connection stored.
        const team = (await call('POST', '/v1/projects', owner.session, { name: 'Demotions' })).result;
        const admin = await register(instance.server, 'flow-admin');
        await joinProject(instance.server, owner, team.id, admin, 'admin');
        const state = await start(admin, 'github', team.id);
        await call('PATCH', `/v1/projects/${team.id}/members/${admin.id}`, owner.session, { role: 'viewer' });
        expect((await call('POST', '/v1/github/callback', admin.session, { code: fakes.github.oauth.approve('ada'), state })).statusCode).to.equal(403);
        expect(await instance.server.app.knex('git_connections').where({ project_id: team.id })).to.equal([]);
    });

    it('answers 400 when the host refuses the code, and stores no connection', async () => {
        const project = (await call('POST', '/v1/projects', owner.session, { name: 'Refused code' })).result;
        const state = await start(owner, 'github', project.id);
        const res = await call('POST', '/v1/github/callback', owner.session, { code: 'a-code-github-never-issued', state });
        expect(res.statusCode).to.equal(400);
        expect(String(res.result.message)).to.startWith('GitHub refused the authorization code (bad_verification_code)');
        expect(await instance.server.app.knex('git_connections').where({ project_id: project.id })).to.equal([]);
    });

    it('answers 409 when the host is not set up on this server', async () => {
        const bare = await testServer({ github: { apiUrl: fakes.github.url } });
        try {
            const user = await register(bare.server, 'bare');
            const res = await bare.server.inject({ method: 'GET', url: `/v1/github/connect?projectId=${user.projectId}`, headers: { authorization: user.session } });
            expect(res.statusCode).to.equal(409);
            expect((res.result as { message: string }).message).to.equal('GitHub is not set up on this server: its operator sets GITHUB_CLIENT_ID and GITHUB_CLIENT_SECRET (docs/git.md)');
        }
        finally {
            await bare.stop();
        }
    });

    it('answers 409 saying to reconnect once the host refuses the token, and marks the connection', async () => {
        const user = await register(instance.server, 'flow-revoked');
        expect((await connectThroughFlow(instance.server, user, 'github', fakes.github)).completed.statusCode).to.equal(201);
        fakes.github.addOrg('acme');
        fakes.github.oauth.revokeAll();
        const res = await call('GET', `/v1/projects/${user.projectId}/github/accounts`, user.session);
        expect(res.statusCode).to.equal(409);
        expect(res.result.message).to.equal('GitHub refused the project\'s connection (the token was revoked or has expired): reconnect GitHub to the project with GET /v1/github/connect?projectId=<project>');
        const accounts = await call('GET', `/v1/projects/${user.projectId}/connected-accounts`, user.session);
        expect(accounts.result[0].status).to.equal('reconnect');

        // Reconnecting makes it whole again.
        expect((await connectThroughFlow(instance.server, user, 'github', fakes.github)).completed.statusCode).to.equal(201);
        expect((await call('GET', `/v1/projects/${user.projectId}/github/accounts`, user.session)).statusCode).to.equal(200);
    });
});

describe('a token that expires', () => {

    let fakes: GitHostFakes;
    let instance: TestServer;
    let owner: TestUser;
    const call = caller(() => instance.server);

    before(async () => {
        // Tokens of one minute: inside the refresh margin from the start, so every use needs a fresh one.
        fakes = await gitHostFakes({ oauth: { expiresIn: 60 } });
        fakes.gitlab.store.addRepo('ada/notes');
        fakes.gitlab.store.addCommit('ada/notes', 'main', 'Second');
        instance = await testServer(fakes.config);
        owner = await register(instance.server, 'refresh-owner');
        expect((await connectThroughFlow(instance.server, owner, 'gitlab', fakes.gitlab)).completed.statusCode).to.equal(201);
    });

    after(async () => {
        await instance?.stop();
        await fakes?.stop();
    });

    it('is refreshed before it is used, once for requests that need it at the same time, and stored sealed', async () => {
        const before = await instance.server.app.knex('git_connections').where({ project_id: owner.projectId }).first();
        const refreshes = () => fakes.gitlab.oauth.grants.filter((grant) => grant.grantType === 'refresh_token').length;
        const counted = refreshes();
        // The refreshed token lives an hour: a request that reads the connection after the refresh landed needs none,
        // one that read it before joins the refresh in flight. Either way the host sees one refresh.
        fakes.gitlab.oauth.expiresIn = 3600;
        const answers = await Promise.all([1, 2, 3].map(() => call('GET', `/v1/projects/${owner.projectId}/gitlab/repos`, owner.session)));
        expect(answers.map((res) => res.statusCode)).to.equal([200, 200, 200]);
        expect(refreshes() - counted).to.equal(1);
        const after = await instance.server.app.knex('git_connections').where({ project_id: owner.projectId }).first();
        expect(Number(after.generation)).to.equal(Number(before.generation) + 1);
        expect(after.token).to.not.equal(before.token);
        expect(fakes.gitlab.oauth.live()).to.have.length(1);
        for (const live of fakes.gitlab.oauth.live()) {
            expect(JSON.stringify(after)).to.not.include(live);
        }

        const app = await createApp(instance.server, owner, { repository: { provider: 'gitlab', repo: 'ada/notes', branch: 'main' } });
        const commits = await call('GET', `/v1/apps/${app.name}/commits`, owner.session);
        expect(commits.result.map((commit: { message: string }) => commit.message)).to.equal(['Second', 'Initial commit']);
        fakes.gitlab.oauth.expiresIn = 60;
    });

    it('answers 409 saying to reconnect when the host refuses the refresh', async () => {
        fakes.gitlab.oauth.revokeAll();
        const res = await call('GET', `/v1/projects/${owner.projectId}/gitlab/repos`, owner.session);
        expect(res.statusCode).to.equal(409);
        expect(String(res.result.message)).to.startWith('GitLab refused the project\'s connection');
        expect((await call('GET', `/v1/projects/${owner.projectId}/connected-accounts`, owner.session)).result[0].status).to.equal('reconnect');
    });
});
