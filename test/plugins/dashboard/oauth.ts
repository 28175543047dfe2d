import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { caller, register, type TestUser } from '../../helpers/api';
import { pageText, Visitor } from '../../helpers/dashboard';
import { authorize, authorizationOf, authorizeParams, basic, ISSUER, pkce, REDIRECT_URI, registerClient, tokenRequest, type Client } from '../../helpers/oauth';
import { testServer, type TestServer } from '../../helpers/server';

// The dashboard's OAuth pages over inject: the consent screen (sign-in first, what it shows, its framing and form
// policies, its form token), the connected AI apps, and the OAuth clients. Browser runs are in test/browser/oauth.ts.
const { describe, it, before, after } = exports.lab = Lab.script();
const { expect } = Code;

describe('dashboard OAuth pages', () => {

    let instance: TestServer;
    let user: TestUser;
    let client: Client;
    let team: string;
    const call = caller(() => instance.server);

    before(async () => {
        instance = await testServer();
        user = await register(instance.server, 'consenting');
        client = await registerClient(instance.server, user, [REDIRECT_URI], 'Research <b>bot</b>');
        team = (await call('POST', '/v1/projects', user.session, { name: 'Consent team' })).result.id;
    });

    after(async () => {
        await instance?.stop();
    });

    const signedIn = async (who: TestUser = user): Promise<Visitor> => {
        const visitor = new Visitor(instance.server);
        await visitor.get('/dashboard/sign-in');
        const res = await visitor.post('/dashboard/sign-in', { email: who.email, password: who.password });
        expect(res.statusCode).to.equal(302);
        return visitor;
    };

    const pending = async (forClient = client) => authorizationOf(await authorize(instance.server, authorizeParams(forClient.id, pkce(), { scope: 'projects:read apps:read' })));

    describe('the consent screen', () => {

        it('sends a signed-out visitor to sign in, then back to the consent screen', async () => {
            const id = await pending();
            const visitor = new Visitor(instance.server);
            const first = await visitor.get(`/oauth/authorize?authorization=${id}`);
            expect(first.statusCode).to.equal(302);
            const signIn = first.headers.location as string;
            expect(signIn).to.equal(`/dashboard/sign-in?next=${encodeURIComponent(`/oauth/authorize?authorization=${id}`)}`);
            await visitor.get(signIn);
            const res = await visitor.post('/dashboard/sign-in', { email: user.email, password: user.password, next: `/oauth/authorize?authorization=${id}` });
            expect(res.headers.location).to.equal(`/oauth/authorize?authorization=${id}`);
            expect((await visitor.get(res.headers.location as string)).statusCode).to.equal(200);
        });

        it('names the client (escaped), where the answer goes, the read-only scopes and the projects; no framing', async () => {
            const visitor = await signedIn();
            const res = await visitor.get(`/oauth/authorize?authorization=${await pending()}`);
            expect(res.statusCode).to.equal(200);
            expect(res.payload).to.not.include('<b>bot</b>');
            const text = pageText(res.payload);
            expect(text).to.include('Connect Research <b>bot</b> to your Hostless account?');
            expect(text).to.include('Sends you back to connector.example');
            expect(text).to.include('projects:read — Read projects');
            expect(text).to.include('apps:read');
            expect(text).to.include('never change or delete');
            expect(text).to.include('Consent team');
            expect(res.headers['x-frame-options']).to.equal('DENY');
            expect(res.headers['cache-control']).to.equal('no-store');
            const policy = String(res.headers['content-security-policy']);
            expect(policy).to.include('frame-ancestors \'none\'');
            expect(policy).to.include('form-action \'self\' https://connector.example;');
        });

        it('warns when the answer goes to this computer', async () => {
            const local = await registerClient(instance.server, user, ['http://127.0.0.1/callback']);
            const id = authorizationOf(await authorize(instance.server, { ...authorizeParams(local.id, pkce()), redirect_uri: 'http://127.0.0.1:4567/callback' }));
            const res = await (await signedIn()).get(`/oauth/authorize?authorization=${id}`);
            expect(pageText(res.payload)).to.include('runs on a computer, not a website');
            expect(res.headers['content-security-policy']).to.include('form-action \'self\' http://127.0.0.1:4567;');
        });

        it('refuses an answer without the form token, and issues nothing', async () => {
            const id = await pending();
            const visitor = await signedIn();
            await visitor.get(`/oauth/authorize?authorization=${id}`);
            const forged = await visitor.post('/oauth/authorize', { authorization: id, decision: 'allow', access: 'all' }, { csrf: null });
            expect(forged.statusCode).to.equal(403);
            expect(forged.headers.location).to.not.exist();
            expect((await call('GET', `/v1/oauth/authorizations/${id}`, user.session)).statusCode, 'still pending').to.equal(200);
            expect((await visitor.post('/oauth/authorize', { authorization: id, decision: 'allow', access: 'all' }, { csrf: 'x'.repeat(43) })).statusCode).to.equal(403);
        });

        it('allows with chosen projects: back to the app with code, state and iss, the grant pinned', async () => {
            const code = pkce();
            const id = authorizationOf(await authorize(instance.server, authorizeParams(client.id, code)));
            const visitor = await signedIn();
            await visitor.get(`/oauth/authorize?authorization=${id}`);
            const formToken = visitor.formToken();
            const empty = await visitor.post('/oauth/authorize', { authorization: id, decision: 'allow', access: 'some' });
            expect(empty.statusCode).to.equal(400);
            expect(pageText(empty.payload)).to.include('Choose at least one project');

            const res = await visitor.post('/oauth/authorize', { authorization: id, decision: 'allow', access: 'some', projects: [team] });
            expect(res.statusCode).to.equal(302);
            const back = new URL(res.headers.location as string);
            expect(`${back.origin}${back.pathname}`).to.equal(REDIRECT_URI);
            expect(back.searchParams.get('state')).to.equal('st-123');
            expect(back.searchParams.get('iss')).to.equal(ISSUER);
            const tokens = await tokenRequest(instance.server, { grant_type: 'authorization_code', code: back.searchParams.get('code')!, redirect_uri: REDIRECT_URI, code_verifier: code.verifier }, basic(client.id, client.secret));
            const projects = await call('GET', '/v1/projects', `Bearer ${tokens.result.access_token}`);
            expect(projects.result.map((project: { id: string }) => project.id)).to.equal([team]);

            const again = await visitor.post('/oauth/authorize', { authorization: id, decision: 'allow', access: 'all' }, { csrf: formToken });
            expect(again.statusCode, 'answered once').to.equal(409);
        });

        it('pins to a ticked project even when "all" stayed selected: a slip gives less, never more', async () => {
            const code = pkce();
            const id = authorizationOf(await authorize(instance.server, authorizeParams(client.id, code)));
            const visitor = await signedIn();
            await visitor.get(`/oauth/authorize?authorization=${id}`);
            const back = new URL((await visitor.post('/oauth/authorize', { authorization: id, decision: 'allow', access: 'all', projects: [team] })).headers.location as string);
            const tokens = await tokenRequest(instance.server, { grant_type: 'authorization_code', code: back.searchParams.get('code')!, redirect_uri: REDIRECT_URI, code_verifier: code.verifier }, basic(client.id, client.secret));
            expect((await call('GET', '/v1/projects', `Bearer ${tokens.result.access_token}`)).result.map((project: { id: string }) => project.id)).to.equal([team]);
        });

        it('denies: back to the app with access_denied', async () => {
            const id = await pending();
            const visitor = await signedIn();
            await visitor.get(`/oauth/authorize?authorization=${id}`);
            const res = await visitor.post('/oauth/authorize', { authorization: id, decision: 'deny' });
            expect(res.statusCode).to.equal(302);
            expect(new URL(res.headers.location as string).searchParams.get('error')).to.equal('access_denied');
        });

        it('shows a page, not a consent form, for another account\'s client and for an unknown request', async () => {
            const stranger = await register(instance.server, 'stranger');
            const visitor = await signedIn(stranger);
            const res = await visitor.get(`/oauth/authorize?authorization=${await pending()}`);
            expect(res.statusCode).to.equal(403);
            expect(pageText(res.payload)).to.include('belongs to another account');
            expect(res.payload).to.not.include('name="decision"');
            expect((await visitor.get('/oauth/authorize?authorization=oaz_0000000000000000')).statusCode).to.equal(404);
        });
    });

    describe('connected AI apps', () => {

        it('lists the app with its scopes and projects, and disconnects it at once', async () => {
            const code = pkce();
            const id = authorizationOf(await authorize(instance.server, authorizeParams(client.id, code, { scope: 'projects:read' })));
            const visitor = await signedIn();
            await visitor.get(`/oauth/authorize?authorization=${id}`);
            const back = new URL((await visitor.post('/oauth/authorize', { authorization: id, decision: 'allow', access: 'all' })).headers.location as string);
            const tokens = await tokenRequest(instance.server, { grant_type: 'authorization_code', code: back.searchParams.get('code')!, redirect_uri: REDIRECT_URI, code_verifier: code.verifier }, basic(client.id, client.secret));

            const page = await visitor.get('/dashboard/account/connected-apps');
            expect(page.statusCode).to.equal(200);
            const text = pageText(page.payload);
            expect(text).to.include('Research <b>bot</b>');
            expect(text).to.include('All projects');
            const grantId = /action="\/dashboard\/account\/connected-apps\/(ogr_[0-9A-Za-z]{16})\/revoke"/.exec(page.payload)![1];

            expect((await visitor.post(`/dashboard/account/connected-apps/${grantId}/revoke`, {}, { csrf: null })).statusCode).to.equal(403);
            const revoked = await visitor.post(`/dashboard/account/connected-apps/${grantId}/revoke`);
            expect(revoked.headers.location).to.equal('/dashboard/account/connected-apps');
            expect(pageText((await visitor.get('/dashboard/account/connected-apps')).payload)).to.include('is disconnected: it is refused from its next request.');
            expect((await call('GET', '/v1/projects', `Bearer ${tokens.result.access_token}`)).statusCode).to.equal(401);
        });
    });

    describe('OAuth clients', () => {

        it('registers a client and shows its secret once, lists it, and deletes it after confirming', async () => {
            const visitor = await signedIn();
            await visitor.get('/dashboard/account/oauth-clients/new');
            const bad = await visitor.post('/dashboard/account/oauth-clients', { name: 'Bad', redirectUris: 'http://example.com/cb' });
            expect(bad.statusCode).to.equal(400);
            expect(pageText(bad.payload)).to.include('must use https');

            const created = await visitor.post('/dashboard/account/oauth-clients', { name: 'Desk app', redirectUris: 'https://desk.example/cb\r\nhttp://localhost/cb\r\n' });
            expect(created.statusCode).to.equal(201);
            const secret = /id="client-secret" type="text" readonly value="(svos_[0-9A-Za-z]+)"/.exec(created.payload)![1];
            const clientId = /id="client-id" type="text" readonly value="(svoc_[0-9A-Za-z]+)"/.exec(created.payload)![1];
            expect(pageText(created.payload)).to.include('It will not be shown again');

            const list = await visitor.get('/dashboard/account/oauth-clients');
            expect(pageText(list.payload)).to.include(`Desk app ${clientId} https://desk.example/cb http://localhost/cb`);
            expect(list.payload).to.not.include(secret);

            const confirm = await visitor.get(`/dashboard/account/oauth-clients/${clientId}/delete`);
            expect(pageText(confirm.payload)).to.include('Delete “Desk app”?');
            const deleted = await visitor.post(`/dashboard/account/oauth-clients/${clientId}/delete`);
            expect(deleted.headers.location).to.equal('/dashboard/account/oauth-clients');
            expect((await call('GET', '/v1/users/me/oauth-clients', user.session)).result.map((entry: { id: string }) => entry.id)).to.not.include(clientId);
        });

        it('are in the account area, linked from the main navigation', async () => {
            const page = await (await signedIn()).get('/dashboard/projects');
            expect(page.payload).to.include('href="/dashboard/account/connected-apps"');
        });
    });
});
