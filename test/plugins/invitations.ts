import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { caller, createKey, joinProject, register, type TestUser } from '../helpers/api';
import { digest } from '../helpers/db';
import { testServer, type TestServer } from '../helpers/server';

// Nobody is added to a project without saying yes: an invitation is bound to an existing account, answered the same
// whether or not the account exists, accepted or declined by the invited, withdrawn by the project's admins, and
// every step is in the invited account's trail. Any member may leave, but the last owner.
const { describe, it, before, after } = exports.lab = Lab.script();
const { expect } = Code;

describe('invitations', () => {

    let instance: TestServer;
    const call = caller(() => instance.server);

    before(async () => {
        instance = await testServer();
    });

    after(async () => {
        await instance?.stop();
    });

    const team = async (owner: TestUser, name = 'Team') => (await call('POST', '/v1/projects', owner.session, { name })).result as { id: string; name: string };
    const invite = (by: TestUser, projectId: string, email: string, role = 'developer') => call('POST', `/v1/projects/${projectId}/members`, by.session, { email, role });
    const mine = async (user: TestUser) => (await call('GET', '/v1/users/me/invitations', user.session)).result as any[];
    const trail = async (user: TestUser) => ((await call('GET', '/v1/users/me/security-events', user.session)).result as Array<{ type: string; actor: string; data: any }>);
    const memberIds = async (user: TestUser, projectId: string) => ((await call('GET', `/v1/projects/${projectId}/members`, user.session)).result as Array<{ userId: string }>).map((member) => member.userId);

    describe('to a project', () => {

        it('answer the same whether or not the address has an account, and store nothing for an unknown one', async () => {
            const [owner, grace] = [await register(instance.server, 'owner'), await register(instance.server, 'grace')];
            const project = await team(owner);
            const knex = instance.server.app.knex;

            const before = await digest(knex);
            const unknown = await invite(owner, project.id, 'Nobody@Example.test', 'developer');
            expect(await digest(knex), 'nothing stored for an address without an account').to.equal(before);
            const known = await invite(owner, project.id, grace.email.toUpperCase(), 'developer');
            expect(unknown.statusCode).to.equal(202);
            expect(known.statusCode).to.equal(202);
            const shape = (body: Record<string, unknown>) => ({ ...body, email: '<the address>' });
            expect(shape(known.result)).to.equal(shape(unknown.result));
            expect(known.result).to.equal({ email: grace.email, role: 'developer', status: 'invited', message: 'Invitation sent if the account exists: it takes effect when they accept it' });
            expect(Object.keys(known.headers).sort()).to.equal(Object.keys(unknown.headers).sort());
            expect(await knex('invitations').where({ resource_id: project.id }).pluck('user_id')).to.equal([grace.id]);
        });

        it('make no one a member, nor show them the project, until they accept', async () => {
            const [owner, grace] = [await register(instance.server, 'owner'), await register(instance.server, 'grace')];
            const project = await team(owner, 'Website');
            expect((await invite(owner, project.id, grace.email, 'admin')).statusCode).to.equal(202);

            const key = await createKey(instance.server, grace, ['projects:read']);
            expect((await call('GET', '/v1/projects', key.token)).result.map((p: { id: string }) => p.id), 'what her scripts and agents see').to.equal([grace.projectId]);
            expect((await call('GET', `/v1/projects/${project.id}`, grace.session)).statusCode).to.equal(404);
            expect(await memberIds(owner, project.id)).to.equal([owner.id]);

            const [invitation] = await mine(grace);
            expect(invitation).to.include({
                status: 'pending', resourceType: 'project', resourceName: 'Website', projectId: project.id, role: 'admin', permissions: null,
                userId: grace.id, email: grace.email, invitedBy: { userId: owner.id, email: owner.email, name: 'owner' }
            });
            expect(invitation.id).to.match(/^inv_[0-9A-Za-z]{16}$/);
            expect(Date.parse(invitation.expiresAt) - Date.parse(invitation.createdAt)).to.equal(7 * 86_400_000);
            expect((await call('GET', `/v1/projects/${project.id}/invitations`, owner.session)).result).to.equal([invitation]);

            const accepted = await call('POST', `/v1/users/me/invitations/${invitation.id}/accept`, grace.session);
            expect(accepted.statusCode).to.equal(200);
            expect(accepted.result).to.equal({ ...invitation, status: 'accepted' });
            expect((await call('GET', '/v1/projects', key.token)).result.map((p: { id: string; role: string }) => [p.id, p.role])).to.equal([[project.id, 'admin'], [grace.projectId, 'owner']]);
            expect(await memberIds(owner, project.id)).to.equal([grace.id, owner.id]);
            expect(await mine(grace)).to.equal([]);
            expect((await call('GET', `/v1/projects/${project.id}/invitations`, owner.session)).result).to.equal([]);
            expect((await call('POST', `/v1/users/me/invitations/${invitation.id}/accept`, grace.session)).statusCode, 'an invitation is used once').to.equal(404);

            const events = (await trail(grace)).filter((event) => event.type.startsWith('invitation.'));
            expect(events.map((event) => event.type)).to.equal(['invitation.accepted', 'invitation.sent']);
            expect(events[1]).to.include({ actor: owner.id });
            expect(events[1].data).to.include({ resourceType: 'project', resourceName: 'Website', projectId: project.id, role: 'admin', invitedBy: owner.email });
            expect(events[0]).to.include({ actor: grace.id });
            expect(events[0].data).to.include({ resourceType: 'project', projectId: project.id, role: 'admin' });
        });

        it('are declined by the invited, and by no one else', async () => {
            const [owner, grace, mallory] = [await register(instance.server, 'owner'), await register(instance.server, 'grace'), await register(instance.server, 'mallory')];
            const project = await team(owner);
            await invite(owner, project.id, grace.email);
            const [invitation] = await mine(grace);

            for (const action of ['accept', 'decline']) {
                const res = await call('POST', `/v1/users/me/invitations/${invitation.id}/${action}`, mallory.session);
                expect(res.statusCode, action).to.equal(404);
                expect(res.result.message).to.equal('Invitation not found');
            }

            expect(await mine(grace)).to.have.length(1);
            expect((await call('POST', `/v1/users/me/invitations/${invitation.id}/decline`, grace.session)).statusCode).to.equal(204);
            expect(await mine(grace)).to.equal([]);
            expect(await memberIds(owner, project.id)).to.equal([owner.id]);
            expect((await call('GET', `/v1/projects/${project.id}/invitations`, owner.session)).result).to.equal([]);
            expect((await trail(grace))[0]).to.include({ type: 'invitation.declined', actor: grace.id });
            expect((await trail(mallory)).map((event) => event.type)).to.not.include(['invitation.sent', 'invitation.declined']);
        });

        it('are renewed, not repeated, when sent again, and refused for a member', async () => {
            const [owner, grace] = [await register(instance.server, 'owner'), await register(instance.server, 'grace')];
            const project = await team(owner);
            await invite(owner, project.id, grace.email, 'viewer');
            const knex = instance.server.app.knex;
            await knex('invitations').where({ user_id: grace.id }).update({ expires_at: new Date(Date.now() + 60_000).toISOString() });
            expect((await invite(owner, project.id, grace.email, 'developer')).statusCode).to.equal(202);
            const invitations = await mine(grace);
            expect(invitations).to.have.length(1);
            expect(invitations[0]).to.include({ role: 'developer', status: 'pending' });
            expect(Date.parse(invitations[0].expiresAt)).to.be.above(Date.now() + 6 * 86_400_000);

            await call('POST', `/v1/users/me/invitations/${invitations[0].id}/accept`, grace.session);
            const again = await invite(owner, project.id, grace.email, 'admin');
            expect(again.statusCode).to.equal(409);
            expect(again.result.message).to.equal('That user is already a member of this project');
            expect(await mine(grace)).to.equal([]);
        });

        it('keep the owner role for owners to offer, and the pending list for admins', async () => {
            const [owner, admin, dev, grace] = [await register(instance.server), await register(instance.server), await register(instance.server), await register(instance.server)];
            const project = await team(owner);
            await joinProject(instance.server, owner, project.id, admin, 'admin');
            await joinProject(instance.server, owner, project.id, dev, 'developer');

            const refused = await invite(admin, project.id, 'nobody@example.test', 'owner');
            expect(refused.statusCode, 'refused before looking the address up').to.equal(403);
            expect(refused.result.message).to.equal('Only owners can grant the owner role');
            expect((await invite(dev, project.id, grace.email, 'viewer')).statusCode).to.equal(403);
            expect((await invite(admin, project.id, grace.email, 'developer')).statusCode).to.equal(202);

            const pending = await call('GET', `/v1/projects/${project.id}/invitations`, dev.session);
            expect(pending.statusCode).to.equal(403);
            expect(pending.result.message).to.equal('This action requires the admin role or higher in the project');
            expect((await call('GET', `/v1/projects/${project.id}/invitations`, admin.session)).result.map((i: { email: string }) => i.email)).to.equal([grace.email]);
        });

        it('are withdrawn by an admin, which the invited sees in their trail', async () => {
            const [owner, grace] = [await register(instance.server, 'owner'), await register(instance.server, 'grace')];
            const [project, other] = [await team(owner), await team(owner, 'Other')];
            await invite(owner, project.id, grace.email);
            const [invitation] = await mine(grace);

            expect((await call('DELETE', `/v1/projects/${other.id}/invitations/${invitation.id}`, owner.session)).statusCode, 'through its own project only').to.equal(404);
            expect((await call('DELETE', `/v1/projects/${project.id}/invitations/${invitation.id}`, owner.session)).statusCode).to.equal(204);
            expect(await mine(grace)).to.equal([]);
            expect((await call('POST', `/v1/users/me/invitations/${invitation.id}/accept`, grace.session)).statusCode).to.equal(404);
            expect((await call('DELETE', `/v1/projects/${project.id}/invitations/${invitation.id}`, owner.session)).statusCode).to.equal(404);
            expect((await trail(grace))[0]).to.include({ type: 'invitation.canceled', actor: owner.id });
        });

        it('expire after 7 days: shown as expired, not accepted, dismissed by declining, and pruned', async () => {
            const [owner, grace, ada] = [await register(instance.server, 'owner'), await register(instance.server, 'grace'), await register(instance.server, 'ada')];
            const project = await team(owner);
            await invite(owner, project.id, grace.email);
            await invite(owner, project.id, ada.email);
            const knex = instance.server.app.knex;
            await knex('invitations').where({ resource_id: project.id }).update({ expires_at: new Date(Date.now() - 1000).toISOString() });

            const [invitation] = await mine(grace);
            expect(invitation.status).to.equal('expired');
            const late = await call('POST', `/v1/users/me/invitations/${invitation.id}/accept`, grace.session);
            expect(late.statusCode).to.equal(409);
            expect(late.result.message).to.equal(`The invitation expired at ${invitation.expiresAt}: ask for a new one`);
            expect(await memberIds(owner, project.id)).to.equal([owner.id]);
            expect((await call('POST', `/v1/users/me/invitations/${invitation.id}/decline`, grace.session)).statusCode).to.equal(204);

            expect(await instance.server.plugins['hostless-invitations'].invitations.prune()).to.equal(1);
            expect(await mine(ada)).to.equal([]);
            expect((await invite(owner, project.id, ada.email)).statusCode, 'and can be sent again').to.equal(202);
            expect((await mine(ada))[0].status).to.equal('pending');
        });

        it('go with their project', async () => {
            const [owner, grace] = [await register(instance.server, 'owner'), await register(instance.server, 'grace')];
            const project = await team(owner);
            await invite(owner, project.id, grace.email);
            expect((await call('DELETE', `/v1/projects/${project.id}`, owner.session)).statusCode).to.equal(204);
            expect(await mine(grace)).to.equal([]);
        });
    });

    describe('leaving a project', () => {

        it('is open to every member, and recorded in their trail', async () => {
            const [owner, viewer] = [await register(instance.server, 'owner'), await register(instance.server, 'viewer')];
            const project = await team(owner, 'Leavable');
            await joinProject(instance.server, owner, project.id, viewer, 'viewer');

            const key = await createKey(instance.server, viewer, ['projects:read']);
            expect((await call('POST', `/v1/projects/${project.id}/leave`, key.token)).statusCode, 'with a session only').to.equal(403);
            expect((await call('POST', `/v1/projects/${project.id}/leave`, viewer.session)).statusCode).to.equal(204);
            expect((await call('GET', `/v1/projects/${project.id}`, viewer.session)).statusCode).to.equal(404);
            expect(await memberIds(owner, project.id)).to.equal([owner.id]);
            expect((await call('POST', `/v1/projects/${project.id}/leave`, viewer.session)).statusCode, 'once').to.equal(404);
            const [left] = await trail(viewer);
            expect(left).to.include({ type: 'project.left', actor: viewer.id });
            expect(left.data).to.equal({ projectId: project.id, projectName: 'Leavable', role: 'viewer' });
        });

        it('is refused to the last owner, and to the creator of a personal project', async () => {
            const [owner, second] = [await register(instance.server, 'owner'), await register(instance.server, 'second')];
            const project = await team(owner);
            const last = await call('POST', `/v1/projects/${project.id}/leave`, owner.session);
            expect(last.statusCode).to.equal(409);
            expect(last.result.message).to.equal('You are the last owner of this project: give the owner role to another member first, or delete the project');
            const personal = await call('POST', `/v1/projects/${owner.projectId}/leave`, owner.session);
            expect(personal.statusCode).to.equal(409);
            expect(personal.result.message).to.equal('You cannot leave your personal project');

            await joinProject(instance.server, owner, project.id, second, 'owner');
            expect((await call('POST', `/v1/projects/${project.id}/leave`, owner.session)).statusCode).to.equal(204);
            expect((await call('POST', `/v1/projects/${project.id}/leave`, second.session)).statusCode).to.equal(409);
            await joinProject(instance.server, owner, owner.projectId, second, 'developer');
            expect((await call('POST', `/v1/projects/${owner.projectId}/leave`, second.session)).statusCode, 'others leave a personal project').to.equal(204);
        });
    });
});
