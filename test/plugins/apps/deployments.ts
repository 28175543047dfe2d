import * as ChildProcess from 'node:child_process';
import * as Path from 'node:path';

import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { caller, register, type TestUser } from '../../helpers/api';
import { createApp, deploymentSettled, eventually } from '../../helpers/apps';
import { testServer, type TestServer } from '../../helpers/server';

const { describe, it, before, after } = exports.lab = Lab.script();
const { expect } = Code;

describe('app deployments (records driver)', () => {

    let instance: TestServer;
    let owner: TestUser;
    const call = caller(() => instance.server);

    before(async () => {
        instance = await testServer();
        instance.server.plugins['hostless-jobs'].queue.start();
        owner = await register(instance.server, 'deployer');
    });

    after(async () => {
        await instance?.stop();
    });

    it('goes queued -> building -> deploying -> live and leaves its transitions in the logs', async () => {
        const app = await createApp(instance.server, owner, { buildCommand: 'npm run build', startCommand: 'node server.js', environmentVariables: { SECRET_TOKEN: 'do-not-show' } });
        const created = await call('POST', `/v1/apps/${app.name}/deployments/new`, owner.session, {});
        expect(created.statusCode).to.equal(201);
        expect(created.result).to.include({ status: 'queued', driver: 'records', trigger: 'manual', appName: app.name });
        expect(created.result.configuration).to.include({ plan: 'starter', instances: 1, buildCommand: 'npm run build', environmentVariables: ['SECRET_TOKEN'] });
        expect(JSON.stringify(created.result)).to.not.include('do-not-show');

        const live = await deploymentSettled(instance.server, owner, app.name, created.result.id);
        expect(live.status).to.equal('live');
        expect(live.buildingAt <= live.deployingAt && live.deployingAt <= live.finishedAt).to.be.true();
        expect((await call('GET', `/v1/apps/${app.name}`, owner.session)).result).to.include({ status: 'live', liveDeploymentId: created.result.id });

        const build = await call('GET', `/v1/apps/${app.name}/deployments/${created.result.id}/logs`, owner.session);
        expect(build.result.map((line: { message: string }) => line.message)).to.equal([
            `Deployment ${created.result.id} queued (manual)`,
            'Building',
            `Build of ${created.result.id} started for ${app.name}`,
            'Build command: npm run build',
            'The records driver keeps state only: no code was fetched or built',
            `Build of ${created.result.id} finished`
        ]);
        const release = await call('GET', `/v1/apps/${app.name}/deployments/${created.result.id}/post-build-logs`, owner.session);
        expect(release.result.map((line: { message: string }) => line.message)).to.equal([
            'Deploying',
            `Releasing ${created.result.id} to 1 instance(s) on the starter plan`,
            'Start command: node server.js',
            `${created.result.id} is live (records driver: no process was started)`
        ]);

        const stats = await call('GET', `/v1/apps/${app.name}/deployments/${created.result.id}/stats`, owner.session);
        expect(stats.result).to.include({ deploymentId: created.result.id, status: 'live', driver: 'records' });
        expect(stats.result.durationsMs.total).to.be.a.number();
    });

    it('supersedes the older live deployment and reruns one with its recorded configuration', async () => {
        const app = await createApp(instance.server, owner, { startCommand: 'node v1.js' });
        const first = await call('POST', `/v1/apps/${app.name}/deployments/new`, owner.session, {});
        await deploymentSettled(instance.server, owner, app.name, first.result.id);
        await call('PATCH', `/v1/apps/${app.name}`, owner.session, { startCommand: 'node v2.js' });
        const second = await call('POST', `/v1/apps/${app.name}/deployments/new`, owner.session, { commitSha: 'abc1234' });
        await deploymentSettled(instance.server, owner, app.name, second.result.id);
        expect((await call('GET', `/v1/apps/${app.name}/deployments/${first.result.id}`, owner.session)).result.status).to.equal('superseded');

        const rerun = await call('POST', `/v1/apps/${app.name}/deployments/${first.result.id}/rerun`, owner.session);
        expect(rerun.statusCode).to.equal(201);
        expect(rerun.result).to.include({ trigger: 'rerun', rerunOf: first.result.id });
        expect(rerun.result.configuration.startCommand).to.equal('node v1.js');
        await deploymentSettled(instance.server, owner, app.name, rerun.result.id);
        const listed = await call('GET', `/v1/apps/${app.name}/deployments`, owner.session);
        expect(listed.result.map((d: { id: string; status: string }) => [d.id, d.status])).to.equal([
            [rerun.result.id, 'live'], [second.result.id, 'superseded'], [first.result.id, 'superseded']
        ]);
        expect((await call('GET', `/v1/apps/${app.name}/deployments?status=live`, owner.session)).result).to.have.length(1);

        const stats = await call('GET', `/v1/apps/${app.name}/build/stats`, owner.session);
        expect(stats.result).to.include({ deployments: 3, live: 1, succeeded: 3, failed: 0, inProgress: 0 });
        expect(stats.result.buildMs.average).to.be.a.number();
        const wentLive = (await call('GET', `/v1/apps/${app.name}/deployments/${rerun.result.id}`, owner.session)).result;
        expect(stats.result.lastDeployedAt, 'when it went live, not when it was queued').to.equal(wentLive.finishedAt);
        expect(stats.result.lastDeployedAt).to.not.equal(wentLive.createdAt);
    });

    it('accepts an empty JSON object, and refuses unknown fields', async () => {
        const app = await createApp(instance.server, owner);
        expect((await call('POST', `/v1/apps/${app.name}/deployments/new`, owner.session)).statusCode).to.equal(201);
        expect((await call('POST', `/v1/apps/${app.name}/deployments/new`, owner.session, { clean: true })).statusCode).to.equal(400);
        expect((await call('POST', `/v1/apps/${app.name}/deployments/new`, owner.session, { commitSha: 'not hex' })).statusCode).to.equal(400);
    });

    it('answers 404 for another app\'s deployment under this app\'s name', async () => {
        const [a, b] = [await createApp(instance.server, owner), await createApp(instance.server, owner)];
        const deployment = await call('POST', `/v1/apps/${a.name}/deployments/new`, owner.session, {});
        const crossed = await call('GET', `/v1/apps/${b.name}/deployments/${deployment.result.id}`, owner.session);
        expect(crossed.statusCode).to.equal(404);
        expect(crossed.result.message).to.equal('Deployment not found');
    });
});

describe('a deployment in flight when the server is killed', () => {

    // Two servers start here, one of them a forked process compiling the sources as it loads: slow on a busy machine.
    it('is finished by the server that comes back', { timeout: 240_000 }, async () => {
        const first = await testServer({ runtime: { driver: 'records', recordsStepDelayMs: 300 } });
        const owner = await register(first.server, 'killed');
        const app = await createApp(first.server, owner);
        const config = { ...first.config, jobs: { mode: 'all' as const, concurrency: 2, leaseMs: 600 }, runtime: { driver: 'records' as const, recordsStepDelayMs: 300 } };
        await first.server.stop();                                          // its database stays; a child process takes over

        const child = ChildProcess.fork(Path.join(__dirname, '..', '..', 'fixtures', 'api-server.ts'), [JSON.stringify(config)], {
            execArgv: ['-r', Path.join(__dirname, '..', '..', '..', 'scripts', 'ts-register.js')], stdio: ['ignore', 'ignore', 'inherit', 'ipc']
        });
        const { port } = await new Promise<{ port: number }>((resolve, reject) => {
            child.once('message', (message) => resolve(message as { port: number }));
            child.once('exit', (code) => reject(new Error(`the server exited with ${code}`)));
        });

        const base = `http://127.0.0.1:${port}/v1/apps/${app.name}`;
        const headers = { authorization: owner.session, 'content-type': 'application/json' };
        const created = await (await fetch(`${base}/deployments/new`, { method: 'POST', headers, body: '{}' })).json() as { id: string };
        // Killed mid-build: after the driver's first build line is stored (the status moves to building a moment before it).
        const started = (lines: Array<{ message: string }>) => lines.some((line) => line.message.startsWith(`Build of ${created.id} started`));
        await eventually(async () => await (await fetch(`${base}/deployments/${created.id}/logs`, { headers })).json() as Array<{ message: string }>, started, 'the build to start');
        child.kill('SIGKILL');
        await new Promise((resolve) => child.once('exit', resolve));

        const second = await testServer({ ...config, jobs: { mode: 'api', concurrency: 2, leaseMs: 600 } });
        try {
            const knex = second.server.app.knex;
            expect((await knex('deployments').where({ id: created.id }).first()).status).to.equal('building');
            second.server.plugins['hostless-jobs'].queue.start();
            const settled = await deploymentSettled(second.server, owner, app.name, created.id);
            expect(settled.status).to.equal('live');
            // The deployment goes live inside the job; the job's own row is marked a moment after its handler returns.
            const job = await eventually(async () => await knex('jobs').where({ idempotency_key: `deployment:${created.id}` }).first(), (row) => row.status !== 'running', 'the job to finish');
            expect(job).to.include({ status: 'succeeded', attempts: 2 });
            const logs = await caller(() => second.server)('GET', `/v1/apps/${app.name}/deployments/${created.id}/logs`, owner.session);
            expect(logs.result.filter((line: { message: string }) => line.message.startsWith(`Build of ${created.id} started`))).to.have.length(2);
        }
        finally {
            await second.stop();
            await first.stop();                                             // its folder or schema held the database
        }
    });
});
