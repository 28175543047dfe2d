import * as Boom from '@hapi/boom';
import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { caller, joinProject, login, PASSWORD, register, type TestUser } from '../../helpers/api';
import { pageText, signedUp, Visitor } from '../../helpers/dashboard';
import { testServer, type TestServer } from '../../helpers/server';

// Projects, members and resources at a glance, each page and form going through the API with the visitor's
// session: what the API refuses is shown on the page with the API's status and message.
const { describe, it, before, after } = exports.lab = Lab.script();
const { expect } = Code;

describe('dashboard projects', () => {

    let instance: TestServer;
    const call = caller(() => instance.server);

    before(async () => {
        instance = await testServer();
    });

    after(async () => {
        await instance?.stop();
    });

    const signIn = async (user: TestUser) => {
        const visitor = new Visitor(instance.server);
        await visitor.get('/dashboard/sign-in');
        await visitor.post('/dashboard/sign-in', { email: user.email, password: user.password });
        return visitor;
    };

    const createProject = async (visitor: Visitor, name: string) => {
        await visitor.get('/dashboard/projects');
        const res = await visitor.post('/dashboard/projects', { name });
        expect(res.statusCode).to.equal(302);
        return /^\/dashboard\/projects\/(prj_[0-9A-Za-z]+)$/.exec(res.headers.location as string)![1];
    };

    it('creates a team project, lists it, and renames it', async () => {
        const { visitor } = await signedUp(instance.server);
        const projectId = await createProject(visitor, 'Platform team');
        const page = pageText((await visitor.get(`/dashboard/projects/${projectId}`)).payload);
        expect(page).to.contain('The project “Platform team” is created; you are its owner.');
        expect(page).to.contain('team project · your role: owner');

        expect(pageText((await visitor.get('/dashboard/projects')).payload)).to.match(/Platform team team owner .* Personal personal owner/);

        const renamed = await visitor.post(`/dashboard/projects/${projectId}/rename`, { name: 'Platform' });
        expect(renamed.headers.location).to.equal(`/dashboard/projects/${projectId}`);
        expect(pageText((await visitor.get(renamed.headers.location as string)).payload)).to.contain('The project is renamed to “Platform”.');
    });

    it('shows the API\'s validation message when a name is refused', async () => {
        const { visitor } = await signedUp(instance.server);
        await visitor.get('/dashboard/projects');
        const res = await visitor.post('/dashboard/projects', { name: 'x'.repeat(65) });
        expect(res.statusCode).to.equal(400);
        expect(pageText(res.payload)).to.contain('"name" length must be less than or equal to 64 characters long');
    });

    it('invites a member by email, who joins by accepting on their invitations page; changes their role, and removes them after a confirmation', async () => {
        const { visitor } = await signedUp(instance.server);
        const grace = await register(instance.server, 'grace');
        const projectId = await createProject(visitor, 'Team');

        await visitor.get(`/dashboard/projects/${projectId}`);
        const invited = await visitor.post(`/dashboard/projects/${projectId}/members`, { email: grace.email, role: 'developer' });
        expect(invited.statusCode).to.equal(302);
        let page = await visitor.get(`/dashboard/projects/${projectId}`);
        expect(pageText(page.payload)).to.contain(`If ${grace.email} has an account, they are invited as developer: they become a member when they accept.`);
        expect(pageText(page.payload)).to.contain(`Invitations not answered yet Email Role Expires Actions ${grace.email} developer`);
        expect(page.payload).to.not.contain(`/members/${grace.id}/role`);

        const guest = await signIn(grace);
        const invitations = await guest.get('/dashboard/invitations');
        expect(pageText(invitations.payload)).to.contain('the project Team developer dash');
        const id = /\/dashboard\/invitations\/(inv_[0-9A-Za-z]{16})\/accept/.exec(invitations.payload)![1];
        const accepted = await guest.post(`/dashboard/invitations/${id}/accept`);
        expect(accepted.headers.location).to.equal(`/dashboard/projects/${projectId}`);
        expect(pageText((await guest.get(accepted.headers.location as string)).payload)).to.contain('Team You joined the project Team as developer. team project · your role: developer');
        expect(pageText((await guest.get('/dashboard/invitations')).payload)).to.contain('You have no invitations.');

        page = await visitor.get(`/dashboard/projects/${projectId}`);
        expect(pageText(page.payload)).to.contain('No invitation is waiting for an answer.');
        expect(page.payload).to.contain(`<option value="developer" selected>developer</option>`);
        const changed = await visitor.post(`/dashboard/projects/${projectId}/members/${grace.id}/role`, { role: 'admin' });
        expect(changed.statusCode).to.equal(302);
        expect(pageText((await visitor.get(`/dashboard/projects/${projectId}`)).payload)).to.contain(`${grace.email} now has the role admin.`);
        const members = await call('GET', `/v1/projects/${projectId}/members`, (await login(instance.server, grace)).session);
        expect(members.result.find((member: { userId: string }) => member.userId === grace.id).role).to.equal('admin');

        const confirm = await visitor.get(`/dashboard/projects/${projectId}/members/${grace.id}/remove`);
        expect(pageText(confirm.payload)).to.contain(`Remove ${grace.email} from Team?`);
        const removed = await visitor.post(`/dashboard/projects/${projectId}/members/${grace.id}/remove`);
        expect(removed.headers.location).to.equal(`/dashboard/projects/${projectId}`);
        expect((await call('GET', `/v1/projects/${projectId}`, (await login(instance.server, grace)).session)).statusCode).to.equal(404);
    });

    it('says the same for an address without an account, withdraws an invitation, and shows the API\'s refusals: the last owner', async () => {
        const { visitor } = await signedUp(instance.server);
        const grace = await register(instance.server, 'grace');
        const projectId = await createProject(visitor, 'Solo');
        await visitor.get(`/dashboard/projects/${projectId}`);

        const unknown = await visitor.post(`/dashboard/projects/${projectId}/members`, { email: 'nobody@example.test', role: 'viewer' });
        expect(unknown.statusCode).to.equal(302);
        expect(pageText((await visitor.get(`/dashboard/projects/${projectId}`)).payload)).to.contain('If nobody@example.test has an account, they are invited as viewer: they become a member when they accept.');
        await visitor.post(`/dashboard/projects/${projectId}/members`, { email: grace.email, role: 'viewer' });
        const page = await visitor.get(`/dashboard/projects/${projectId}`);
        const id = /\/invitations\/(inv_[0-9A-Za-z]{16})\/cancel/.exec(page.payload)![1];
        const withdrawn = await visitor.post(`/dashboard/projects/${projectId}/invitations/${id}/cancel`);
        expect(withdrawn.headers.location).to.equal(`/dashboard/projects/${projectId}`);
        expect(pageText((await visitor.get(`/dashboard/projects/${projectId}`)).payload)).to.contain('The invitation is withdrawn. ');
        expect((await call('GET', '/v1/users/me/invitations', grace.session)).result).to.equal([]);
        const again = await visitor.post(`/dashboard/projects/${projectId}/invitations/${id}/cancel`);
        expect(again.statusCode).to.equal(404);
        expect(pageText(again.payload)).to.contain('Invitation not found');

        const me = /\/members\/(usr_[0-9A-Za-z]+)\/role/.exec(again.payload)![1];
        const demoted = await visitor.post(`/dashboard/projects/${projectId}/members/${me}/role`, { role: 'viewer' });
        expect(demoted.statusCode).to.equal(409);
        expect(pageText(demoted.payload)).to.contain('A project must keep at least one owner');
        const leave = await visitor.post(`/dashboard/projects/${projectId}/leave`);
        expect(leave.statusCode).to.equal(409);
        expect(pageText(leave.payload)).to.contain('You are the last owner of this project');
    });

    it('declines an invitation, dismisses an expired one, and accepts one to work on an app', async () => {
        const owner = await register(instance.server, 'owner');
        const { visitor, email } = await signedUp(instance.server);
        const team = (await call('POST', '/v1/projects', owner.session, { name: 'Declined' })).result;
        const other = (await call('POST', '/v1/projects', owner.session, { name: 'Lapsed' })).result;
        const app = (await call('POST', '/v1/apps', owner.session, { name: `shared-${team.id.slice(4, 12).toLowerCase()}`, projectId: team.id })).result;
        for (const project of [team, other]) {
            await call('POST', `/v1/projects/${project.id}/members`, owner.session, { email, role: 'viewer' });
        }

        await call('PATCH', `/v1/apps/${app.name}/collaborators`, owner.session, { email, permissions: ['view', 'deploy'] });
        await instance.server.app.knex('invitations').where({ resource_id: other.id }).update({ expires_at: new Date(Date.now() - 1000).toISOString() });

        const page = await visitor.get('/dashboard/invitations');
        const text = pageText(page.payload);
        expect(text).to.contain(`the app ${app.name} view, deploy owner (${owner.email})`);
        expect(text).to.contain('the project Declined viewer');
        expect(text).to.match(/the project Lapsed viewer .* Expired Dismiss the invitation to the project Lapsed/);
        const ids = [...page.payload.matchAll(/\/dashboard\/invitations\/(inv_[0-9A-Za-z]{16})\/(accept|decline)/g)].map((match) => `${match[2]} ${match[1]}`);
        expect(ids.filter((id) => id.startsWith('accept')), 'no accept button for the expired one').to.have.length(2);

        const invitations = (await call('GET', '/v1/users/me/invitations', (await login(instance.server, { email, password: PASSWORD })).session)).result as Array<{ id: string; resourceName: string }>;
        const of = (name: string) => invitations.find((invitation) => invitation.resourceName === name)!.id;
        expect((await visitor.post(`/dashboard/invitations/${of('Declined')}/decline`)).headers.location).to.equal('/dashboard/invitations');
        expect(pageText((await visitor.get('/dashboard/invitations')).payload)).to.contain('The invitation is declined.');
        const late = await visitor.post(`/dashboard/invitations/${of('Lapsed')}/accept`);
        expect(late.statusCode).to.equal(409);
        expect(pageText(late.payload)).to.contain('The invitation expired at');
        expect((await visitor.post(`/dashboard/invitations/${of('Lapsed')}/decline`)).statusCode).to.equal(302);

        await visitor.get('/dashboard/invitations');
        const accepted = await visitor.post(`/dashboard/invitations/${of(app.name)}/accept`);
        expect(accepted.headers.location).to.equal('/dashboard/invitations');
        expect(pageText((await visitor.get('/dashboard/invitations')).payload)).to.contain(`You now work on the app ${app.name}, with the permissions view, deploy`);
        expect(pageText(visitor.last!.payload)).to.contain('You have no invitations.');
        expect((await call('GET', `/v1/projects/${team.id}/members`, owner.session)).result).to.have.length(1);
    });

    it('lets a member leave a project after a confirmation', async () => {
        const owner = await register(instance.server, 'owner');
        const { visitor, email, password } = await signedUp(instance.server);
        const project = (await call('POST', '/v1/projects', owner.session, { name: 'Passing through' })).result;
        const me = await login(instance.server, { email, password });
        await joinProject(instance.server, owner, project.id, { email, session: me.session }, 'developer');

        const page = await visitor.get(`/dashboard/projects/${project.id}`);
        expect(page.payload).to.contain(`href="/dashboard/projects/${project.id}/leave"`);
        expect(pageText((await visitor.get(`/dashboard/projects/${project.id}/leave`)).payload)).to.contain('Leave Passing through?');
        const left = await visitor.post(`/dashboard/projects/${project.id}/leave`);
        expect(left.headers.location).to.equal('/dashboard/projects');
        expect(pageText((await visitor.get('/dashboard/projects')).payload)).to.contain('You left the project.').and.to.not.contain('Passing through');
        expect((await visitor.get(`/dashboard/projects/${project.id}`)).statusCode).to.equal(404);
    });

    it('shows a viewer the API\'s 403 when they try a change, and offers them no forms', async () => {
        const { visitor: owner, email, password } = await signedUp(instance.server);
        const viewer = await register(instance.server, 'viewer');
        const projectId = await createProject(owner, 'Watched');
        await joinProject(instance.server, await login(instance.server, { email, password }), projectId, viewer, 'viewer');

        const visitor = await signIn(viewer);
        const page = await visitor.get(`/dashboard/projects/${projectId}`);
        expect(pageText(page.payload)).to.contain('your role: viewer');
        expect(page.payload).to.not.contain(`action="/dashboard/projects/${projectId}/rename"`);
        expect(page.payload).to.not.contain(`action="/dashboard/projects/${projectId}/members"`);
        expect(page.payload).to.not.contain('Invitations not answered yet');

        const refused = await visitor.post(`/dashboard/projects/${projectId}/rename`, { name: 'Mine now' });
        expect(refused.statusCode).to.equal(403);
        expect(pageText(refused.payload)).to.contain('This action requires the admin role or higher in the project');
        expect(refused.payload).to.contain('role="alert"');
        const invite = await visitor.post(`/dashboard/projects/${projectId}/members`, { email: viewer.email, role: 'owner' });
        expect(invite.statusCode).to.equal(403);
        expect((await call('GET', `/v1/projects/${projectId}`, viewer.session)).result.name).to.equal('Watched');
    });

    it('answers 404 for a project the visitor cannot reach, and 400 for a malformed id', async () => {
        const { visitor } = await signedUp(instance.server);
        const stranger = await register(instance.server);
        const res = await visitor.get(`/dashboard/projects/${stranger.projectId}`);
        expect(res.statusCode).to.equal(404);
        expect(pageText(res.payload)).to.contain('Project not found');
        expect((await visitor.get('/dashboard/projects/not-an-id')).statusCode).to.equal(400);
    });

    it('shows every kind of resource of a project, each with its own empty state', async () => {
        const { visitor, email, password } = await signedUp(instance.server);
        const projectId = await createProject(visitor, 'Empty');
        const text = pageText((await visitor.get(`/dashboard/projects/${projectId}`)).payload);
        expect(text).to.contain('Apps No apps in this project.');
        expect(text).to.contain('Sites No sites in this project.');
        expect(text).to.contain('Cron jobs No cron jobs in this project.');
        expect(text).to.contain('Workers No workers in this project.');
        expect(text).to.contain('Databases No databases in this project.');
        expect(text).to.contain('Virtual machines No virtual machines in this project.');
        expect(text).to.not.contain('does not serve');

        const session = (await login(instance.server, { email, password })).session;
        const site = await call('POST', '/v1/sites/from-visual-builder', session, { name: `page-${projectId.slice(4, 12).toLowerCase()}`, projectId });
        expect(site.statusCode).to.equal(201);
        expect(pageText((await visitor.get(`/dashboard/projects/${projectId}`)).payload)).to.contain(`Sites ${site.result.name} deploying`);
    });

    it('shows the project\'s workers and cron jobs, its own cron jobs first and then its apps\', app by app, paused ones said so', async () => {
        const { visitor, email, password } = await signedUp(instance.server);
        const projectId = await createProject(visitor, 'Scheduled');
        const session = (await login(instance.server, { email, password })).session;
        const tag = projectId.slice(4, 12).toLowerCase();
        const app = await call('POST', '/v1/apps', session, { name: `cron-${tag}`, projectId });
        expect(app.statusCode).to.equal(201);
        for (const [name, status] of [['nightly', 'active'], ['weekly', 'paused']]) {
            const job = await call('POST', `/v1/apps/${app.result.name}/cron-jobs`, session, { name, schedule: '0 3 * * *', command: 'node job.js' });
            expect(job.statusCode).to.equal(201);
            if (status === 'paused') {
                await call('PATCH', `/v1/apps/${app.result.name}/cron-jobs/${job.result.id}`, session, { status });
            }
        }

        const report = await call('POST', '/v1/cron-jobs', session, { name: `report-${tag}`, projectId, schedule: '0 6 * * 1', timeZone: 'Europe/Paris', startCommand: 'node report.js' });
        expect(report.statusCode).to.equal(201);
        await call('POST', `/v1/cron-jobs/report-${tag}/pause`, session);
        const worker = await call('POST', '/v1/workers', session, { name: `mailer-${tag}`, projectId, startCommand: 'node mailer.js' });
        expect(worker.statusCode).to.equal(201);

        const text = pageText((await visitor.get(`/dashboard/projects/${projectId}`)).payload);
        expect(text).to.contain(`Workers mailer-${tag} created`);
        expect(text).to.contain(`Cron jobs report-${tag} paused ${app.result.name} / nightly active ${app.result.name} / weekly paused`);
        expect(text).to.not.contain('cron jobs yet');
        expect(text).to.not.contain('workers yet');
    });

    describe('when more kinds\' list routes are mounted', () => {

        let mounted: TestServer;

        before(async () => {
            mounted = await testServer();
            // The sites list refuses, as the real API may (a plan without sites).
            mounted.server.ext('onPreHandler', (request, h) => request.route.settings.id === 'sites.list' ? Boom.forbidden('Sites are not available on your plan') : h.continue);
        });

        after(async () => {
            await mounted?.stop();
        });

        it('lists each kind\'s resources with their status, and shows a list\'s refusal in its place', async () => {
            const { visitor, email, password } = await signedUp(mounted.server);
            await visitor.get('/dashboard/projects');
            const projectId = /href="\/dashboard\/projects\/(prj_[0-9A-Za-z]+)"/.exec(visitor.last!.payload)![1];
            const api = await login(mounted.server, { email, password });
            const created = await mounted.server.inject({ method: 'POST', url: '/v1/apps', headers: { authorization: api.session }, payload: { name: `web-${projectId.slice(4, 10).toLowerCase()}`, projectId } });
            expect(created.statusCode).to.equal(201);
            const text = pageText((await visitor.get(`/dashboard/projects/${projectId}`)).payload);
            expect(text).to.contain(`Resources Apps ${(created.result as { name: string }).name} created`);
            expect(text).to.contain('Sites Sites are not available on your plan');
            expect(text).to.not.contain('does not serve');
        });
    });
});
