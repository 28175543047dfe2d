import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { acceptInvitation, caller, collaborate, joinProject, register, type TestUser } from '../helpers/api';
import { eventually } from '../helpers/apps';
import { GIZMO_PLUGINS } from '../fixtures/gizmos';
import { testServer, type TestServer } from '../helpers/server';

// A kind written as a model, an adapter and a table behaves like apps: environment, deployments through the
// driver, logs, metrics, domains, collaborators, scaling and the cascade on delete all work for it.
const { describe, it, before, after } = exports.lab = Lab.script();
const { expect } = Code;

describe('a runtime kind defined outside the platform', () => {

    let instance: TestServer;
    let owner: TestUser;
    const call = caller(() => instance.server);

    before(async () => {
        instance = await testServer({}, { plugins: GIZMO_PLUGINS });
        instance.server.plugins['hostless-jobs'].queue.start();
        owner = await register(instance.server, 'owner');
    });

    after(async () => {
        await instance?.stop();
    });

    it('gets environment variables, deployments, logs, metrics, domains, collaborators, scaling and a cascading delete', async () => {
        const created = await call('POST', '/v1/gizmos', owner.session, { name: 'sprocket', instances: 1, environmentVariables: { SECRET: 'sealed' } });
        expect(created.statusCode, created.payload).to.equal(201);
        expect(created.result).to.include({ name: 'sprocket', status: 'created', plan: 'starter' });
        expect((await call('GET', '/v1/gizmos/sprocket/environment-variables', owner.session)).result[0]).to.include({ name: 'SECRET', value: 'sealed' });

        const deployment = await call('POST', '/v1/gizmos/sprocket/deployments/new', owner.session, {});
        expect(deployment.result).to.include({ gizmoName: 'sprocket', status: 'queued', driver: 'records' });
        expect(deployment.result.configuration.environmentVariables).to.equal(['SECRET']);
        const live = await eventually(async () => (await call('GET', '/v1/gizmos/sprocket', owner.session)).result, (gizmo: any) => gizmo.status === 'live', 'the gizmo to go live');
        expect(live.liveDeploymentId).to.equal(deployment.result.id);
        const buildLogs = await call('GET', `/v1/gizmos/sprocket/deployments/${deployment.result.id}/logs`, owner.session);
        expect(buildLogs.result[0].message).to.equal(`Deployment ${deployment.result.id} queued (manual)`);
        expect((await call('GET', '/v1/gizmos/sprocket/logs?q=live', owner.session)).result.map((line: any) => line.message)).to.contain(`${deployment.result.id} is live (records driver: no process was started)`);
        expect((await call('GET', '/v1/gizmos/sprocket/metrics/cpu-usage', owner.session)).result).to.include({ source: 'unavailable', series: [] });

        expect((await call('POST', '/v1/gizmos/sprocket/scale/up', owner.session, { by: 1 })).result.instances).to.equal(2);
        expect((await call('POST', '/v1/gizmos/sprocket/custom-domains', owner.session, { domain: 'sprocket.example.com' })).statusCode).to.equal(201);
        const [spare, invited] = [await register(instance.server, 'spare'), await register(instance.server, 'invited')];
        for (const user of [spare, invited]) {
            expect((await call('PATCH', '/v1/gizmos/sprocket/collaborators', owner.session, { email: user.email, permissions: ['view'] })).statusCode).to.equal(202);
        }

        expect((await call('GET', '/v1/gizmos', spare.session)).result, 'nothing before accepting').to.equal([]);
        expect((await acceptInvitation(instance.server, spare)).resourceType).to.equal('gizmo');
        expect((await call('GET', '/v1/gizmos', spare.session)).result.map((gizmo: any) => gizmo.name)).to.equal(['sprocket']);
        expect((await call('GET', '/v1/gizmos/sprocket/collaborators', owner.session)).result.map((c: any) => [c.email, c.status])).to.equal(
            [[spare.email, 'active'], [invited.email, 'pending']].sort((a, b) => a[0] < b[0] ? -1 : 1));

        expect((await call('DELETE', '/v1/gizmos/sprocket', owner.session)).statusCode).to.equal(204);
        const knex = instance.server.app.knex;
        for (const table of ['env_vars', 'domains', 'deployments', 'log_lines', 'collaborators', 'invitations']) {
            expect(await knex(table).where({ resource_type: 'gizmo', resource_id: created.result.id }), table).to.equal([]);
        }

        const reasons = (await knex('allocation_events').where({ resource_id: created.result.id }).orderBy('seq')).map((row: any) => `${row.reason}:${row.instances}:${!!row.running}`);
        expect(reasons, 'billing history outlives the resource').to.equal(['created:1:false', 'started:1:true', 'scaled:2:true', 'deleted:0:false']);
    });

    it('ends a collaborator\'s grant on it when they join its project, as for apps', async () => {
        expect((await call('POST', '/v1/gizmos', owner.session, { name: 'flywheel' })).statusCode).to.equal(201);
        const contractor = await register(instance.server, 'contractor');
        await collaborate(instance.server, owner, '/v1/gizmos/flywheel', contractor, ['manage']);
        expect((await call('PATCH', '/v1/gizmos/flywheel', contractor.session, { startCommand: 'x' })).statusCode).to.equal(200);

        await joinProject(instance.server, owner, owner.projectId, contractor, 'viewer');
        expect((await call('GET', '/v1/gizmos/flywheel/collaborators', owner.session)).result).to.equal([]);
        expect((await call('PATCH', '/v1/gizmos/flywheel', contractor.session, { startCommand: 'y' })).statusCode, 'a viewer now').to.equal(403);
        await call('DELETE', `/v1/projects/${owner.projectId}/members/${contractor.id}`, owner.session);
        expect((await call('GET', '/v1/gizmos/flywheel', contractor.session)).statusCode).to.equal(404);
    });
});
