import * as Boom from '@hapi/boom';
import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import Joi from 'joi';

import { listQuery } from '../../../lib/pagination';
import { bindRoutes } from '../../../lib/route-table';
import { sitesTable } from '../../../manifest/routes/sites';
import { caller, login, register, type TestUser } from '../../helpers/api';
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
        return /^\/dashboard\/projects\/(prj_[0-9A-Za-z]+)$/.exec(res.headers.location as string)![1]!;
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

    it('invites a member by email, changes their role, and removes them after a confirmation', async () => {
        const { visitor } = await signedUp(instance.server);
        const grace = await register(instance.server, 'grace');
        const projectId = await createProject(visitor, 'Team');

        await visitor.get(`/dashboard/projects/${projectId}`);
        const invited = await visitor.post(`/dashboard/projects/${projectId}/members`, { email: grace.email, role: 'developer' });
        expect(invited.statusCode).to.equal(302);
        const page = await visitor.get(`/dashboard/projects/${projectId}`);
        expect(pageText(page.payload)).to.contain(`${grace.email} is now a member, with the role developer.`);
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

    it('shows the API\'s refusals on the project page: an unknown email, the last owner', async () => {
        const { visitor } = await signedUp(instance.server);
        const projectId = await createProject(visitor, 'Solo');
        await visitor.get(`/dashboard/projects/${projectId}`);

        const unknown = await visitor.post(`/dashboard/projects/${projectId}/members`, { email: 'nobody@example.test', role: 'viewer' });
        expect(unknown.statusCode).to.equal(404);
        expect(pageText(unknown.payload)).to.contain('No account with that email address');
        expect(unknown.payload).to.contain('value="nobody@example.test"');

        const me = /\/members\/(usr_[0-9A-Za-z]+)\/role/.exec(unknown.payload)![1]!;
        const demoted = await visitor.post(`/dashboard/projects/${projectId}/members/${me}/role`, { role: 'viewer' });
        expect(demoted.statusCode).to.equal(409);
        expect(pageText(demoted.payload)).to.contain('A project must keep at least one owner');
    });

    it('shows a viewer the API\'s 403 when they try a change, and offers them no forms', async () => {
        const { visitor: owner } = await signedUp(instance.server);
        const viewer = await register(instance.server, 'viewer');
        const projectId = await createProject(owner, 'Watched');
        await owner.get(`/dashboard/projects/${projectId}`);
        await owner.post(`/dashboard/projects/${projectId}/members`, { email: viewer.email, role: 'viewer' });

        const visitor = await signIn(viewer);
        const page = await visitor.get(`/dashboard/projects/${projectId}`);
        expect(pageText(page.payload)).to.contain('your role: viewer');
        expect(page.payload).to.not.contain(`action="/dashboard/projects/${projectId}/rename"`);
        expect(page.payload).to.not.contain(`action="/dashboard/projects/${projectId}/members"`);

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

    it('shows the apps of a project and names plainly the kinds this server does not serve yet', async () => {
        const { visitor } = await signedUp(instance.server);
        const projectId = await createProject(visitor, 'Empty');
        const text = pageText((await visitor.get(`/dashboard/projects/${projectId}`)).payload);
        expect(text).to.contain('Apps No apps in this project.');
        expect(text).to.contain('Cron jobs No cron jobs in this project.');
        expect(text).to.contain('Databases No databases in this project.');
        expect(text).to.contain('Virtual machines No virtual machines in this project.');
        expect(text).to.contain('This server does not serve sites and workers yet, so there are none to show.');
    });

    it('shows the cron jobs of the project\'s apps, app by app, while the project-wide cron job list is not served', async () => {
        const { visitor, email, password } = await signedUp(instance.server);
        const projectId = await createProject(visitor, 'Scheduled');
        const session = (await login(instance.server, { email, password })).session;
        const app = await call('POST', '/v1/apps', session, { name: `cron-${projectId.slice(4, 12).toLowerCase()}`, projectId });
        expect(app.statusCode).to.equal(201);
        for (const [name, status] of [['nightly', 'active'], ['weekly', 'paused']]) {
            const job = await call('POST', `/v1/apps/${app.result.name}/cron-jobs`, session, { name, schedule: '0 3 * * *', command: 'node job.js' });
            expect(job.statusCode).to.equal(201);
            if (status === 'paused') {
                await call('PATCH', `/v1/apps/${app.result.name}/cron-jobs/${job.result.id}`, session, { status });
            }
        }

        const text = pageText((await visitor.get(`/dashboard/projects/${projectId}`)).payload);
        expect(text).to.contain(`Cron jobs ${app.result.name} / nightly active ${app.result.name} / weekly paused`);
        expect(text).to.not.contain('cron jobs yet');
    });

    describe('when more kinds\' list routes are mounted', () => {

        let mounted: TestServer;

        before(async () => {
            mounted = await testServer();
            const row = (table: typeof sitesTable, id: string) => ({ family: table.family, rows: table.rows.filter((candidate) => candidate.id === id).map((candidate) => ({ ...candidate, example: {} })) });
            // A stand-in for the sites family that refuses, as the real API may.
            bindRoutes(mounted.server, row(sitesTable, 'sites.list'), { 'sites.list': { validate: { query: Joi.object(listQuery) }, handler: () => Boom.forbidden('Sites are not available on your plan') } });
        });

        after(async () => {
            await mounted?.stop();
        });

        it('lists each kind\'s resources with their status, shows its refusals, and names the kinds still missing', async () => {
            const { visitor, email, password } = await signedUp(mounted.server);
            await visitor.get('/dashboard/projects');
            const projectId = /href="\/dashboard\/projects\/(prj_[0-9A-Za-z]+)"/.exec(visitor.last!.payload)![1]!;
            const api = await login(mounted.server, { email, password });
            const created = await mounted.server.inject({ method: 'POST', url: '/v1/apps', headers: { authorization: api.session }, payload: { name: `web-${projectId.slice(4, 10).toLowerCase()}`, projectId } });
            expect(created.statusCode).to.equal(201);
            const text = pageText((await visitor.get(`/dashboard/projects/${projectId}`)).payload);
            expect(text).to.contain(`Resources Apps ${(created.result as { name: string }).name} created`);
            expect(text).to.contain('Sites Sites are not available on your plan');
            expect(text).to.contain('This server does not serve workers yet');
        });
    });
});
