import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { caller, collaborate, joinProject, login, register, type TestUser } from '../../helpers/api';
import { eventually } from '../../helpers/apps';
import { manualClock } from '../../helpers/clock';
import { testServer, type TestServer } from '../../helpers/server';

// POST /v1/transfers: owner or admin of both projects; what ties a resource to its project refuses the move (409
// naming it); collaborator grants end, in the grantees' trail; usage before the move stays with the old project.
const { describe, it, before, after } = exports.lab = Lab.script();
const { expect } = Code;

describe('transfers', () => {

    const clock = manualClock('2026-06-01T00:00:00.000Z');
    let instance: TestServer;
    let owner: TestUser;
    const call = caller(() => instance.server);

    before(async () => {
        instance = await testServer({}, { clock });
        instance.server.plugins['hostless-jobs'].queue.start();
        owner = await register(instance.server, 'owner');
    });

    after(async () => {
        await instance?.stop();
    });

    it('moves an app once nothing ties it to its project, ending its grants and leaving its past usage behind', async () => {
        const team = await call('POST', '/v1/projects', owner.session, { name: 'Team' });
        expect(team.statusCode, team.payload).to.equal(201);
        const teamId = team.result.id as string;
        expect((await call('POST', '/v1/apps', owner.session, { name: 'mover', instances: 1 })).statusCode).to.equal(201);
        const deployment = await call('POST', '/v1/apps/mover/deployments/new', owner.session, {});
        await eventually(async () => (await call('GET', `/v1/apps/mover/deployments/${deployment.result.id}`, owner.session)).result.status, (status) => status === 'live', 'live');
        expect((await call('POST', '/v1/databases', owner.session, { name: 'moverdb' })).statusCode).to.equal(201);
        await eventually(async () => (await call('GET', '/v1/databases/moverdb/details', owner.session)).result.status, (status) => status === 'available', 'available');
        expect((await call('PATCH', '/v1/apps/mover', owner.session, { databases: ['moverdb'] })).statusCode).to.equal(200);

        const helper = await register(instance.server, 'helper');
        await collaborate(instance.server, owner, '/v1/apps/mover', { email: helper.email, session: helper.session }, ['view']);
        const developer = await register(instance.server, 'developer');
        await joinProject(instance.server, owner, teamId, { email: developer.email, session: developer.session }, 'developer');

        clock.set('2026-06-01T10:00:00.000Z');
        owner.session = (await login(instance.server, owner)).session;
        const body = { resourceType: 'app', resourceName: 'mover', toProjectId: teamId };
        const linked = await call('POST', '/v1/transfers', owner.session, body);
        expect(linked.statusCode).to.equal(409);
        expect(linked.result.message).to.equal('The app is linked to the database(s) moverdb of its project: unlink them first');
        const stranger = await register(instance.server, 'stranger');
        expect((await call('POST', '/v1/transfers', stranger.session, body)).result.message).to.equal('App not found');
        expect((await call('POST', '/v1/transfers', owner.session, { ...body, toProjectId: stranger.projectId })).statusCode).to.equal(404);
        expect((await call('POST', '/v1/transfers', owner.session, { ...body, resourceType: 'gizmo' })).statusCode).to.equal(400);

        expect((await call('PATCH', '/v1/apps/mover', owner.session, { databases: [] })).statusCode).to.equal(200);
        const moved = await call('POST', '/v1/transfers', owner.session, body);
        expect(moved.statusCode, moved.payload).to.equal(200);
        expect(moved.result).to.include({ resourceType: 'app', resourceName: 'mover', fromProjectId: owner.projectId, toProjectId: teamId, collaboratorsRemoved: 1 });
        expect((await call('GET', '/v1/apps/mover', owner.session)).result.projectId).to.equal(teamId);
        expect(await instance.server.app.knex('collaborators').where({ user_id: helper.id })).to.have.length(0);
        const trail = await call('GET', '/v1/users/me/security-events', (await login(instance.server, helper)).session);
        expect(JSON.stringify(trail.result)).to.include('the resource moved to another project');

        // Ten hours in the old project, five in the new: each breakdown has its own.
        clock.set('2026-06-01T15:10:00.000Z');                     // the hour ended more than six minutes ago
        owner.session = (await login(instance.server, owner)).session;
        const of = async (projectId: string) => (await call('GET', `/v1/billing/breakdown?startDate=2026-06-01&endDate=2026-06-01&projectId=${projectId}`, owner.session)).result;
        const before = await of(owner.projectId);
        const after = await of(teamId);
        const hours = (breakdown: { projects: Array<{ lines: Array<{ resourceName: string; quantity: number }> }> }) =>
            breakdown.projects.flatMap((project) => project.lines).filter((line) => line.resourceName === 'mover').map((line) => line.quantity);
        expect(hours(before)).to.equal([10]);
        expect(hours(after)).to.equal([5]);

        // A developer of the target project may not move things into it.
        expect((await call('POST', '/v1/apps', owner.session, { name: 'second' })).statusCode).to.equal(201);
        const session = (await login(instance.server, developer)).session;
        await joinProject(instance.server, owner, owner.projectId, { email: developer.email, session }, 'admin');
        const refused = await call('POST', '/v1/transfers', session, { resourceType: 'app', resourceName: 'second', toProjectId: teamId });
        expect(refused.statusCode).to.equal(403);
        expect(refused.result.message).to.equal('Moving a resource takes the owner or admin role in both projects');
    });
});
