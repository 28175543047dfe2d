import * as Code from '@hapi/code';
import * as Iron from '@hapi/iron';
import * as Lab from '@hapi/lab';
import * as Jose from 'jose';

import { deriveKey } from '../../../lib/crypto';
import { sessionSigner } from '../../../lib/session-token';
import { dashboardCookiePassword } from '../../../manifest/api';
import { PASSWORD, register, uniqueEmail } from '../../helpers/api';
import { pageText, setCookies, signedUp, Visitor } from '../../helpers/dashboard';
import { testServer, type TestServer } from '../../helpers/server';

// Sign up, sign in and sign out through the API's own routes, and the access token's refresh behind the cookie.
const { describe, it, before, after } = exports.lab = Lab.script();
const { expect } = Code;

describe('dashboard accounts', () => {

    let instance: TestServer;

    before(async () => {
        instance = await testServer();
    });

    after(async () => {
        await instance?.stop();
    });

    const sealed = async (visitor: Visitor) => Iron.unseal(visitor.cookies.get('hostless_session')!, dashboardCookiePassword(instance.config), Iron.defaults);
    const seal = async (visitor: Visitor, data: object) => visitor.cookies.set('hostless_session', await Iron.seal(data, dashboardCookiePassword(instance.config), Iron.defaults));

    it('signs up through the API and signs in: the account works, its personal project is listed, its email shown', async () => {
        const { visitor, email } = await signedUp(instance.server, 'newcomer');
        const res = await visitor.get('/dashboard/projects');
        expect(res.statusCode).to.equal(200);
        const text = pageText(res.payload);
        expect(text).to.contain(`Signed in as ${email}`);
        expect(text).to.contain('Personal personal owner');

        const login = await instance.server.inject({ method: 'POST', url: '/v1/auth/login', payload: { email, password: PASSWORD } });
        expect(login.statusCode).to.equal(200);
    });

    it('shows the API\'s refusal on the sign-up page with its status, keeping what was typed but the password', async () => {
        const visitor = new Visitor(instance.server);
        await visitor.get('/dashboard/sign-up');
        const short = await visitor.post('/dashboard/sign-up', { name: 'Ada', email: uniqueEmail(), password: 'short' });
        expect(short.statusCode).to.equal(400);
        expect(pageText(short.payload)).to.contain('"password" length must be at least 10 characters long');
        expect(short.payload).to.contain('value="Ada"');
        expect(short.payload).to.not.contain('value="short"');

        const taken = await register(instance.server);
        const again = await visitor.post('/dashboard/sign-up', { email: taken.email, password: PASSWORD });
        expect(again.statusCode).to.equal(409);
        expect(pageText(again.payload)).to.contain('An account with this email already exists');
    });

    it('refuses a wrong password with the API\'s 401 and its message', async () => {
        const user = await register(instance.server);
        const visitor = new Visitor(instance.server);
        await visitor.get('/dashboard/sign-in');
        const res = await visitor.post('/dashboard/sign-in', { email: user.email, password: 'not the password' });
        expect(res.statusCode).to.equal(401);
        expect(pageText(res.payload)).to.contain('Invalid email or password');
        expect(setCookies(res).join()).to.not.contain('Max-Age=0');
        expect((await visitor.get('/dashboard/keys')).statusCode).to.equal(302);
    });

    it('says so when sign-up is closed on the deployment', async () => {
        const closed = await testServer({ signupEnabled: false });
        try {
            const visitor = new Visitor(closed.server);
            await visitor.get('/dashboard/sign-up');
            const res = await visitor.post('/dashboard/sign-up', { email: uniqueEmail(), password: PASSWORD });
            expect(res.statusCode).to.equal(403);
            expect(pageText(res.payload)).to.contain('Sign-up is closed on this deployment');
        }
        finally {
            await closed.stop();
        }
    });

    it('signs out through the API and clears the cookie: the old cookie no longer opens any page', async () => {
        const { visitor } = await signedUp(instance.server);
        await visitor.get('/dashboard/projects');
        const before = visitor.cookies.get('hostless_session')!;
        const { accessToken } = await sealed(visitor);

        const res = await visitor.post('/dashboard/sign-out');
        expect(res.statusCode).to.equal(302);
        expect(res.headers.location).to.equal('/dashboard/sign-in?reason=signed-out');
        expect(setCookies(res).join()).to.match(/hostless_session=;.*Max-Age=0/);
        expect(visitor.cookies.has('hostless_session')).to.be.false();
        expect(pageText((await visitor.get(res.headers.location as string)).payload)).to.contain('You are signed out.');

        const session = await instance.server.inject({ url: '/v1/users/me', headers: { authorization: `Bearer ${accessToken}` } });
        expect(session.statusCode).to.equal(401);
        const replay = new Visitor(instance.server);
        replay.cookies.set('hostless_session', before);
        const replayed = await replay.get('/dashboard/keys');
        expect(replayed.headers.location).to.equal('/dashboard/sign-in?next=%2Fdashboard%2Fkeys&reason=ended');
    });

    it('refreshes an expired access token once, keeps the new pair, and ends the session when the refresh is refused', async () => {
        const { visitor } = await signedUp(instance.server);
        const data = await sealed(visitor);
        const claims = Jose.decodeJwt(data.accessToken) as { sub: string; sid: string };
        const stale = sessionSigner({ secret: deriveKey(instance.config.sessionSecret, 'session-jwt'), issuer: instance.config.publicUrl, ttlSeconds: -60 });
        await seal(visitor, { ...data, accessToken: await stale.sign({ sub: claims.sub, sid: claims.sid }) });
        const expiredCookie = visitor.cookies.get('hostless_session')!;

        const res = await visitor.get('/dashboard/keys');
        expect(res.statusCode).to.equal(200);
        const rotated = await sealed(visitor);
        expect(rotated.refreshToken).to.not.equal(data.refreshToken);
        expect(Jose.decodeJwt(rotated.accessToken).exp! * 1000).to.be.above(Date.now());
        expect((await visitor.get('/dashboard/projects')).statusCode).to.equal(200);

        // The cookie from before the refresh holds a spent refresh token: presenting it ends the session (reuse detection).
        const stolen = new Visitor(instance.server);
        stolen.cookies.set('hostless_session', expiredCookie);
        const refused = await stolen.get('/dashboard/keys');
        expect(refused.headers.location).to.equal('/dashboard/sign-in?next=%2Fdashboard%2Fkeys&reason=ended');
        expect(stolen.cookies.has('hostless_session')).to.be.false();
        expect((await visitor.get('/dashboard/keys')).headers.location).to.contain('reason=ended');
    });

    it('sends a signed-in visitor from the sign-in and sign-up pages to the dashboard', async () => {
        const { visitor } = await signedUp(instance.server);
        expect((await visitor.get('/dashboard/sign-in')).headers.location).to.equal('/dashboard/projects');
        expect((await visitor.get('/dashboard/sign-up')).headers.location).to.equal('/dashboard/projects');
        expect((await visitor.get('/dashboard')).headers.location).to.equal('/dashboard/projects');
    });
});
