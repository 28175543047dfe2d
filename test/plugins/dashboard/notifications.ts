import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { caller, login } from '../../helpers/api';
import { pageText, signedUp } from '../../helpers/dashboard';
import { testServer, type TestServer } from '../../helpers/server';

// The notifications page: the user's categories through the preferences API, security always on.
const { describe, it, before, after } = exports.lab = Lab.script();
const { expect } = Code;

describe('dashboard notifications', () => {

    let instance: TestServer;
    const call = caller(() => instance.server);

    before(async () => {
        instance = await testServer();
    });

    after(async () => {
        await instance?.stop();
    });

    const projectsEnabled = async (user: { email: string; password: string }) => {
        const { session } = await login(instance.server, user);
        const res = await call('GET', '/v1/users/me/notification-preferences', session);
        return res.result.categories.find((entry: { category: string }) => entry.category === 'projects').enabled as boolean;
    };

    it('shows each category, security checked and locked, the others as the user chose', async () => {
        const { visitor } = await signedUp(instance.server);
        const res = await visitor.get('/dashboard/account/notifications');
        expect(res.statusCode).to.equal(200);
        expect(res.payload).to.contain('<input type="checkbox" id="category-security" checked disabled aria-describedby="category-security-hint">');
        expect(res.payload).to.contain('<input type="checkbox" name="categories" value="projects" id="category-projects" checked aria-describedby="category-projects-hint">');
        expect(pageText(res.payload)).to.contain('security messages (always sent) Sign-ins from a new address, and API keys created, rolled, leaked, used from a new address or about to expire.');
        expect(res.payload).to.contain('<a href="/dashboard/account/notifications" aria-current="page">Notifications</a>');
    });

    it('switches a category off when its box is left unticked, and on again, through the API', async () => {
        const user = await signedUp(instance.server);
        await user.visitor.get('/dashboard/account/notifications');
        const saved = await user.visitor.post('/dashboard/account/notifications', {});
        expect(saved.statusCode).to.equal(302);
        expect(saved.headers.location).to.equal('/dashboard/account/notifications');
        expect(await projectsEnabled(user)).to.be.false();

        const page = await user.visitor.get('/dashboard/account/notifications');
        expect(pageText(page.payload)).to.contain('Your notification choices are saved.');
        expect(page.payload).to.contain('value="projects" id="category-projects" aria-describedby');

        await user.visitor.post('/dashboard/account/notifications', { categories: 'projects' });
        expect(await projectsEnabled(user)).to.be.true();
    });

    it('refuses the form without its token, changing nothing', async () => {
        const user = await signedUp(instance.server);
        await user.visitor.get('/dashboard/account/notifications');
        expect((await user.visitor.post('/dashboard/account/notifications', {}, { csrf: null })).statusCode).to.equal(403);
        expect(await projectsEnabled(user)).to.be.true();
    });
});
