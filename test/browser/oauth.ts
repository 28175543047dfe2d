import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';
import * as oauth from 'oauth4webapi';
import type { Page } from 'playwright-core';

import { freePort } from '../../lib/free-port';
import { PASSWORD, register, type TestUser } from '../helpers/api';
import { BROWSER_TIMEOUT, executablePath, launchChromium, screenshot, type LaunchedBrowser } from '../helpers/browser';
import { fakeService, type FakeService } from '../helpers/fake-service';
import { call, connect, LIST_TOOLS, mcpInstance, post, type McpInstance } from '../helpers/mcp';
import { registerClient } from '../helpers/oauth';

// The whole connector flow as an MCP client lives it, with oauth4webapi as a strict OAuth client and the user in
// headless Chromium: discovery from the MCP server's 401, authorize with PKCE, sign-in and consent in the browser,
// code exchange, a tool call over real HTTP with the SDK client, refresh with rotation, disconnecting in the
// connected-apps page, and the next MCP call refused. Once for a registered client (svoc_, client_secret_basic), once
// for a client identified by a metadata document that a local test host serves over plain http (allowed outside
// production for loopback addresses in OUTBOUND_ALLOWLIST).
const { describe, it, before, after } = exports.lab = Lab.script();
const { expect } = Code;


describe('connecting an MCP client through OAuth, in a browser', { skip: !executablePath }, () => {

    let instance: McpInstance;
    let chromium: LaunchedBrowser;
    let app: FakeService;                                       // the client's side: its callback and its metadata document
    let user: TestUser;
    let mcpUrl: string;
    let issuer: string;
    const insecure = { [oauth.allowInsecureRequests]: true };

    before(async () => {
        const [apiPort, mcpPort] = [await freePort(), await freePort()];
        issuer = `http://127.0.0.1:${apiPort}`;
        app = await fakeService([
            { method: 'GET', path: '/callback', handler: () => 'You can close this window.' },
            { method: 'GET', path: '/oauth/client.json', handler: () => ({ client_id: `${app.url}/oauth/client.json`, client_name: 'Metadata Assistant', redirect_uris: [`${app.url}/callback`], token_endpoint_auth_method: 'none' }) }
        ]);
        instance = await mcpInstance({
            port: apiPort, publicUrl: issuer, apiBaseUrl: issuer, mcpPort, mcpPublicUrl: `http://127.0.0.1:${mcpPort}`, outbound: { allowlist: ['127.0.0.1'] }
        });
        mcpUrl = `http://127.0.0.1:${mcpPort}/mcp`;
        user = await register(instance.api.server, 'connector-user');
        chromium = await launchChromium();
    });

    after(async () => {
        await chromium?.close();
        await instance?.stop();
        await app?.stop();
    });

    /** What an MCP client does first: call without a token, follow the challenge to the metadata, then to the issuer. */
    const discover = async (): Promise<oauth.AuthorizationServer> => {
        const challenge = await post(mcpUrl, LIST_TOOLS);
        expect(challenge.status).to.equal(401);
        const metadataUrl = /resource_metadata="([^"]+)"/.exec(challenge.headers.get('www-authenticate') ?? '')?.[1];
        expect(metadataUrl).to.equal(`${new URL(mcpUrl).origin}/.well-known/oauth-protected-resource`);
        const resource = await oauth.processResourceDiscoveryResponse(new URL(mcpUrl), await oauth.resourceDiscoveryRequest(new URL(mcpUrl), insecure));
        expect(resource.authorization_servers).to.equal([issuer]);
        const server = new URL(resource.authorization_servers![0]);
        return oauth.processDiscoveryResponse(server, await oauth.discoveryRequest(server, { ...insecure, algorithm: 'oauth2' }));
    };

    /** The authorization URL a client sends the browser to, with a fresh PKCE verifier and state, back to the test host. */
    const authorizationRequest = async (as: oauth.AuthorizationServer, client: oauth.Client, extra: Record<string, string> = {}) => {
        const verifier = oauth.generateRandomCodeVerifier();
        const state = oauth.generateRandomState();
        const url = new URL(as.authorization_endpoint!);
        url.search = new URLSearchParams({
            response_type: 'code', client_id: client.client_id, redirect_uri: `${app.url}/callback`, state,
            code_challenge: await oauth.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256', ...extra
        }).toString();
        return { url, verifier, state };
    };

    /** Opens the authorization URL; signs in when asked; answers the consent screen; returns the callback URL. */
    const consentInBrowser = async (page: Page, url: URL, choose: (page: Page) => Promise<void>, shot: string) => {
        await page.goto(url.href);
        if (new URL(page.url()).pathname === '/dashboard/sign-in') {
            await page.getByLabel('Email').fill(user.email);
            await page.getByLabel('Password').fill(PASSWORD);
            await page.getByRole('button', { name: 'Sign in' }).click();
        }

        await page.getByRole('heading', { level: 1 }).filter({ hasText: 'to your Hostless account?' }).waitFor();
        await choose(page);
        await screenshot(page, shot);
        await page.getByRole('button', { name: 'Allow' }).click();
        await page.waitForURL((next) => next.pathname === '/callback');
        return new URL(page.url());
    };

    /** A tool call over real HTTP with the SDK client and the access token. */
    const projectsThroughMcp = async (accessToken: string): Promise<string[]> => {
        const client = await connect(mcpUrl, { authorization: `Bearer ${accessToken}` });
        try {
            const result = await call(client, 'projects_list');
            expect(result.isError, JSON.stringify(result.content)).to.not.be.true();
            return result.structuredContent.items.map((project: { id: string }) => project.id);
        }
        finally {
            await client.close();
        }
    };

    const disconnectInBrowser = async (page: Page, appName: string) => {
        await page.goto(`${issuer}/dashboard/account/connected-apps`);
        await page.getByRole('row', { name: new RegExp(appName) }).waitFor();
        await screenshot(page, 'connected-apps');
        await page.getByRole('button', { name: `Disconnect ${appName}` }).click();
        await page.getByRole('status').filter({ hasText: `${appName} is disconnected` }).waitFor();
    };

    const refusedByMcp = async (accessToken: string) => {
        await expect(projectsThroughMcp(accessToken)).to.reject(/Streamable HTTP error/);
        const res = await post(mcpUrl, LIST_TOOLS, { authorization: `Bearer ${accessToken}` });
        expect(res.status).to.equal(401);
        expect(res.headers.get('www-authenticate')).to.include('error="invalid_token", error_description="The app\'s access has been revoked"');
    };

    it('connects a registered client, pinned to one project: consent, tool call, refresh, disconnect, refused', { timeout: BROWSER_TIMEOUT }, async () => {
        await instance.api.server.inject({ method: 'POST', url: '/v1/projects', headers: { authorization: user.session }, payload: { name: 'Not for the connector' } });
        const personal = (await instance.api.server.inject({ url: `/v1/projects/${user.projectId}`, headers: { authorization: user.session } })).result as { name: string };
        const registered = await registerClient(instance.api.server, user, ['http://127.0.0.1/callback'], 'Desk Connector');
        const as = await discover();
        const client: oauth.Client = { client_id: registered.id };
        const auth = oauth.ClientSecretBasic(registered.secret);
        const redirectUri = `${app.url}/callback`;                  // the registered loopback URI, on this run's port
        const { url, verifier, state } = await authorizationRequest(as, client, { scope: 'projects:read apps:read', resource: mcpUrl });

        const context = await chromium.browser.newContext({ viewport: { width: 1280, height: 900 } });
        try {
            const page = await context.newPage();
            const callback = await consentInBrowser(page, url, async (consent) => {
                expect(await consent.getByText('Sends you back to').count()).to.equal(1);
                await consent.getByLabel('Only these projects:').check();
                await consent.getByLabel(personal.name, { exact: true }).check();
            }, 'consent-registered');

            const params = oauth.validateAuthResponse(as, client, callback, state);
            const tokens = await oauth.processAuthorizationCodeResponse(as, client,
                await oauth.authorizationCodeGrantRequest(as, client, auth, params, redirectUri, verifier, { ...insecure, additionalParameters: { resource: mcpUrl } }));
            expect(tokens.token_type).to.equal('bearer');
            expect(tokens.scope).to.equal('projects:read apps:read');
            const claims = await oauth.validateJwtAccessToken(as, new Request(mcpUrl, { headers: { authorization: `Bearer ${tokens.access_token}` } }), mcpUrl, insecure);
            expect(claims.client_id).to.equal(registered.id);

            expect(await projectsThroughMcp(tokens.access_token)).to.equal([user.projectId]);

            const refreshed = await oauth.processRefreshTokenResponse(as, client, await oauth.refreshTokenGrantRequest(as, client, auth, tokens.refresh_token!, insecure));
            expect(refreshed.refresh_token).to.not.equal(tokens.refresh_token);
            expect(await projectsThroughMcp(refreshed.access_token)).to.equal([user.projectId]);

            await disconnectInBrowser(page, 'Desk Connector');
            await refusedByMcp(refreshed.access_token);
            const spent = await oauth.refreshTokenGrantRequest(as, client, auth, refreshed.refresh_token!, insecure);
            const refusal = await expect(oauth.processRefreshTokenResponse(as, client, spent)).to.reject();
            expect((refusal as oauth.ResponseBodyError).error).to.equal('invalid_grant');
        }
        finally {
            await context.close();
        }
    });

    it('connects a client identified by a metadata document, shown with its host', { timeout: BROWSER_TIMEOUT }, async () => {
        const as = await discover();
        expect(as.client_id_metadata_document_supported === true).to.be.true();
        const client: oauth.Client = { client_id: `${app.url}/oauth/client.json` };
        const redirectUri = `${app.url}/callback`;
        const { url, verifier, state } = await authorizationRequest(as, client);

        const context = await chromium.browser.newContext({ viewport: { width: 1280, height: 900 } });
        try {
            const page = await context.newPage();
            const callback = await consentInBrowser(page, url, async (consent) => {
                expect(await consent.getByText(`identified by ${new URL(app.url).host}`).count()).to.equal(1);
            }, 'consent-metadata-document');

            const params = oauth.validateAuthResponse(as, client, callback, state);
            const tokens = await oauth.processAuthorizationCodeResponse(as, client,
                await oauth.authorizationCodeGrantRequest(as, client, oauth.None(), params, redirectUri, verifier, insecure));
            const all = await projectsThroughMcp(tokens.access_token);
            expect(all).to.include(user.projectId);
            expect(all.length, 'every project the user reaches').to.be.at.least(2);

            const refreshed = await oauth.processRefreshTokenResponse(as, client, await oauth.refreshTokenGrantRequest(as, client, oauth.None(), tokens.refresh_token!, insecure));
            expect(await projectsThroughMcp(refreshed.access_token)).to.equal(all);

            await disconnectInBrowser(page, 'Metadata Assistant');
            await refusedByMcp(refreshed.access_token);
        }
        finally {
            await context.close();
        }
    });
});
