import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { caller, collaborate, createKey, register, type TestUser } from '../helpers/api';
import { eventually } from '../helpers/apps';
import { testServer, type TestServer } from '../helpers/server';

// Workers through the runtime-resource mechanism: settings, sealed environment, scaling within the plan,
// deployments through the runtime driver, logs and metrics that invent nothing, collaborators who see exactly their
// worker, and a delete that takes everything it owns.
const { describe, it, before, after } = exports.lab = Lab.script();
const { expect } = Code;

const unique = () => `wrk-${Math.random().toString(36).slice(2, 10)}`;

describe('workers', () => {

    let instance: TestServer;
    let owner: TestUser;
    const call = caller(() => instance.server);
    const create = async (body: Record<string, unknown> = {}) => {
        const res = await call('POST', '/v1/workers', owner.session, { name: unique(), ...body });
        expect(res.statusCode, res.payload).to.equal(201);
        return res.result;
    };

    const live = (name: string) => eventually(async () => (await call('GET', `/v1/workers/${name}`, owner.session)).result, (worker: any) => worker.status === 'live', `${name} to go live`);

    before(async () => {
        instance = await testServer();
        instance.server.plugins['hostless-jobs'].queue.start();
        owner = await register(instance.server, 'worker-owner');
    });

    after(async () => {
        await instance?.stop();
    });

    it('creates, lists, gets and changes a worker; environment values only to those allowed', async () => {
        const worker = await create({
            startCommand: 'node queue.js', plan: 'standard', repository: { provider: 'github', repo: 'acme/queue', branch: 'main' }, environmentVariables: { QUEUE: 'mail' }
        });
        expect(worker).to.include({ projectId: owner.projectId, status: 'created', plan: 'standard', instances: 1, startCommand: 'node queue.js', liveDeploymentId: null });
        expect(worker.id).to.match(/^wrk_/);
        expect((await call('GET', `/v1/workers?projectId=${owner.projectId}`, owner.session)).result.map((found: any) => found.name)).to.include(worker.name);
        expect((await call('GET', `/v1/workers/${worker.name}`, owner.session)).result).to.equal(worker);
        expect((await call('POST', '/v1/workers', owner.session, { name: worker.name })).statusCode).to.equal(409);
        expect((await call('POST', '/v1/workers', owner.session, { name: unique(), colour: 'blue' })).result.message).to.equal('"colour" is not allowed');

        const patched = await call('PATCH', `/v1/workers/${worker.name}`, owner.session, { startCommand: 'node consume.js', environmentVariables: { QUEUE: null, TOPIC: 'orders' } });
        expect(patched.result.startCommand).to.equal('node consume.js');
        const env = (await call('GET', `/v1/workers/${worker.name}/environment-variables`, owner.session)).result;
        expect(env.map((variable: any) => [variable.name, variable.value])).to.equal([['TOPIC', 'orders']]);
        const reader = await createKey(instance.server, owner, ['workers:read']);
        expect((await call('GET', `/v1/workers/${worker.name}/environment-variables`, reader.token)).result[0]).to.include({ value: null, set: true });
    });

    it('scales within the plan, restarts only when live, and deploys through the driver with logs and honest metrics', async () => {
        const worker = await create({ startCommand: 'node queue.js' });
        expect((await call('POST', `/v1/workers/${worker.name}/scale/up`, owner.session, { by: 1 })).result.instances).to.equal(2);
        const over = await call('POST', `/v1/workers/${worker.name}/scale/up`, owner.session, { by: 1 });
        expect(over.statusCode).to.equal(409);
        expect(over.result.message).to.equal('Scaling to 3 instance(s) is outside the starter plan\'s bounds (1-2)');
        expect((await call('POST', `/v1/workers/${worker.name}/scale/down`, owner.session)).result.instances).to.equal(1);
        const early = await call('POST', `/v1/workers/${worker.name}/restart`, owner.session);
        expect(early.statusCode).to.equal(409);

        const deployment = (await call('POST', `/v1/workers/${worker.name}/deployments/new`, owner.session, {})).result;
        expect(deployment).to.include({ workerName: worker.name, driver: 'records', trigger: 'manual' });
        const running = await live(worker.name);
        expect(running.liveDeploymentId).to.equal(deployment.id);
        expect((await call('POST', `/v1/workers/${worker.name}/restart`, owner.session)).statusCode).to.equal(200);

        const build = (await call('GET', `/v1/workers/${worker.name}/deployments/${deployment.id}/logs`, owner.session)).result;
        expect(build.map((line: any) => line.message)).to.include('The records driver keeps state only: no code was fetched or built');
        const runtime = (await call('GET', `/v1/workers/${worker.name}/logs?q=restart`, owner.session)).result;
        expect(runtime[0].message).to.equal(`Restart of ${worker.name} requested: 1 instance(s) recorded as restarted`);
        const rerun = await call('POST', `/v1/workers/${worker.name}/deployments/${deployment.id}/rerun`, owner.session);
        expect(rerun.result).to.include({ trigger: 'rerun', rerunOf: deployment.id });
        expect((await call('GET', `/v1/workers/${worker.name}/deployments`, owner.session)).result.map((found: any) => found.id)).to.equal([rerun.result.id, deployment.id]);
        for (const metric of ['cpu-usage', 'memory-usage']) {
            expect((await call('GET', `/v1/workers/${worker.name}/metrics/${metric}`, owner.session)).result).to.include({ source: 'unavailable', series: [] });
        }

        expect((await call('GET', `/v1/workers/${worker.name}/search?q=records`, owner.session)).statusCode).to.equal(200);
        expect((await call('GET', `/v1/workers/${worker.name}/commits`, owner.session)).statusCode).to.equal(409);
    });

    it('lets a collaborator see and operate exactly the worker granted, and nothing else of the project', async () => {
        const granted = await create();
        const other = await create();
        const helper = await register(instance.server, 'worker-helper');
        await collaborate(instance.server, owner, `/v1/workers/${granted.name}`, helper, ['view', 'operate']);

        expect((await call('GET', '/v1/workers', helper.session)).result.map((found: any) => found.name)).to.equal([granted.name]);
        expect((await call('GET', `/v1/workers/${other.name}`, helper.session)).statusCode).to.equal(404);
        expect((await call('POST', `/v1/workers/${granted.name}/scale/up`, helper.session, {})).statusCode).to.equal(200);
        expect((await call('PATCH', `/v1/workers/${granted.name}`, helper.session, { environmentVariables: { MODE: 'fast' } })).statusCode).to.equal(200);
        const settings = await call('PATCH', `/v1/workers/${granted.name}`, helper.session, { plan: 'pro' });
        expect(settings.statusCode).to.equal(403);
        expect(settings.result.message).to.equal('Collaborator permission "manage" is required for this action');
        expect((await call('DELETE', `/v1/workers/${granted.name}`, helper.session)).statusCode).to.equal(403);
        expect((await call('GET', `/v1/workers/${granted.name}/collaborators`, owner.session)).result.map((found: any) => found.email)).to.equal([helper.email]);
    });

    it('deletes a worker with its deployments, logs, environment and collaborators, and records it for billing', async () => {
        const worker = await create({ environmentVariables: { A: '1' } });
        const helper = await register(instance.server, 'worker-gone');
        await collaborate(instance.server, owner, `/v1/workers/${worker.name}`, helper, ['view']);
        await call('POST', `/v1/workers/${worker.name}/deployments/new`, owner.session, {});
        await live(worker.name);

        expect((await call('DELETE', `/v1/workers/${worker.name}`, owner.session)).statusCode).to.equal(204);
        expect((await call('GET', `/v1/workers/${worker.name}`, owner.session)).statusCode).to.equal(404);
        const knex = instance.server.app.knex;
        for (const table of ['deployments', 'log_lines', 'env_vars', 'collaborators']) {
            expect(await knex(table).where({ resource_id: worker.id }), table).to.equal([]);
        }

        const events = await knex('allocation_events').where({ resource_id: worker.id }).orderBy('seq').pluck('reason');
        expect(events).to.equal(['created', 'started', 'deleted']);
    });
});
