import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';
import * as Yaml from 'yaml';

import { caller, createKey, register, type TestUser } from '../../helpers/api';
import { connectGitHub, createApp, deploymentSettled, eventually } from '../../helpers/apps';
import { fakeGitHub, type FakeGitHub } from '../../helpers/fake-github';
import { testServer, type TestServer } from '../../helpers/server';

// Commits, review apps and service-file commits go through the real GitHub adapter to a fake GitHub on 127.0.0.1.
const { describe, it, before, after } = exports.lab = Lab.script();
const { expect } = Code;

describe('app repository: commits, review apps and service files', () => {

    let github: FakeGitHub;
    let instance: TestServer;
    let owner: TestUser;
    let app: { name: string; id: string };
    const call = caller(() => instance.server);

    before(async () => {
        github = await fakeGitHub({ login: 'acme' });
        github.addRepo('acme/shop', { files: { 'package.json': '{}' } });
        github.addCommit('acme/shop', 'main', 'Add checkout');
        github.addCommit('acme/shop', 'feature/cart', 'Cart drawer');
        github.addPull('acme/shop', { title: 'Cart drawer', head: 'feature/cart' });
        instance = await testServer({ github: { apiUrl: github.url }, outbound: { allowlist: ['127.0.0.1'] } });
        instance.server.plugins['hostless-jobs'].queue.start();
        owner = await register(instance.server, 'git-owner');
        app = await createApp(instance.server, owner, { repository: { provider: 'github', repo: 'acme/shop', branch: 'main' }, startCommand: 'npm start', environmentVariables: { STRIPE_SECRET: 'sk_live_never' } });
    });

    after(async () => {
        await instance?.stop();
        await github?.stop();
    });

    it('needs a repository and a connection before it can read commits', async () => {
        const bare = await createApp(instance.server, owner);
        const noRepo = await call('GET', `/v1/apps/${bare.name}/commits`, owner.session);
        expect(noRepo.statusCode).to.equal(409);
        expect(noRepo.result.message).to.equal(`The app ${bare.name} has no repository: set one with PATCH /v1/apps/${bare.name} {"repository": {...}}`);
        const noConnection = await call('GET', `/v1/apps/${app.name}/commits`, owner.session);
        expect(noConnection.statusCode).to.equal(409);
        expect(noConnection.result.message).to.equal('The project has no GitHub connection: connect GitHub to the project first');
    });

    describe('with the project connected to GitHub', () => {

        before(async () => {
            await connectGitHub(instance.server, owner.projectId, github.token);
        });

        it('lists the branch\'s commits, newest first, with the connection\'s token and never the app\'s secrets', async () => {
            const res = await call('GET', `/v1/apps/${app.name}/commits?limit=5`, (await createKey(instance.server, owner, ['apps:read'])).token);
            expect(res.statusCode).to.equal(200);
            expect(res.result.map((commit: { message: string }) => commit.message)).to.equal(['Add checkout', 'Initial commit']);
            const sent = github.requests.at(-1)!;
            expect(sent.headers.authorization).to.equal(`Bearer ${github.token}`);
            expect(JSON.stringify(github.requests)).to.not.include('sk_live_never');
        });

        it('lists open pull requests and deploys a review app of one, then extends and expires it', async () => {
            const pulls = await call('GET', `/v1/apps/${app.name}/review-apps/pull-requests`, owner.session);
            expect(pulls.result.map((pull: { number: number; title: string; reviewApp: unknown }) => [pull.number, pull.title, pull.reviewApp])).to.equal([[1, 'Cart drawer', null]]);

            const triggered = await call('POST', `/v1/apps/${app.name}/review-apps/trigger`, owner.session, { pullRequest: 1 });
            expect(triggered.statusCode).to.equal(201);
            expect(triggered.result).to.include({ name: `${app.name}-pr-1`, pullRequest: 1, branch: 'feature/cart', status: 'deploying' });
            const deployment = await deploymentSettled(instance.server, owner, app.name, triggered.result.deploymentId);
            expect(deployment).to.include({ status: 'live', trigger: 'review', branch: 'feature/cart', reviewAppId: triggered.result.id });
            expect((await call('GET', `/v1/apps/${app.name}`, owner.session)).result.liveDeploymentId, 'a review app never becomes the app\'s live deployment').to.equal(null);
            const listed = await call('GET', `/v1/apps/${app.name}/review-apps`, owner.session);
            expect(listed.result.map((review: { status: string }) => review.status)).to.equal(['live']);

            expect((await call('POST', `/v1/apps/${app.name}/review-apps/trigger`, owner.session, { pullRequest: 9 })).statusCode).to.equal(404);
            const extended = await call('PATCH', `/v1/apps/${app.name}/review-apps/extend`, owner.session, { pullRequest: 1, hours: 48 });
            expect(Date.parse(extended.result.expiresAt) - Date.parse(triggered.result.expiresAt)).to.equal(48 * 3600_000);

            const knex = instance.server.app.knex;
            await knex('reviews').where({ id: triggered.result.id }).update({ expires_at: new Date(Date.now() - 1000).toISOString() });
            await knex('jobs').where({ type: 'reviews.expire' }).update({ run_at: new Date().toISOString() });
            await eventually(async () => (await call('GET', `/v1/apps/${app.name}/review-apps`, owner.session)).result, (reviews: unknown[]) => reviews.length === 0, 'expiry');
            expect((await call('GET', `/v1/apps/${app.name}/deployments/${triggered.result.deploymentId}`, owner.session)).result.status).to.equal('canceled');
        });

        it('generates a service file from the configuration, with variable names and no values', async () => {
            await call('POST', `/v1/apps/${app.name}/worker-processes`, owner.session, { name: 'mailer', command: 'node mailer.js' });
            await call('POST', `/v1/apps/${app.name}/cron-jobs`, owner.session, { name: 'digest', schedule: '0 8 * * 1', command: 'node digest.js' });
            const res = await call('POST', `/v1/apps/${app.name}/hostless-file/generate`, owner.session, {});
            expect(res.result.format).to.equal('yaml');
            expect(res.result.content).to.not.include('sk_live_never');
            expect(Yaml.parse(res.result.content)).to.equal({
                version: 1,
                app: { name: app.name, plan: 'starter', region: 'eu-west', instances: 1, start: 'npm start', repository: { provider: 'github', repo: 'acme/shop', branch: 'main' }, autoDeploy: false, env: ['STRIPE_SECRET'] },
                workers: [{ name: 'mailer', command: 'node mailer.js', instances: 1 }],
                cronJobs: [{ name: 'digest', schedule: '0 8 * * 1', command: 'node digest.js' }]
            });
            const json = await call('POST', `/v1/apps/${app.name}/hostless-file/generate`, owner.session, { format: 'json' });
            expect(JSON.parse(json.result.content).app.name).to.equal(app.name);
        });

        it('stores validated versions, commits the latest to the repository, and prices it', async () => {
            const file = `version: 1\napp:\n  name: ${app.name}\n  plan: standard\n  region: eu-west\n  instances: 3\nworkers:\n  - name: mailer\n    command: node mailer.js\n    instances: 2\n    plan: starter\ndatabases:\n  - name: shop-db\n    engine: postgres\n    plan: standard\n`;
            const stored = await call('POST', `/v1/apps/${app.name}/hostless-file/update`, owner.session, { content: file });
            expect(stored.statusCode).to.equal(201);
            expect(stored.result).to.include({ version: 1, format: 'yaml', committedSha: null });
            const second = await call('POST', `/v1/apps/${app.name}/hostless-file/update`, owner.session, { content: file.replace('instances: 3', 'instances: 4') });
            expect(second.result.version).to.equal(2);

            const invalid: Array<[string, string]> = [
                [file.replace(app.name, 'someone-else'), `The service file describes "someone-else", not ${app.name}`],
                [file.replace('instances: 3', 'instances: 9'), 'The service file is invalid: "app.instances" must be at most 5 on the standard plan'],
                [file.replace('plan: standard\n  region', 'plan: huge\n  region'), 'The service file is invalid: "app.plan" must be one of starter, standard, pro'],
                ['version: 1\napp: [unclosed', 'The service file is not valid YAML: Flow sequence in block collection must be sufficiently indented and end with a ]'],
                [`${file}cronJobs:\n  - name: bad\n    schedule: "61 * * * *"\n    command: x\n`, 'The service file is invalid: the schedule of cron job "bad" is not a valid cron expression']
            ];
            for (const [content, message] of invalid) {
                const res = await call('POST', `/v1/apps/${app.name}/hostless-file/update`, owner.session, { content });
                expect(res.statusCode, message).to.equal(400);
                expect(res.result.message.split(' at line')[0]).to.equal(message);
            }

            const committed = await call('POST', `/v1/apps/${app.name}/hostless-file/commit`, owner.session, { message: 'Describe the shop' });
            expect(committed.statusCode).to.equal(200);
            expect(committed.result).to.include({ version: 2 });
            expect(committed.result.committedSha).to.match(/^[0-9a-f]{40}$/);
            expect(github.file('acme/shop', 'main', 'hostless.yaml')).to.equal(second.result.content);
            const commits = await call('GET', `/v1/apps/${app.name}/commits?limit=1`, owner.session);
            expect(commits.result[0]).to.include({ sha: committed.result.committedSha, message: 'Describe the shop' });

            const costs = await call('POST', `/v1/apps/${app.name}/hostless-file/calculate-costs`, owner.session, {});
            expect(costs.result).to.equal({
                currency: 'USD',
                monthly: 4 * 25 + 2 * 7 + 35,
                lines: [
                    { kind: 'app', name: app.name, plan: 'standard', quantity: 4, unitMonthly: 25, monthly: 100 },
                    { kind: 'worker', name: 'mailer', plan: 'starter', quantity: 2, unitMonthly: 7, monthly: 14 },
                    { kind: 'database', name: 'shop-db', plan: 'standard', quantity: 1, unitMonthly: 35, monthly: 35 }
                ]
            });
        });

        it('estimates a posted file without an app, with service-file:read', async () => {
            const key = await createKey(instance.server, owner, ['service-file:read']);
            const res = await call('POST', '/v1/estimate-costs', key.token, { content: JSON.stringify({ version: 1, app: { name: 'quote', plan: 'pro', region: 'us-east', instances: 2 }, cronJobs: [{ name: 'c', schedule: '@daily'.replace('@daily', '0 0 * * *'), command: 'x' }] }) });
            expect(res.statusCode).to.equal(200);
            expect(res.result).to.include({ currency: 'USD', monthly: 2 * 85 + 1 });
            expect((await call('POST', '/v1/estimate-costs', key.token, { content: '{"version": 2}' })).statusCode).to.equal(400);
        });

        it('refuses a file nested thousands of levels deep with 400 before parsing it, and never repeats a parser\'s internal error', async () => {
            const key = await createKey(instance.server, owner, ['service-file:read']);
            const deep = {
                'YAML flow': `version: 1\napp: ${'['.repeat(100_000)}${']'.repeat(100_000)}\n`,
                'YAML blocks': `version: 1\napp:\n${Array.from({ length: 700 }, (_, i) => `${' '.repeat(i + 2)}a${i}:`).join('\n')} x\n`,
                'YAML sequences': `version: 1\napp:\n  - ${'- '.repeat(60_000)}x\n`,
                'JSON': `{"version": 1, "app": ${'['.repeat(100_000)}${']'.repeat(100_000)}}`
            };
            for (const [kind, content] of Object.entries(deep)) {
                const res = await call('POST', '/v1/estimate-costs', key.token, { content });
                expect(res.statusCode, kind).to.equal(400);
                expect(res.result.message, kind).to.equal('The service file is nested too deeply: its schema needs no more than 4 levels');
            }

            const shallow = `version: 1\napp:\n  name: quote\n  plan: pro\n  region: us-east\n  instances: 1\n  env: ${'['.repeat(14)}${']'.repeat(14)}\n`;
            const res = await call('POST', '/v1/estimate-costs', key.token, { content: shallow });
            expect(res.statusCode).to.equal(400);
            expect(res.result.message).to.equal('The service file is invalid: "app.env[0]" must be a string');

            const json = await call('POST', '/v1/estimate-costs', key.token, { content: '{"version": 1, "app": }', format: 'json' });
            expect(json.result.message).to.equal('The service file is not valid JSON: Unexpected token \'}\'');
            const notObject = await call('POST', '/v1/estimate-costs', key.token, { content: '- 1\n- 2\n' });
            expect(notObject.result.message).to.equal('The service file must be an object');
        });

        it('reports GitHub refusing the connection as a conflict to fix, not a server error', async () => {
            await instance.server.app.knex('git_connections').where({ project_id: owner.projectId }).delete();
            await connectGitHub(instance.server, owner.projectId, 'ghp_revoked_token');
            const res = await call('GET', `/v1/apps/${app.name}/commits`, owner.session);
            expect(res.statusCode).to.equal(409);
            expect(res.result.message).to.equal('GitHub refused the project\'s connection (the token was revoked or has expired): reconnect GitHub to the project with GET /v1/github/connect?projectId=<project>');
            expect(res.payload).to.not.include('ghp_revoked');
        });
    });
});
