import * as Fs from 'node:fs';
import * as Os from 'node:os';
import * as Path from 'node:path';

import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';
import type { Browser, BrowserContext, Page } from 'playwright-core';

import { caller, login, PASSWORD, register, uniqueEmail, type TestUser } from '../helpers/api';
import { BROWSER_TIMEOUT, executablePath, launchChromium, screenshot, type LaunchedBrowser } from '../helpers/browser';
import { testServer, type TestServer } from '../helpers/server';
import { createSiteFromUpload, tarGz } from '../helpers/sites';

// The hosting console in a real browser, as a new user tries it: sign up, create an app, set an environment
// variable, deploy and watch the deployment's lines arrive in the live tail, open the metrics, add a domain, sign
// another session out and read the security trail. Every page is checked by axe-core (no serious or critical
// violation) and for Content-Security-Policy violations (none: the policy is the server's, never bypassed).
const { describe, it, before, after } = exports.lab = Lab.script();
const { expect } = Code;

const AXE = Fs.readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
const TIMEOUT = BROWSER_TIMEOUT * 2;                            // a bound on the whole walk, not an assertion on its speed

interface Violation {
    id: string;
    impact: string | null;
    help: string;
    nodes: Array<{ target: unknown[] }>;
}

describe('the hosting console in a browser', { skip: !executablePath }, () => {

    let instance: TestServer;
    let chromium: LaunchedBrowser;
    let base: string;
    const audited = new Map<string, Violation[]>();
    const policyViolations: string[] = [];

    before(async () => {
        instance = await testServer({ dashboard: { liveTail: { pollMs: 200 } } }, { start: true });
        instance.server.plugins['hostless-jobs'].queue.start();
        base = instance.server.info.uri;
        chromium = await launchChromium();
    });

    after(async () => {
        await chromium?.close();
        await instance?.stop();
    });

    // Each context reports every CSP violation its pages see; nothing here sets bypassCSP.
    const fresh = async (browser: Browser): Promise<{ context: BrowserContext; page: Page }> => {
        const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
        await context.exposeBinding('reportPolicyViolation', (_source, text: string) => {
            policyViolations.push(text);
        });
        await context.addInitScript(`document.addEventListener('securitypolicyviolation', (event) => {
            window.reportPolicyViolation(event.violatedDirective + ' blocked ' + event.blockedURI + ' on ' + document.location.pathname);
        });`);
        const page = await context.newPage();
        page.on('console', (message) => {
            if (message.type() === 'error' && /Content Security Policy/i.test(message.text())) {
                policyViolations.push(message.text());
            }
        });
        return { context, page };
    };

    /** axe-core over the page as it is now, and a screenshot of it. */
    const check = async (page: Page, name: string) => {
        await page.evaluate(AXE);
        const result = await page.evaluate<{ violations: Violation[] }>('axe.run(document, { resultTypes: ["violations"] })');
        audited.set(name, result.violations.filter((violation) => violation.impact === 'serious' || violation.impact === 'critical'));
        await screenshot(page, `console-${name}`);
        expect(policyViolations, `CSP violations on ${name}`).to.equal([]);
    };

    const tab = (page: Page, name: string) => page.getByRole('navigation', { name: 'console-app' }).getByRole('link', { name, exact: true }).click();

    it('sees a policy violation when a page breaks the policy, so the walk below cannot pass blind', { timeout: BROWSER_TIMEOUT }, async () => {
        const { context, page } = await fresh(chromium.browser);
        try {
            await page.goto(`${base}/dashboard/sign-in`);
            await page.evaluate('document.body.appendChild(Object.assign(document.createElement("script"), { textContent: "window.ran = true" }))');
            for (let tries = 0; !policyViolations.length && tries < 500; ++tries) {
                await new Promise((resolve) => setTimeout(resolve, 20));
            }

            expect(policyViolations.join(' ')).to.contain('script-src');
            expect(await page.evaluate('window.ran === true')).to.be.false();
        }
        finally {
            await context.close();
            policyViolations.length = 0;                        // closed first: no late report reaches the walk below
        }
    });

    it('walks from sign-up to a live deployment, its live tail, metrics, a domain, a revoked session and the security trail', { timeout: TIMEOUT }, async () => {
        const email = uniqueEmail('console');
        const { context, page } = await fresh(chromium.browser);
        const other = await fresh(chromium.browser);
        try {
            await page.goto(`${base}/dashboard/sign-up`);
            await page.getByLabel('Name').fill('Console User');
            await page.getByLabel('Email').fill(email);
            await page.getByLabel('Password').fill(PASSWORD);
            await page.getByRole('button', { name: 'Create account' }).click();
            await page.waitForURL(`${base}/dashboard/projects`);
            await check(page, 'projects');

            await page.getByRole('link', { name: 'Personal' }).first().click();
            await page.getByRole('heading', { name: 'Create an app' }).waitFor();
            await check(page, 'project');
            await page.getByLabel('Name', { exact: true }).fill('console-app');
            await page.getByLabel('Start command').fill('npm start');
            await page.getByRole('button', { name: 'Create app' }).click();
            await page.waitForURL(`${base}/dashboard/apps/console-app`);
            await page.getByText('The app “console-app” is created').waitFor();
            await check(page, 'app');

            await tab(page, 'Environment');
            await page.getByLabel('Name', { exact: true }).fill('GREETING');
            await page.getByLabel('Value').fill('hello from the console');
            await page.getByRole('button', { name: 'Save variable' }).click();
            await page.getByText('The variable GREETING is set').waitFor();
            await page.getByText('Show value').click();
            await page.getByText('hello from the console').waitFor();
            await check(page, 'environment');

            // The logs tab follows the live tail while another tab of the same browser deploys.
            await tab(page, 'Logs');
            await page.getByText('Following new log lines…').waitFor();
            const deployer = await context.newPage();
            await deployer.goto(`${base}/dashboard/apps/console-app`);
            await deployer.getByRole('button', { name: 'Deploy', exact: true }).click();
            await deployer.getByText('A deployment is queued.').waitFor();
            await deployer.close();
            await page.locator('#tail-lines li', { hasText: 'is live (records driver: no process was started)' }).waitFor({ timeout: BROWSER_TIMEOUT });
            expect(await page.locator('#tail-lines li', { hasText: 'Start command: npm start' }).count()).to.equal(1);
            await check(page, 'logs');

            await tab(page, 'Deployments');
            await page.getByRole('cell', { name: 'live' }).first().waitFor();
            await check(page, 'deployments');
            await page.locator('a[href*="/deployments/dep_"]').first().click();
            await page.getByRole('heading', { name: 'Configuration snapshot' }).waitFor();
            expect(await page.getByText('The records driver keeps state only').count()).to.equal(1);
            await check(page, 'deployment');

            await tab(page, 'Metrics');
            expect(await page.getByText('Unavailable: nothing measures this here').count()).to.equal(4);
            await check(page, 'metrics');

            await tab(page, 'Domains');
            await page.getByRole('textbox', { name: 'Domain' }).fill('shop.example.com');
            await page.getByRole('button', { name: 'Add domain' }).click();
            await page.getByText('_hostless-challenge.shop.example.com', { exact: true }).waitFor();
            await check(page, 'domains');

            // A worker process, a cron job and a collaborator, added through the API (a session signed out again), so
            // their tabs show their forms to axe; the page then scales the process and pauses the job.
            const call = caller(() => instance.server);
            const { session } = await login(instance.server, { email, password: PASSWORD });
            expect((await call('POST', '/v1/apps/console-app/worker-processes', session, { name: 'queue', command: 'node queue.js' })).statusCode).to.equal(201);
            expect((await call('POST', '/v1/apps/console-app/cron-jobs', session, { name: 'nightly', schedule: '0 3 * * *', command: 'node nightly.js' })).statusCode).to.equal(201);
            const helper = await register(instance.server, 'helper');
            expect((await call('PATCH', '/v1/apps/console-app/collaborators', session, { email: helper.email, permissions: ['view'] })).statusCode).to.equal(202);
            const vm = await call('POST', '/v1/virtual-machines', session, { name: 'console-vm', projectId: (await call('GET', '/v1/apps/console-app', session)).result.projectId, size: 's-1vcpu-1gb', image: 'debian-12', region: 'eu-west' });
            expect(vm.statusCode).to.equal(201);
            const site = await createSiteFromUpload(instance.server, { session } as TestUser, 'console-site', tarGz([{ name: 'index.html', content: '<h1>one</h1>' }]), { projectId: vm.result.projectId });
            expect(site.statusCode).to.equal(201);
            expect((await call('POST', '/v1/auth/logout', session, {})).statusCode).to.equal(204);

            // The site's new version goes up through the page's file input, a real multipart post.
            await page.goto(`${base}/dashboard/sites/console-site/deployments`);
            await check(page, 'site-deployments');
            const upload = Path.join(Os.tmpdir(), `console-site-${Date.now()}.tar.gz`);
            Fs.writeFileSync(upload, tarGz([{ name: 'index.html', content: '<h1>two</h1>' }]));
            await page.getByLabel('Archive of the site\'s files (.tar.gz or .zip)').setInputFiles(upload);
            await page.getByRole('button', { name: 'Upload and deploy' }).click();
            await page.getByText(`${Path.basename(upload)} is uploaded: its deployment is queued.`).waitFor();
            Fs.rmSync(upload, { force: true });

            for (const name of ['firewall', 'size']) {
                await page.goto(`${base}/dashboard/virtual-machines/${vm.result.id}/${name}`);
                await check(page, `vm-${name}`);
            }

            await page.goto(`${base}/dashboard/apps/console-app`);

            for (const name of ['Cron jobs', 'Worker processes', 'Collaborators']) {
                await tab(page, name);
                await check(page, name.toLowerCase().replace(' ', '-'));
            }

            await tab(page, 'Worker processes');
            await page.getByLabel('Instances of queue').fill('2');
            await page.getByRole('button', { name: 'Save' }).click();
            await page.getByText('The worker process queue runs 2 instance(s)').waitFor();
            await tab(page, 'Cron jobs');
            await page.getByRole('button', { name: 'Pause' }).click();
            await page.getByText('The cron job is paused.').waitFor();
            await page.getByRole('button', { name: 'Resume' }).waitFor();

            await page.goto(`${base}/dashboard/apps/console-app/delete`);
            await check(page, 'delete');

            // A second browser signs in as the same user; the first signs it out from the sessions page.
            await other.page.goto(`${base}/dashboard/sign-in`);
            await other.page.getByLabel('Email').fill(email);
            await other.page.getByLabel('Password').fill(PASSWORD);
            await other.page.getByRole('button', { name: 'Sign in' }).click();
            await other.page.waitForURL(`${base}/dashboard/projects`);

            await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Account' }).click();
            await check(page, 'account');
            await page.getByRole('navigation', { name: 'Account' }).getByRole('link', { name: 'Sessions' }).click();
            const rows = page.getByRole('row').filter({ has: page.getByRole('button', { name: /^Sign out session/ }) });
            expect(await rows.count()).to.equal(2);                 // this browser's (opened by the sign-up), the other's
            await check(page, 'sessions');
            const others = rows.filter({ hasNotText: 'this browser' });
            const newest = others.first();
            await newest.getByRole('button', { name: /^Sign out session/ }).click();
            await page.getByText('That session is signed out').waitFor();
            await other.page.goto(`${base}/dashboard/keys`);
            await other.page.getByText('Your session has ended. Please sign in again.').waitFor();

            await page.getByRole('navigation', { name: 'Account' }).getByRole('link', { name: 'Security trail' }).click();
            await page.getByRole('rowheader', { name: 'session.revoked' }).first().waitFor();
            expect(await page.getByText('reason: signed_out_by_user').count()).to.be.at.least(1);
            await check(page, 'security');

            for (const [name, link] of [['ssh-keys', 'SSH keys'], ['agents', 'Connect an AI agent']] as const) {
                await page.getByRole('navigation', { name: 'Account' }).getByRole('link', { name: link }).click();
                await check(page, name);
            }

            expect(await page.getByText('--header "Authorization: Bearer svk_..."').count()).to.equal(1);
            await page.goto(`${base}/dashboard/keys/new?preset=read-only`);
            expect(await page.getByLabel('apps:read').isChecked()).to.be.true();
            expect(await page.getByLabel('apps:write').isChecked()).to.be.false();
            await check(page, 'key-presets');

            // Signing out in another tab ends the live tail within a poll.
            await page.goto(`${base}/dashboard/apps/console-app/logs`);
            await page.getByText('Following new log lines…').waitFor();
            const leaver = await context.newPage();
            await leaver.goto(`${base}/dashboard/projects`);
            await leaver.getByRole('button', { name: 'Sign out' }).click();
            await leaver.getByText('You are signed out.').waitFor();
            await page.getByText('The live tail stopped: this session is signed out.').waitFor();

            const serious = [...audited].flatMap(([name, violations]) => violations.map((violation) => `${name}: ${violation.id} (${violation.impact}) ${violation.help} at ${JSON.stringify(violation.nodes.map((node) => node.target))}`));
            expect(serious).to.equal([]);
            expect(audited.size).to.be.at.least(18);
            expect(policyViolations).to.equal([]);
        }
        finally {
            await other.context.close();
            await context.close();
        }
    });
});
