import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { caller, createKey, joinProject, register, type TestUser } from '../helpers/api';
import { foreignServer } from '../helpers/foreign';
import { testServer, type TestServer } from '../helpers/server';

const { describe, it, before, after } = exports.lab = Lab.script();
const { expect } = Code;

describe('projects and members', () => {

    let instance: TestServer;
    const call = caller(() => instance.server);

    const addMember = (owner: TestUser, projectId: string, member: TestUser, role: string) => joinProject(instance.server, owner, projectId, member, role);

    before(async () => {
        instance = await testServer();
    });

    after(async () => {
        await instance?.stop();
    });

    describe('projects', () => {

        it('creates a team project owned by its creator and lists it beside the personal one', async () => {
            const user = await register(instance.server);
            const created = await call('POST', '/v1/projects', user.session, { name: '  Platform team ' });
            expect(created.statusCode).to.equal(201);
            expect(created.result).to.include({ name: 'Platform team', kind: 'team', status: 'active', role: 'owner' });
            expect(created.result.id).to.match(/^prj_[0-9A-Za-z]{16}$/);

            const key = await createKey(instance.server, user, ['projects:read']);
            const listed = await call('GET', '/v1/projects', key.token);
            expect(listed.result.map((p: { id: string }) => p.id)).to.equal([created.result.id, user.projectId]);
            const narrowed = await call('GET', `/v1/projects?projectId=${user.projectId}`, key.token);
            expect(narrowed.result.map((p: { id: string }) => p.id)).to.equal([user.projectId]);
            expect((await call('GET', `/v1/projects/${created.result.id}`, key.token)).result).to.equal(created.result);
        });

        it('answers 404 for a project narrowing the caller cannot reach', async () => {
            const [user, other] = [await register(instance.server), await register(instance.server)];
            const key = await createKey(instance.server, user, ['projects:read']);
            const res = await call('GET', `/v1/projects?projectId=${other.projectId}`, key.token);
            expect(res.statusCode).to.equal(404);
            expect(res.result.message).to.equal('Project not found');
        });

        it('refuses to create or change projects with an API key: they are JWT only', async () => {
            const user = await register(instance.server);
            const key = await createKey(instance.server, user, ['projects:read']);
            expect((await call('POST', '/v1/projects', key.token, { name: 'x' })).statusCode).to.equal(403);
            expect((await call('PATCH', `/v1/projects/${user.projectId}`, key.token, { name: 'x' })).statusCode).to.equal(403);
        });

        it('lets admins rename, not developers; only owners delete, and never the personal project', async () => {
            const [owner, admin, dev] = [await register(instance.server), await register(instance.server), await register(instance.server)];
            const team = (await call('POST', '/v1/projects', owner.session, { name: 'Team' })).result;
            await addMember(owner, team.id, admin, 'admin');
            await addMember(owner, team.id, dev, 'developer');

            expect((await call('PATCH', `/v1/projects/${team.id}`, dev.session, { name: 'Dev rename' })).statusCode).to.equal(403);
            const renamed = await call('PATCH', `/v1/projects/${team.id}`, admin.session, { name: 'Admin rename' });
            expect(renamed.statusCode).to.equal(200);
            expect(renamed.result).to.include({ name: 'Admin rename', role: 'admin' });

            const byAdmin = await call('DELETE', `/v1/projects/${team.id}`, admin.session);
            expect(byAdmin.statusCode).to.equal(403);
            expect(byAdmin.result.message).to.equal('This action requires the owner role or higher in the project');
            const personal = await call('DELETE', `/v1/projects/${owner.projectId}`, owner.session);
            expect(personal.statusCode).to.equal(409);
            expect(personal.result.message).to.equal('A personal project cannot be deleted');
            expect((await call('DELETE', `/v1/projects/${team.id}`, owner.session)).statusCode).to.equal(204);
            expect((await call('GET', `/v1/projects/${team.id}`, owner.session)).statusCode).to.equal(404);
        });

        it('refuses to delete a project that still holds resources', async () => {
            const host = await foreignServer();
            try {
                const owner = await register(host.server);
                const team = (await host.server.inject({ method: 'POST', url: '/v1/projects', headers: { authorization: owner.session }, payload: { name: 'Team' } })).result as { id: string };
                await host.server.inject({ method: 'POST', url: '/v1/widgets', headers: { authorization: owner.session }, payload: { name: 'w1', projectId: team.id } });
                const res = await host.server.inject({ method: 'DELETE', url: `/v1/projects/${team.id}`, headers: { authorization: owner.session } });
                expect(res.statusCode).to.equal(409);
                expect((res.result as { message: string }).message).to.equal('The project still holds resources (1 widget); delete or transfer them first');
                expect(await host.knex('projects').where({ id: team.id }).first()).to.exist();
            }
            finally {
                await host.stop();
            }
        });
    });

    describe('members', () => {

        it('adds registered users by email with a role once they accept, and lists them', async () => {
            const [owner, dev] = [await register(instance.server), await register(instance.server)];
            await addMember(owner, owner.projectId, dev, 'developer');
            const listed = await call('GET', `/v1/projects/${owner.projectId}/members`, dev.session);
            expect(listed.result.map((m: { userId: string; role: string }) => [m.userId, m.role])).to.equal([[dev.id, 'developer'], [owner.id, 'owner']]);
            expect((await call('GET', '/v1/projects', dev.session)).result.map((p: { id: string; role: string }) => [p.id, p.role])).to.contain([[owner.projectId, 'developer']]);
        });

        it('answers an unknown email as a known one (202, see test/plugins/invitations.ts) and 409 for a member added twice', async () => {
            const [owner, dev] = [await register(instance.server), await register(instance.server)];
            const unknown = await call('POST', `/v1/projects/${owner.projectId}/members`, owner.session, { email: 'nobody@example.test', role: 'viewer' });
            expect(unknown.statusCode).to.equal(202);
            await addMember(owner, owner.projectId, dev, 'viewer');
            expect((await call('POST', `/v1/projects/${owner.projectId}/members`, owner.session, { email: dev.email, role: 'viewer' })).statusCode).to.equal(409);
        });

        it('keeps the owner role for owners to grant, change and remove', async () => {
            const [owner, admin, dev] = [await register(instance.server), await register(instance.server), await register(instance.server)];
            await addMember(owner, owner.projectId, admin, 'admin');
            const grant = await call('POST', `/v1/projects/${owner.projectId}/members`, admin.session, { email: dev.email, role: 'owner' });
            expect(grant.statusCode).to.equal(403);
            expect(grant.result.message).to.equal('Only owners can grant the owner role');
            expect((await call('PATCH', `/v1/projects/${owner.projectId}/members/${owner.id}`, admin.session, { role: 'viewer' })).statusCode).to.equal(403);
            expect((await call('DELETE', `/v1/projects/${owner.projectId}/members/${owner.id}`, admin.session)).statusCode).to.equal(403);

            await addMember(admin, owner.projectId, dev, 'developer');
            expect((await call('PATCH', `/v1/projects/${owner.projectId}/members/${dev.id}`, admin.session, { role: 'viewer' })).result.role).to.equal('viewer');
            expect((await call('DELETE', `/v1/projects/${owner.projectId}/members/${dev.id}`, admin.session)).statusCode).to.equal(204);
            expect((await call('GET', `/v1/projects/${owner.projectId}`, dev.session)).statusCode).to.equal(404);
        });

        it('always keeps one owner', async () => {
            const [owner, second] = [await register(instance.server), await register(instance.server)];
            const demote = await call('PATCH', `/v1/projects/${owner.projectId}/members/${owner.id}`, owner.session, { role: 'admin' });
            expect(demote.statusCode).to.equal(409);
            expect(demote.result.message).to.equal('A project must keep at least one owner');
            expect((await call('DELETE', `/v1/projects/${owner.projectId}/members/${owner.id}`, owner.session)).statusCode).to.equal(409);

            await addMember(owner, owner.projectId, second, 'owner');
            expect((await call('PATCH', `/v1/projects/${owner.projectId}/members/${owner.id}`, owner.session, { role: 'admin' })).statusCode).to.equal(200);
            expect((await call('PATCH', `/v1/projects/${owner.projectId}/members/${second.id}`, second.session, { role: 'admin' })).statusCode).to.equal(409);
        });

        it('answers 404 for a user who is not a member', async () => {
            const [owner, stranger] = [await register(instance.server), await register(instance.server)];
            const res = await call('PATCH', `/v1/projects/${owner.projectId}/members/${stranger.id}`, owner.session, { role: 'viewer' });
            expect(res.statusCode).to.equal(404);
            expect(res.result.message).to.equal('Member not found');
        });
    });
});
