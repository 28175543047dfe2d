import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { caller, collaborate, createKey, joinProject, register, type TestUser } from '../../helpers/api';
import { createApp, deploymentSettled } from '../../helpers/apps';
import { testServer, type TestServer } from '../../helpers/server';

const { describe, it, before, after } = exports.lab = Lab.script();
const { expect } = Code;

describe('apps', () => {

    let instance: TestServer;
    let owner: TestUser;
    let viewer: TestUser;
    const call = caller(() => instance.server);

    before(async () => {
        instance = await testServer();
        instance.server.plugins['hostless-jobs'].queue.start();
        owner = await register(instance.server, 'owner');
        viewer = await register(instance.server, 'viewer');
        await joinProject(instance.server, owner, owner.projectId, viewer, 'viewer');
    });

    after(async () => {
        await instance?.stop();
    });

    it('goes through create, get, list, patch and delete', async () => {
        const key = await createKey(instance.server, owner, ['apps:read', 'apps:write', 'apps:delete']);
        const created = await call('POST', '/v1/apps', key.token, {
            name: 'round-trip', projectId: owner.projectId, buildCommand: 'npm run build', startCommand: 'npm start',
            repository: { provider: 'github', repo: 'acme/web', branch: 'main' }, environmentVariables: { API_URL: 'https://api.example.com' }
        });
        expect(created.statusCode).to.equal(201);
        expect(created.result).to.include({ name: 'round-trip', projectId: owner.projectId, status: 'created', plan: 'starter', region: 'eu-west', instances: 1, autoDeploy: false, liveDeploymentId: null });
        expect(created.result.repository).to.equal({ provider: 'github', repo: 'acme/web', branch: 'main' });
        expect(created.result.id).to.match(/^app_[0-9A-Za-z]{16}$/);

        const read = await call('GET', '/v1/apps/round-trip', key.token);
        expect(read.result).to.equal(created.result);
        const listed = await call('GET', `/v1/apps?projectId=${owner.projectId}`, key.token);
        expect(listed.result.map((app: { name: string }) => app.name)).to.include('round-trip');
        expect(listed.result.find((app: { name: string }) => app.name === 'round-trip')).to.equal(created.result);

        const patched = await call('PATCH', '/v1/apps/round-trip', key.token, { startCommand: null, autoDeploy: true, repository: null, region: 'us-east', environmentVariables: { API_URL: null, MODE: 'blue' } });
        expect(patched.statusCode).to.equal(200);
        expect(patched.result).to.include({ startCommand: null, autoDeploy: true, repository: null, region: 'us-east' });
        expect((await call('GET', '/v1/apps/round-trip/environment-variables', key.token)).result.map((v: { name: string; value: string }) => [v.name, v.value])).to.equal([['MODE', 'blue']]);

        expect((await call('DELETE', '/v1/apps/round-trip', key.token)).statusCode).to.equal(204);
        expect((await call('GET', '/v1/apps/round-trip', key.token)).statusCode).to.equal(404);
    });

    it('reserves the names of review apps: nobody may create <name>-pr-<number>', async () => {
        const taken = await call('POST', '/v1/apps', owner.session, { name: 'alpha-pr-1' });
        expect(taken.statusCode).to.equal(400);
        expect(taken.result.message).to.equal('"name" must not contain a -pr-<number> ending (reserved for review apps)');
        expect((await call('POST', '/v1/apps', owner.session, { name: 'alpha-pr' })).statusCode).to.equal(201);
        expect((await call('POST', '/v1/apps', owner.session, { name: 'pr-1-alpha' })).statusCode).to.equal(201);
    });

    it('keeps names unique across the platform and refuses what is not a DNS label', async () => {
        const other = await register(instance.server, 'other');
        await createApp(instance.server, owner, { name: 'taken-name' });
        const taken = await call('POST', '/v1/apps', other.session, { name: 'taken-name' });
        expect(taken.statusCode).to.equal(409);
        expect(taken.result.message).to.equal('The name taken-name is taken');
        for (const name of ['Upper', '-dash', 'dash-', 'a_b', 'x'.repeat(64), '1abc']) {
            expect((await call('POST', '/v1/apps', owner.session, { name })).statusCode, name).to.equal(400);
        }
    });

    it('applies the projectId rules: keys must name the project, sessions default to the personal one', async () => {
        const key = await createKey(instance.server, owner, ['apps:write']);
        const missing = await call('POST', '/v1/apps', key.token, { name: 'keyed-no-project' });
        expect(missing.statusCode).to.equal(400);
        expect(missing.result.message).to.equal('"projectId" is required when using an API key or OAuth token');
        const personal = await call('POST', '/v1/apps', owner.session, { name: 'session-default' });
        expect(personal.result.projectId).to.equal(owner.projectId);
        const team = await call('POST', '/v1/projects', owner.session, { name: 'Team' });
        const elsewhere = await call('GET', `/v1/apps/session-default?projectId=${team.result.id}`, owner.session);
        expect(elsewhere.statusCode).to.equal(403);
    });

    it('stores environment values sealed and shows them only to those allowed to see secrets', async () => {
        const app = await createApp(instance.server, owner, { environmentVariables: { DATABASE_URL: 'postgres://u:hunter2pass@db/app', PLAIN: 'x' } });
        const row = await instance.server.app.knex('env_vars').where({ resource_type: 'app', resource_id: app.id, name: 'DATABASE_URL' }).first();
        expect(String(row.value).startsWith('v1.')).to.be.true();
        expect(row.value).to.not.include('hunter2pass');

        const url = `/v1/apps/${app.name}/environment-variables`;
        const values = (res: { result: Array<{ name: string; value: string | null; set: boolean }> }) => res.result.map((v) => [v.name, v.value, v.set]);
        expect(values(await call('GET', url, owner.session))).to.equal([['DATABASE_URL', 'postgres://u:hunter2pass@db/app', true], ['PLAIN', 'x', true]]);
        expect(values(await call('GET', url, viewer.session))).to.equal([['DATABASE_URL', null, true], ['PLAIN', null, true]]);
        expect(values(await call('GET', url, (await createKey(instance.server, owner, ['apps:read'])).token))).to.equal([['DATABASE_URL', null, true], ['PLAIN', null, true]]);
        expect(values(await call('GET', url, (await createKey(instance.server, owner, ['apps:read', 'apps:write'])).token))[0][1]).to.equal('postgres://u:hunter2pass@db/app');
    });

    it('scales within the plan\'s bounds and refuses beyond them with 409', async () => {
        const app = await createApp(instance.server, owner);
        const up = await call('POST', `/v1/apps/${app.name}/scale/up`, owner.session, {});
        expect(up.result.instances).to.equal(2);
        const over = await call('POST', `/v1/apps/${app.name}/scale/up`, owner.session, { by: 1 });
        expect(over.statusCode).to.equal(409);
        expect(over.result.message).to.equal('Scaling to 3 instance(s) is outside the starter plan\'s bounds (1-2)');
        expect((await call('POST', `/v1/apps/${app.name}/scale/down`, owner.session, { by: 2 })).statusCode).to.equal(409);
        expect((await call('POST', `/v1/apps/${app.name}/scale/down`, owner.session)).result.instances).to.equal(1);

        const upgraded = await call('PATCH', `/v1/apps/${app.name}/upgrade`, owner.session, { plan: 'pro' });
        expect(upgraded.result.plan).to.equal('pro');
        expect((await call('POST', `/v1/apps/${app.name}/scale/up`, owner.session, { by: 9 })).result.instances).to.equal(10);
        const downgrade = await call('PATCH', `/v1/apps/${app.name}/upgrade`, owner.session, { plan: 'starter' });
        expect(downgrade.statusCode).to.equal(409);
        expect(downgrade.result.message).to.equal('The app runs 10 instance(s) is outside the starter plan\'s bounds (1-2)');
    });

    it('restarts only an app with a live deployment', async () => {
        const app = await createApp(instance.server, owner);
        const early = await call('POST', `/v1/apps/${app.name}/restart`, owner.session);
        expect(early.statusCode).to.equal(409);
        expect(early.result.message).to.equal(`Cannot restart ${app.name}: it has no live deployment (status: created)`);
        const deployment = await call('POST', `/v1/apps/${app.name}/deployments/new`, owner.session, {});
        await deploymentSettled(instance.server, owner, app.name, deployment.result.id);
        const restarted = await call('POST', `/v1/apps/${app.name}/restart`, owner.session);
        expect(restarted.statusCode).to.equal(200);
        const logs = await call('GET', `/v1/apps/${app.name}/logs?q=restart`, owner.session);
        expect(logs.result[0].message).to.equal(`Restart of ${app.name} requested: 1 instance(s) recorded as restarted`);
    });

    it('deletes an app with its deployments, domains, processes, cron jobs, collaborators, invitations and logs in one go', async () => {
        const app = await createApp(instance.server, owner);
        const spare = await register(instance.server, 'spare');
        const deployment = await call('POST', `/v1/apps/${app.name}/deployments/new`, owner.session, {});
        await deploymentSettled(instance.server, owner, app.name, deployment.result.id);
        await call('POST', `/v1/apps/${app.name}/custom-domains`, owner.session, { domain: `${app.name}.example.com` });
        await call('POST', `/v1/apps/${app.name}/worker-processes`, owner.session, { name: 'queue', command: 'node q.js' });
        await call('POST', `/v1/apps/${app.name}/cron-jobs`, owner.session, { name: 'nightly', schedule: '0 3 * * *', command: 'node n.js' });
        await collaborate(instance.server, owner, `/v1/apps/${app.name}`, spare, ['view']);
        const invited = await register(instance.server, 'invited');
        await call('PATCH', `/v1/apps/${app.name}/collaborators`, owner.session, { email: invited.email, permissions: ['view'] });

        expect((await call('DELETE', `/v1/apps/${app.name}`, owner.session)).statusCode).to.equal(204);
        const knex = instance.server.app.knex;
        for (const [table, column] of [['deployments', 'resource_id'], ['log_lines', 'resource_id'], ['domains', 'resource_id'], ['app_processes', 'app_id'], ['app_cron_jobs', 'app_id'], ['collaborators', 'resource_id'], ['invitations', 'resource_id'], ['env_vars', 'resource_id']] as const) {
            expect(await knex(table).where(column, app.id), table).to.equal([]);
        }

        expect((await call('GET', `/v1/apps/${app.name}`, spare.session)).statusCode).to.equal(404);
    });

    it('lists, for a project, only its apps', async () => {
        const team = await call('POST', '/v1/projects', owner.session, { name: 'Listing' });
        await createApp(instance.server, owner, { name: 'in-team', projectId: team.result.id });
        const listed = await call('GET', `/v1/projects/${team.result.id}/apps`, (await createKey(instance.server, owner, ['projects:read'])).token);
        expect(listed.result.map((app: { name: string }) => app.name)).to.equal(['in-team']);
    });

    it('searches an app\'s deployments, logs and environment variable names', async () => {
        const app = await createApp(instance.server, owner, { environmentVariables: { STRIPE_KEY: 'sk_x', OTHER: 'y' } });
        const deployment = await call('POST', `/v1/apps/${app.name}/deployments/new`, owner.session, { branch: 'feature-stripe' });
        await deploymentSettled(instance.server, owner, app.name, deployment.result.id);
        const found = await call('GET', `/v1/apps/${app.name}/search?q=stripe`, owner.session);
        expect(found.result.environmentVariables).to.equal(['STRIPE_KEY']);
        expect(found.result.deployments.map((d: { id: string }) => d.id)).to.equal([deployment.result.id]);
        const percent = await call('GET', `/v1/apps/${app.name}/search?q=%25`, owner.session);
        expect(percent.result.environmentVariables).to.equal([]);
    });
});
