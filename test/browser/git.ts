import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { freePort } from '../../lib/free-port';
import { PASSWORD, uniqueEmail } from '../helpers/api';
import { BROWSER_TIMEOUT, executablePath, launchChromium, screenshot, type LaunchedBrowser } from '../helpers/browser';
import { gitHostFakes, type GitHostFakes } from '../helpers/git-hosts';
import { testServer, type TestServer } from '../helpers/server';

// Connecting GitHub from the dashboard in a real browser: the Connect button's form ends in a redirect to GitHub (a
// fake on another origin that approves at once), which browsers allow only because the page's form-action names it;
// GitHub sends the browser back to the callback page, which completes the connection; Disconnect removes it.
const { describe, it, before, after } = exports.lab = Lab.script();
const { expect } = Code;


describe('connecting GitHub from the dashboard, in a browser', { skip: !executablePath }, () => {

    let fakes: GitHostFakes;
    let instance: TestServer;
    let chromium: LaunchedBrowser;
    let base: string;

    before(async () => {
        fakes = await gitHostFakes();
        const port = await freePort();
        base = `http://127.0.0.1:${port}`;
        instance = await testServer({ ...fakes.config, port, publicUrl: base, apiBaseUrl: base }, { start: true });
        chromium = await launchChromium();
    });

    after(async () => {
        await chromium?.close();
        await instance?.stop();
        await fakes?.stop();
    });

    it('connects through GitHub and back, then disconnects', { timeout: BROWSER_TIMEOUT }, async () => {
        const context = await chromium.browser.newContext({ viewport: { width: 1280, height: 900 } });
        const page = await context.newPage();
        try {
            await page.goto(`${base}/dashboard/sign-up`);
            await page.getByLabel('Name').fill('Ada');
            await page.getByLabel('Email').fill(uniqueEmail('browser-git'));
            await page.getByLabel('Password').fill(PASSWORD);
            await page.getByRole('button', { name: 'Create account' }).click();
            await page.waitForURL(/\/dashboard\/projects/);
            await page.locator('a[href^="/dashboard/projects/prj_"]').first().click();
            await page.getByRole('link', { name: 'Git connections' }).click();
            await page.waitForURL(/\/git$/);
            await screenshot(page, 'git-connections');

            await page.getByRole('button', { name: 'Connect GitHub' }).click();
            await page.waitForURL(/\/git$/);
            expect(fakes.github.requests.some((request) => request.path.startsWith('/login/oauth/authorize?'))).to.be.true();
            expect(await page.getByText('GitHub is connected as ada.').isVisible()).to.be.true();
            expect(await page.getByRole('button', { name: 'Disconnect GitHub' }).isVisible()).to.be.true();
            await screenshot(page, 'git-connected');

            await page.getByRole('button', { name: 'Disconnect GitHub' }).click();
            await page.waitForURL(/\/git$/);
            expect(await page.getByText('GitHub (ada) is disconnected from the project and its token revoked there.').isVisible()).to.be.true();
            expect(fakes.github.oauth.live()).to.equal([]);
        }
        finally {
            await context.close();
        }
    });
});
