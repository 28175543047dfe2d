import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';
import type { BrowserContext, Page } from 'playwright-core';

import { PASSWORD, uniqueEmail } from '../helpers/api';
import { BROWSER_TIMEOUT as TIMEOUT, executablePath, launchChromium, screenshot, type LaunchedBrowser } from '../helpers/browser';
import { testServer, type TestServer } from '../helpers/server';

// The dashboard in a real browser: Debian's Chromium driven by playwright-core against the server on 127.0.0.1
// (test/helpers/browser.ts; skipped without TEST_CHROMIUM_PATH).
const { describe, it, before, after } = exports.lab = Lab.script();
const { expect } = Code;

describe('the dashboard in a browser', { skip: !executablePath }, () => {

    let instance: TestServer;
    let chromium: LaunchedBrowser;
    let base: string;

    before(async () => {
        instance = await testServer({}, { start: true });
        base = instance.server.info.uri;
        chromium = await launchChromium();
    });

    after(async () => {
        await chromium?.close();
        await instance?.stop();
    });

    const shot = screenshot;

    const fresh = async (): Promise<{ context: BrowserContext; page: Page }> => {
        const context = await chromium.browser.newContext({ viewport: { width: 1280, height: 900 } });
        await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base });
        return { context, page: await context.newPage() };
    };

    const signUp = async (page: Page, name: string) => {
        const email = uniqueEmail(name.toLowerCase());
        await page.goto(`${base}/dashboard/sign-up`);
        await page.getByLabel('Name').fill(name);
        await page.getByLabel('Email').fill(email);
        await page.getByLabel('Password').fill(PASSWORD);
        return { email, submit: () => page.getByRole('button', { name: 'Create account' }).click() };
    };

    it('signs up, creates a key with two scopes, copies its token, uses it over HTTP, revokes it, and is refused next', { timeout: TIMEOUT }, async () => {
        const { context, page } = await fresh();
        try {
            const { email, submit } = await signUp(page, 'Ada');
            await shot(page, 'sign-up');
            await submit();
            await page.waitForURL(`${base}/dashboard/projects`);
            expect(await page.getByText(`Signed in as ${email}`).count()).to.equal(1);
            await shot(page, 'projects');

            await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'API keys' }).click();
            await page.waitForURL(`${base}/dashboard/keys`);
            expect(await page.getByText('You have no API keys yet.').count()).to.equal(1);
            await page.getByRole('link', { name: 'Create an API key' }).click();
            await page.getByLabel('Name').fill('deploy bot');
            await page.getByLabel('projects:read').check();
            await page.getByLabel('apps:read').check();
            await shot(page, 'key-new');
            await page.getByRole('button', { name: 'Create key' }).click();

            await page.getByRole('heading', { name: 'API key created' }).waitFor();
            expect(await page.getByText('It will not be shown again').count()).to.equal(1);
            const shown = await page.getByLabel('Token for “deploy bot”').inputValue();
            expect(shown).to.match(/^svk_[0-9A-Za-z]+_[0-9A-Za-z]+$/);
            await page.getByRole('button', { name: 'Copy token' }).click();
            await page.getByText('Copied to the clipboard.').waitFor();
            const token = await page.evaluate<string>('navigator.clipboard.readText()');
            expect(token).to.equal(shown);
            await shot(page, 'key-created');

            const projects = await fetch(`${base}/v1/projects`, { headers: { authorization: token } });
            expect(projects.status).to.equal(200);
            expect((await projects.json() as Array<{ kind: string }>).map((project) => project.kind)).to.equal(['personal']);
            const introspected = await (await fetch(`${base}/v1/auth/introspect`, { headers: { authorization: `Bearer ${token}` } })).json() as { scopes: string[] };
            expect(introspected.scopes.sort()).to.equal(['apps:read', 'projects:read']);

            await page.getByRole('link', { name: 'Done, back to API keys' }).click();
            const row = page.getByRole('row', { name: /deploy bot/ });
            expect(await row.getByText('projects:read').count()).to.equal(1);
            expect(await page.content()).to.not.contain(token);
            await shot(page, 'keys');
            await row.getByRole('link', { name: 'Revoke deploy bot' }).click();
            await page.getByRole('heading', { name: 'Revoke “deploy bot”?' }).waitFor();
            await shot(page, 'key-revoke');
            await page.getByRole('button', { name: 'Revoke key' }).click();
            await page.getByRole('status').filter({ hasText: 'is revoked' }).waitFor();

            const refused = await fetch(`${base}/v1/projects`, { headers: { authorization: token } });
            expect(refused.status).to.equal(401);
            expect(await refused.json()).to.equal({ statusCode: 401, error: 'Unauthorized', message: 'API key has been revoked' });

            await page.getByRole('button', { name: 'Sign out' }).click();
            await page.getByText('You are signed out.').waitFor();
            await shot(page, 'sign-in');
            await page.goto(`${base}/dashboard/keys`);
            expect(new URL(page.url()).pathname).to.equal('/dashboard/sign-in');
        }
        finally {
            await context.close();
        }
    });

    it('invites a second account by email into a project, which accepts on its invitations page, and changes its role', { timeout: TIMEOUT }, async () => {
        const grace = { email: uniqueEmail('grace'), password: PASSWORD };
        const registered = await fetch(`${base}/v1/auth/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(grace) });
        expect(registered.status).to.equal(201);

        const { context, page } = await fresh();
        const invited = await fresh();
        try {
            const { submit } = await signUp(page, 'Owner');
            await submit();
            await page.waitForURL(`${base}/dashboard/projects`);
            await page.getByLabel('Name').fill('Platform team');
            await page.getByRole('button', { name: 'Create project' }).click();
            await page.getByRole('heading', { name: 'Platform team', level: 1 }).waitFor();

            await page.getByLabel('Email of their account').fill(grace.email);
            await page.getByLabel('Role', { exact: true }).selectOption('developer');
            await page.getByRole('button', { name: 'Invite' }).click();
            await page.getByText(`If ${grace.email} has an account, they are invited as developer: they become a member when they accept.`).waitFor();
            expect(await page.getByRole('row', { name: new RegExp(grace.email) }).getByRole('button', { name: `Withdraw the invitation of ${grace.email}` }).count()).to.equal(1);
            await shot(page, 'project-invited');

            await invited.page.goto(`${base}/dashboard/sign-in`);
            await invited.page.getByLabel('Email').fill(grace.email);
            await invited.page.getByLabel('Password').fill(PASSWORD);
            await invited.page.getByRole('button', { name: 'Sign in' }).click();
            await invited.page.waitForURL(`${base}/dashboard/projects`);
            await invited.page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Invitations' }).click();
            await invited.page.waitForURL(`${base}/dashboard/invitations`);
            await shot(invited.page, 'invitations');
            await invited.page.getByRole('button', { name: 'Accept the invitation to the project Platform team' }).click();
            await invited.page.getByText('You joined the project Platform team as developer.').waitFor();

            await page.reload();
            await page.getByText('No invitation is waiting for an answer.').waitFor();
            await page.getByLabel(`Role of ${grace.email}`).selectOption('admin');
            await page.getByRole('button', { name: `Change role of ${grace.email}` }).click();
            await page.getByText(`${grace.email} now has the role admin.`).waitFor();
            expect(await page.getByLabel(`Role of ${grace.email}`).inputValue()).to.equal('admin');
            await shot(page, 'project');

            const login = await (await fetch(`${base}/v1/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(grace) })).json() as { accessToken: string };
            const listed = await (await fetch(`${base}/v1/projects`, { headers: { authorization: `Bearer ${login.accessToken}` } })).json() as Array<{ name: string; role: string }>;
            expect(listed.find((project) => project.name === 'Platform team')?.role).to.equal('admin');

            await page.getByRole('link', { name: `Remove ${grace.email}` }).click();
            await shot(page, 'member-remove');
            await page.getByRole('button', { name: 'Remove member' }).click();
            await page.getByText('The member is removed from the project.').waitFor();
        }
        finally {
            await invited.context.close();
            await context.close();
        }
    });

    it('shows the docs with navigation and a search whose results lead to their section', { timeout: TIMEOUT }, async () => {
        const { context, page } = await fresh();
        try {
            await page.goto(`${base}/docs`);
            await page.getByRole('heading', { name: 'Hostless documentation', level: 1 }).waitFor();
            await shot(page, 'docs-index');

            const nav = page.getByRole('navigation', { name: 'Documentation' });
            await nav.getByRole('link', { name: 'Authentication' }).click();
            await page.waitForURL(`${base}/docs/authentication`);
            await page.getByRole('heading', { name: 'Authentication', level: 1 }).waitFor();
            expect(await nav.getByRole('link', { name: 'Authentication' }).getAttribute('aria-current')).to.equal('page');
            await shot(page, 'docs-page');

            await page.getByRole('searchbox', { name: 'Search the docs' }).fill('revoke key');
            await page.keyboard.press('Enter');
            await page.waitForURL(/\/docs\/search\?q=revoke\+key$/);
            const results = page.locator('ol.results > li');
            expect(await results.count()).to.be.at.least(3);
            expect(await page.locator('ol.results mark').count()).to.be.at.least(1);
            await shot(page, 'docs-search');

            const first = results.first().getByRole('link');
            const href = (await first.getAttribute('href'))!;
            await first.click();
            await page.waitForURL(`${base}${href}`);
            const anchor = href.split('#')[1];
            if (anchor) {
                expect(await page.locator(`[id="${anchor}"]`).count()).to.equal(1);
            }

            const missing = await page.goto(`${base}/docs/no-such-page`);
            expect(missing!.status()).to.equal(404);
            expect(await page.getByRole('alert').textContent()).to.contain('There is no documentation page at this address.');
            await shot(page, 'not-found');
        }
        finally {
            await context.close();
        }
    });

    it('fits a phone\'s width: no page scrolls sideways', { timeout: TIMEOUT }, async () => {
        const { context, page } = await fresh();
        try {
            await page.setViewportSize({ width: 360, height: 740 });
            const { submit } = await signUp(page, 'Phone');
            await submit();
            await page.waitForURL(`${base}/dashboard/projects`);
            const personal = await page.getByRole('link', { name: 'Personal' }).getAttribute('href');
            for (const path of ['/dashboard/projects', personal!, '/dashboard/invitations', '/dashboard/keys/new', '/docs/authentication', '/docs/search?q=scope']) {
                await page.goto(`${base}${path}`);
                const overflow = await page.evaluate<number>('document.documentElement.scrollWidth - document.documentElement.clientWidth');
                expect(overflow, path).to.equal(0);
            }

            await page.goto(`${base}/dashboard/keys/new`);
            await shot(page, 'key-new-narrow');
        }
        finally {
            await context.close();
        }
    });

    it('can be used with the keyboard alone: the skip link comes first and focus is visible', { timeout: TIMEOUT }, async () => {
        const { context, page } = await fresh();
        try {
            const focused = (property: string) => page.evaluate<string | null>(`document.activeElement && ${property}`);
            await page.goto(`${base}/dashboard/sign-in`);
            await page.keyboard.press('Tab');
            expect(await focused('document.activeElement.textContent')).to.equal('Skip to content');
            expect(await focused('getComputedStyle(document.activeElement).outlineStyle')).to.equal('solid');
            await page.keyboard.press('Enter');
            expect(await focused('document.activeElement.id')).to.equal('main');

            await page.keyboard.press('Tab');                  // past the header's links: the first field of the page
            expect(await focused('document.activeElement.id')).to.equal('email');
            expect(await focused('getComputedStyle(document.activeElement).outlineStyle')).to.equal('solid');
        }
        finally {
            await context.close();
        }
    });
});
