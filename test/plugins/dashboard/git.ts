import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { pageText, signedUp, Visitor } from '../../helpers/dashboard';
import { gitHostFakes, type GitHostFakes } from '../../helpers/git-hosts';
import { testServer, type TestServer } from '../../helpers/server';

// The dashboard's Git pages over inject: a project's connections, the connect button that sends the browser to the
// host (its page allowing that form target), the callback page that completes the connection the host approved, and
// the disconnect button. The state is the dashboard session's: another browser's callback is refused.
const { describe, it, before, after } = exports.lab = Lab.script();
const { expect } = Code;

describe('dashboard Git pages', () => {

    let fakes: GitHostFakes;
    let instance: TestServer;
    let visitor: Visitor;
    let projectId: string;

    before(async () => {
        fakes = await gitHostFakes();
        instance = await testServer(fakes.config);
        visitor = (await signedUp(instance.server, 'dash-git')).visitor;
        const projects = await visitor.get('/dashboard/projects');
        projectId = /\/dashboard\/projects\/(prj_[0-9A-Za-z]{16})/.exec(projects.payload)![1]!;
    });

    after(async () => {
        await instance?.stop();
        await fakes?.stop();
    });

    it('shows the hosts, none connected, with a connect button whose redirect the page\'s policy allows', async () => {
        const page = await visitor.get(`/dashboard/projects/${projectId}/git`);
        expect(page.statusCode).to.equal(200);
        const text = pageText(page.payload);
        expect(text).to.include('GitHub — Not connected');
        expect(text).to.include('Bitbucket — Not connected');
        expect(page.headers['content-security-policy']).to.include(`form-action 'self' ${fakes.github.url}`);
        expect((await visitor.get(`/dashboard/projects/${projectId}`)).payload).to.include(`/dashboard/projects/${projectId}/git`);
    });

    it('connects GitHub: to the host, back to the callback page, and on to the project\'s connections', async () => {
        await visitor.get(`/dashboard/projects/${projectId}/git`);
        const sent = await visitor.post(`/dashboard/projects/${projectId}/git/github/connect`);
        expect(sent.statusCode).to.equal(302);
        const authorize = new URL(sent.headers.location as string);
        expect(authorize.origin + authorize.pathname).to.equal(`${fakes.github.url}/login/oauth/authorize`);
        const state = authorize.searchParams.get('state')!;

        // Another browser (another session of nobody, then of someone else) cannot complete it.
        const stranger = (await signedUp(instance.server, 'dash-stranger')).visitor;
        const refused = await stranger.get(`/dashboard/git/github/callback?code=${fakes.github.oauth.approve('ada')}&state=${state}`);
        expect(refused.statusCode).to.equal(400);
        expect(pageText(refused.payload)).to.include('The state is not valid');

        const back = await visitor.get(`/dashboard/git/github/callback?code=${fakes.github.oauth.approve('ada')}&state=${state}`);
        expect(back.statusCode, back.payload).to.equal(302);
        expect(back.headers.location).to.equal(`/dashboard/projects/${projectId}/git`);
        const page = await visitor.get(back.headers.location as string);
        const text = pageText(page.payload);
        expect(text).to.include('GitHub is connected as ada.');
        expect(text).to.include('GitHub ada Octo Dev Connected');
    });

    it('shows the host\'s refusal when the user declined', async () => {
        const declined = await visitor.get('/dashboard/git/gitlab/callback?error=access_denied&error_description=The+user+denied+access');
        expect(declined.statusCode).to.equal(400);
        expect(pageText(declined.payload)).to.include('GitLab did not connect: The user denied access.');
    });

    it('sends a signed-out visitor to sign in', async () => {
        const res = await new Visitor(instance.server).get('/dashboard/git/github/callback?code=x&state=y');
        expect(res.statusCode).to.equal(302);
        expect(String(res.headers.location)).to.startWith('/dashboard/sign-in?next=');
    });

    it('disconnects GitHub, revoking its token there', async () => {
        await visitor.get(`/dashboard/projects/${projectId}/git`);
        const res = await visitor.post(`/dashboard/projects/${projectId}/git/github/disconnect`);
        expect(res.statusCode).to.equal(302);
        const text = pageText((await visitor.get(res.headers.location as string)).payload);
        expect(text).to.include('GitHub (ada) is disconnected from the project and its token revoked there.');
        expect(text).to.include('GitHub — Not connected');
        expect(fakes.github.oauth.live()).to.equal([]);
    });
});
