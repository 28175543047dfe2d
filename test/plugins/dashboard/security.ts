import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { caller, register } from '../../helpers/api';
import { pageText, setCookies, signedUp, Visitor } from '../../helpers/dashboard';
import { testServer, type TestServer } from '../../helpers/server';

// The dashboard's defences: form tokens, the cookie's flags and sealing, the headers of every page, and where a
// signed-out visitor is sent.
const { describe, it, before, after } = exports.lab = Lab.script();
const { expect } = Code;

describe('dashboard security', () => {

    let instance: TestServer;
    const call = caller(() => instance.server);

    before(async () => {
        instance = await testServer();
    });

    after(async () => {
        await instance?.stop();
    });

    describe('form tokens (CSRF)', () => {

        it('refuses a form posted without its token with 403, and changes nothing', async () => {
            const { visitor, email, password } = await signedUp(instance.server);
            await visitor.get('/dashboard/projects');
            const refused = await visitor.post('/dashboard/projects', { name: 'Forged' }, { csrf: null });
            expect(refused.statusCode).to.equal(403);
            expect(refused.payload).to.contain('This form has expired or did not come from this site');

            const login = await call('POST', '/v1/auth/login', undefined, { email, password });
            const projects = await call('GET', '/v1/projects', `Bearer ${login.result.accessToken}`);
            expect(projects.result.map((project: { name: string }) => project.name)).to.not.contain('Forged');
        });

        it('refuses a wrong token and a token from another visitor\'s session', async () => {
            const { visitor } = await signedUp(instance.server);
            const { visitor: other } = await signedUp(instance.server);
            await other.get('/dashboard/projects');
            await visitor.get('/dashboard/projects');

            expect((await visitor.post('/dashboard/projects', { name: 'X' }, { csrf: 'not-the-token' })).statusCode).to.equal(403);
            expect((await visitor.post('/dashboard/projects', { name: 'X' }, { csrf: other.formToken() })).statusCode).to.equal(403);
        });

        it('protects the sign-in form too, and starts a new token at sign-in', async () => {
            const user = await register(instance.server);
            const visitor = new Visitor(instance.server);
            await visitor.get('/dashboard/sign-in');
            const before = visitor.formToken();
            expect((await visitor.post('/dashboard/sign-in', { email: user.email, password: user.password }, { csrf: null })).statusCode).to.equal(403);

            const signedIn = await visitor.post('/dashboard/sign-in', { email: user.email, password: user.password }, { csrf: before });
            expect(signedIn.statusCode).to.equal(302);
            await visitor.get('/dashboard/projects');
            expect(visitor.formToken()).to.not.equal(before);
            expect((await visitor.post('/dashboard/projects', { name: 'Old token' }, { csrf: before })).statusCode).to.equal(403);
        });

        it('checks the token before the form\'s fields: a malformed forged post is 403, not 400', async () => {
            const { visitor } = await signedUp(instance.server);
            const res = await visitor.post('/dashboard/projects', { unexpected: 'field' }, { csrf: null });
            expect(res.statusCode).to.equal(403);
        });
    });

    describe('the session cookie', () => {

        it('is HttpOnly, SameSite=Lax, for the whole site, and not Secure over http', async () => {
            const visitor = new Visitor(instance.server);
            const res = await visitor.get('/dashboard/sign-in');
            const [cookie] = setCookies(res);
            expect(cookie).to.match(/^hostless_session=Fe26\.2\*/);
            expect(cookie).to.contain('HttpOnly');
            expect(cookie).to.contain('SameSite=Lax');
            expect(cookie).to.contain('Path=/');
            expect(cookie).to.not.contain('Secure');
        });

        it('is Secure and __Host- prefixed when PUBLIC_URL is https, and a session lives on it', async () => {
            const secure = await testServer({ publicUrl: 'https://hostless.example.test' });
            try {
                const [cookie] = setCookies(await new Visitor(secure.server).get('/dashboard/sign-in'));
                expect(cookie).to.match(/^__Host-hostless_session=Fe26\.2\*/);
                expect(cookie).to.contain('Secure');
                expect(cookie).to.contain('HttpOnly');
                expect(cookie).to.contain('Path=/');
                expect(cookie).to.not.contain('Domain=');
                const { visitor } = await signedUp(secure.server);
                expect(visitor.cookies.has('__Host-hostless_session')).to.be.true();
                expect(visitor.cookies.has('hostless_session')).to.be.false();
                expect((await visitor.get('/dashboard/projects')).statusCode).to.equal(200);
            }
            finally {
                await secure.stop();
            }
        });

        it('is sealed: it shows neither the tokens nor the email it holds, and a tampered one counts as none', async () => {
            const { visitor, email } = await signedUp(instance.server);
            const value = visitor.cookies.get('hostless_session')!;
            expect(value).to.not.contain('eyJ');
            expect(value).to.not.contain('svr_');
            expect(value).to.not.contain(email.split('@')[0]);

            visitor.cookies.set('hostless_session', value.slice(0, -4) + (value.endsWith('AAAA') ? 'BBBB' : 'AAAA'));
            const res = await visitor.get('/dashboard/keys');
            expect(res.statusCode).to.equal(302);
            expect(res.headers.location).to.equal('/dashboard/sign-in?next=%2Fdashboard%2Fkeys');
        });

        it('is not set by read-only pages for a visitor: the docs hand out no cookie', async () => {
            const res = await new Visitor(instance.server).get('/docs/authentication');
            expect(res.statusCode).to.equal(200);
            expect(setCookies(res)).to.equal([]);
        });
    });

    describe('headers', () => {

        it('puts the content and framing policies on pages, error pages and docs', async () => {
            const { visitor } = await signedUp(instance.server);
            const pages = [
                await visitor.get('/dashboard/projects'),
                await visitor.get('/dashboard/keys/new'),
                await visitor.get('/dashboard/nowhere'),
                await visitor.post('/dashboard/projects', { name: 'x' }, { csrf: null }),
                await visitor.get('/docs'),
                await visitor.get('/docs/search?q=scope'),
                await visitor.get('/docs/no-such-page')
            ];
            expect(pages.map((res) => res.statusCode)).to.equal([200, 200, 404, 403, 200, 200, 404]);
            for (const res of pages) {
                const csp = res.headers['content-security-policy'] as string;
                expect(csp, res.request.url.pathname).to.contain('default-src \'self\'');
                expect(csp).to.contain('script-src \'self\'');
                expect(csp).to.contain('frame-ancestors \'none\'');
                expect(csp).to.not.contain('unsafe-inline');
                expect(res.headers['x-frame-options']).to.equal('DENY');
                expect(res.headers['x-content-type-options']).to.equal('nosniff');
                expect(res.headers['content-type']).to.contain('text/html');
            }
        });

        it('keeps signed-in pages out of caches', async () => {
            const { visitor } = await signedUp(instance.server);
            expect((await visitor.get('/dashboard/keys')).headers['cache-control']).to.equal('no-store');
            expect((await visitor.get('/dashboard/projects')).headers['cache-control']).to.equal('no-store');
        });

        it('serves the stylesheet and script from its own folder, and nothing outside it', async () => {
            const css = await call('GET', '/dashboard/assets/dashboard.css');
            expect(css.statusCode).to.equal(200);
            expect(css.headers['content-type']).to.contain('text/css');
            expect((await call('GET', '/dashboard/assets/dashboard.js')).headers['content-type']).to.contain('javascript');
            expect((await call('GET', '/dashboard/assets/..%2Fsession.ts')).statusCode).to.equal(400);
            expect((await call('GET', '/dashboard/assets/missing.css')).statusCode).to.equal(404);
        });

        it('writes no inline script or style into any page', async () => {
            const { visitor } = await signedUp(instance.server);
            for (const url of ['/dashboard/projects', '/dashboard/keys', '/dashboard/keys/new', '/docs/scopes']) {
                const html = (await visitor.get(url)).payload;
                expect(html, url).to.not.match(/<script(?![^>]*\bsrc=)[^>]*>/);
                expect(html, url).to.not.match(/<style|\sstyle=|\son[a-z]+=/i);
            }
        });
    });

    describe('secrets', () => {

        it('keeps the password and the token out of the log, out of addresses, and off every page after the one-time display', async () => {
            const { visitor, password } = await signedUp(instance.server);
            await visitor.get('/dashboard/keys/new');
            const created = await visitor.post('/dashboard/keys', { name: 'secret keeper', scopes: 'projects:read' });
            const token = /id="token" type="text" readonly value="([^"]+)"/.exec(created.payload)![1];
            const list = await visitor.get('/dashboard/keys');
            const revokePath = /href="(\/dashboard\/keys\/key_\w+\/revoke)"/.exec(list.payload)![1];
            const later = [list, await visitor.get('/dashboard/projects'), await visitor.get(revokePath)];
            later.push(await visitor.post('/dashboard/sign-out'));

            const log = instance.logs.join('');
            expect(log).to.contain('"route":"dashboard.keys.create"');
            for (const secret of [token, token.split('_')[2], password]) {
                expect(log.includes(secret)).to.be.false();
                for (const res of later) {
                    expect(res.payload.includes(secret), res.request.url.pathname).to.be.false();
                    expect(String(res.headers.location ?? '').includes(secret)).to.be.false();
                }
            }
        });
    });

    describe('signed-out visitors', () => {

        it('are sent to the sign-in page from every signed-in page, and back after signing in', async () => {
            const user = await register(instance.server);
            const visitor = new Visitor(instance.server);
            for (const url of ['/dashboard/projects', '/dashboard/keys', '/dashboard/keys/new', `/dashboard/projects/${user.projectId}`]) {
                const res = await visitor.get(url);
                expect(res.statusCode, url).to.equal(302);
                expect(res.headers.location).to.equal(`/dashboard/sign-in?next=${encodeURIComponent(url)}`);
            }

            expect((await visitor.get('/dashboard')).headers.location).to.equal('/dashboard/sign-in');
            expect((await visitor.get('/')).headers.location).to.equal('/dashboard');

            await visitor.get('/dashboard/sign-in?next=%2Fdashboard%2Fkeys');
            const res = await visitor.post('/dashboard/sign-in', { email: user.email, password: user.password, next: '/dashboard/keys' });
            expect(res.headers.location).to.equal('/dashboard/keys');
        });

        const refusedNexts = ['//evil.example', '/\\evil.example', 'https://evil.example/', 'javascript:alert(1)', '/\u0100', '/%C4%80\u007f', '/a\u0000b', '/a b', '/a"b'];

        it('refuse to sign in with a `next` that is not a path on this site in URL characters: 400 naming it, no session', async () => {
            const user = await register(instance.server);
            for (const next of refusedNexts) {
                const visitor = new Visitor(instance.server);
                await visitor.get('/dashboard/sign-in');
                const res = await visitor.post('/dashboard/sign-in', { email: user.email, password: user.password, next });
                expect(res.statusCode, next).to.equal(400);
                expect(pageText(res.payload), next).to.contain('"next" must be a valid path on this site');
                expect((await visitor.get('/dashboard/keys')).statusCode, next).to.equal(302);
            }
        });

        it('refuse such a `next` on the sign-in page when already signed in, and follow an escaped one', async () => {
            const { visitor } = await signedUp(instance.server);
            for (const next of refusedNexts) {
                const res = await visitor.get(`/dashboard/sign-in?next=${encodeURIComponent(next)}`);
                expect(res.statusCode, next).to.equal(400);
                expect(pageText(res.payload), next).to.contain('"next" must be a valid path on this site');
            }

            const escaped = await visitor.get(`/dashboard/sign-in?next=${encodeURIComponent('/dashboard/keys?x=%C4%80&y=[1]')}`);
            expect(escaped.statusCode).to.equal(302);
            expect(escaped.headers.location).to.equal('/dashboard/keys?x=%C4%80&y=[1]');
        });

        it('are not sent back to an address that would not make a valid `next`', async () => {
            const visitor = new Visitor(instance.server);
            const res = await visitor.get('/dashboard/keys?cursor=|');
            expect(res.statusCode).to.equal(302);
            expect(res.headers.location).to.equal('/dashboard/sign-in');
        });
    });
});
