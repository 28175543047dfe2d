import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { caller, register, type TestUser } from '../../helpers/api';
import {
    authorize, authorizationOf, authorizeParams, decide, ISSUER, MCP_RESOURCE, pkce, REDIRECT_URI, registerClient, type Client
} from '../../helpers/oauth';
import { testServer, type TestServer } from '../../helpers/server';

// The authorization endpoint and the consent screen's calls (mcp-oauth.md AZ-01..AZ-14): a bad client or redirect URI
// is shown as a page and never redirected to; every other error goes back to the client with `error`, `state` and
// `iss`; a good request waits for the user, whose answer is sent back once.
const { describe, it, before, after } = exports.lab = Lab.script();
const { expect } = Code;

describe('OAuth authorization endpoint', () => {

    let instance: TestServer;
    let user: TestUser;
    let other: TestUser;
    let client: Client;
    const call = caller(() => instance.server);

    before(async () => {
        instance = await testServer();
        user = await register(instance.server, 'connector-owner');
        other = await register(instance.server, 'someone-else');
        client = await registerClient(instance.server, user, [REDIRECT_URI, 'http://127.0.0.1/callback']);
    });

    after(async () => {
        await instance?.stop();
    });

    const errorOf = (location: string) => {
        const url = new URL(location);
        return { base: `${url.origin}${url.pathname}`, error: url.searchParams.get('error'), state: url.searchParams.getAll('state'), iss: url.searchParams.getAll('iss'), code: url.searchParams.get('code') };
    };

    describe('refusals shown as a page, never redirected', () => {

        const page = async (params: Record<string, string | null>, text: RegExp) => {
            const res = await authorize(instance.server, params);
            expect(res.statusCode).to.equal(400);
            expect(res.headers.location).to.not.exist();
            expect(String(res.headers['content-type'])).to.startWith('text/html');
            expect(res.headers['x-frame-options']).to.equal('DENY');
            expect(res.headers['content-security-policy']).to.include('frame-ancestors \'none\'');
            expect(res.payload).to.match(text);
        };

        it('refuses a missing or unknown client_id (AZ-01)', async () => {
            const code = pkce();
            await page(authorizeParams(client.id, code, { client_id: null }), /no application/);
            await page(authorizeParams('svoc_0000000000000000', code), /not registered/);
            await page(authorizeParams('nope', code), /not registered/);
        });

        it('refuses a redirect URI that is not registered exactly (AZ-02)', async () => {
            const code = pkce();
            for (const uri of ['https://evil.example/callback', `${REDIRECT_URI}/`, `${REDIRECT_URI}?x=1`, 'https://connector.example/callback#frag', 'https://CONNECTOR.example/callback', 'http://connector.example/callback']) {
                await page(authorizeParams(client.id, code, { redirect_uri: uri }), /not registered/);
            }

            await page(authorizeParams(client.id, code, { redirect_uri: null }), /missing/);
        });

        it('escapes what it shows', async () => {
            const res = await authorize(instance.server, authorizeParams('<script>alert(1)</script>', pkce()));
            expect(res.statusCode).to.equal(400);
            expect(res.payload).to.not.include('<script>');
        });
    });

    describe('loopback redirect URIs (AZ-03)', () => {

        it('accept any port for a registered loopback URI, and nothing else about it may differ', async () => {
            const code = pkce();
            authorizationOf(await authorize(instance.server, authorizeParams(client.id, code, { redirect_uri: 'http://127.0.0.1:54321/callback' })));
            for (const uri of ['http://127.0.0.1:54321/other', 'http://localhost:54321/callback', 'https://127.0.0.1:54321/callback', 'http://127.0.0.1:54321/callback/../callback']) {
                expect((await authorize(instance.server, authorizeParams(client.id, code, { redirect_uri: uri }))).statusCode, uri).to.equal(400);
            }
        });
    });

    describe('errors sent back to the client with state and iss', () => {

        const redirected = async (params: Record<string, string | null>, error: string) => {
            const res = await authorize(instance.server, params);
            expect(res.statusCode, res.payload).to.equal(302);
            const back = errorOf(res.headers.location as string);
            expect(back).to.include({ base: REDIRECT_URI, error, code: null });
            expect(back.state).to.equal(['st-123']);
            expect(back.iss).to.equal([ISSUER]);
        };

        it('requires PKCE with S256 only (AZ-04, AZ-05)', async () => {
            const code = pkce();
            await redirected(authorizeParams(client.id, code, { code_challenge: null }), 'invalid_request');
            await redirected(authorizeParams(client.id, code, { code_challenge_method: 'plain' }), 'invalid_request');
            await redirected(authorizeParams(client.id, code, { code_challenge_method: null }), 'invalid_request');
            await redirected(authorizeParams(client.id, code, { code_challenge: 'too-short' }), 'invalid_request');
        });

        it('supports response_type=code only (AZ-06)', async () => {
            await redirected(authorizeParams(client.id, pkce(), { response_type: 'token' }), 'unsupported_response_type');
            await redirected(authorizeParams(client.id, pkce(), { response_type: null }), 'invalid_request');
        });

        it('grants read-only scopes only (AZ-07)', async () => {
            for (const scope of ['apps:write', 'projects:read apps:delete', 'test-data:read', 'docs:write', 'admin']) {
                await redirected(authorizeParams(client.id, pkce(), { scope }), 'invalid_scope');
            }
        });

        it('serves the MCP resource only (AZ-08)', async () => {
            for (const resource of ['https://other.example/mcp', ISSUER, `${MCP_RESOURCE}#x`, '/mcp', `${MCP_RESOURCE}/`]) {
                await redirected(authorizeParams(client.id, pkce(), { resource }), 'invalid_target');
            }
        });

        it('refuses a repeated parameter', async () => {
            const code = pkce();
            const res = await instance.server.inject({ url: `/v1/oauth/authorize?${new URLSearchParams(authorizeParams(client.id, code) as Record<string, string>)}&scope=apps:read&scope=logs:read` });
            expect(errorOf(res.headers.location as string).error).to.equal('invalid_request');
        });
    });

    describe('the consent screen\'s calls', () => {

        it('describe the request: client, redirect host, scopes; a missing scope asks for every read-only scope', async () => {
            const id = authorizationOf(await authorize(instance.server, authorizeParams(client.id, pkce(), { resource: MCP_RESOURCE })));
            const res = await call('GET', `/v1/oauth/authorizations/${id}`, user.session);
            expect(res.statusCode).to.equal(200);
            expect(res.headers['cache-control']).to.equal('no-store');
            expect(res.result).to.include({ id, redirectUri: REDIRECT_URI, redirectHost: 'connector.example', loopbackRedirect: false });
            expect(res.result.client).to.equal({ id: client.id, name: 'Test connector', kind: 'registered', host: null });
            expect(res.result.scopes.map((entry: { scope: string }) => entry.scope)).to.include(['projects:read', 'apps:read', 'logs:read']);
            expect(res.result.scopes.every((entry: { scope: string }) => entry.scope.endsWith(':read'))).to.be.true();
        });

        it('allow: the code, state and iss once each, state byte for byte (AZ-10)', async () => {
            const state = 'a b+c/d=é&';
            const id = authorizationOf(await authorize(instance.server, authorizeParams(client.id, pkce(), { state, scope: 'projects:read apps:read' })));
            const res = await decide(instance.server, user, id, 'allow');
            expect(res.statusCode).to.equal(200);
            const back = new URL(res.result.redirectTo);
            expect(`${back.origin}${back.pathname}`).to.equal(REDIRECT_URI);
            expect(back.searchParams.getAll('code')).to.have.length(1);
            expect(back.searchParams.get('code')).to.match(/^svoa_[0-9A-Za-z]{43}$/);
            expect(back.searchParams.getAll('state')).to.equal([state]);
            expect(back.searchParams.getAll('iss')).to.equal([ISSUER]);
        });

        it('deny: access_denied with state and iss (AZ-11)', async () => {
            const id = authorizationOf(await authorize(instance.server, authorizeParams(client.id, pkce())));
            const res = await decide(instance.server, user, id, 'deny');
            const back = errorOf(res.result.redirectTo);
            expect(back).to.include({ error: 'access_denied', code: null });
            expect(back.state).to.equal(['st-123']);
            expect(back.iss).to.equal([ISSUER]);
        });

        it('answers once: a replayed answer issues nothing (AZ-12)', async () => {
            const id = authorizationOf(await authorize(instance.server, authorizeParams(client.id, pkce())));
            expect((await decide(instance.server, user, id, 'allow')).statusCode).to.equal(200);
            const again = await decide(instance.server, user, id, 'allow');
            expect(again.statusCode).to.equal(409);
            expect(again.result.message).to.include('already been answered');
            expect((await call('GET', `/v1/oauth/authorizations/${id}`, user.session)).statusCode).to.equal(409);
        });

        it('expires: ten minutes to answer', async () => {
            const id = authorizationOf(await authorize(instance.server, authorizeParams(client.id, pkce())));
            await instance.server.app.knex('oauth_authorizations').where({ id }).update({ expires_at: new Date(Date.now() - 1000).toISOString() });
            expect((await decide(instance.server, user, id, 'allow')).statusCode).to.equal(404);
        });

        it('lets only the owner of a registered client connect it', async () => {
            const id = authorizationOf(await authorize(instance.server, authorizeParams(client.id, pkce())));
            const res = await decide(instance.server, other, id, 'allow');
            expect(res.statusCode).to.equal(403);
            expect(res.result.message).to.include('belongs to another account');
            expect((await call('GET', `/v1/oauth/authorizations/${id}`, other.session)).statusCode).to.equal(403);
        });

        it('pins only to projects the user is a member of', async () => {
            const id = authorizationOf(await authorize(instance.server, authorizeParams(client.id, pkce())));
            const res = await decide(instance.server, user, id, 'allow', [other.projectId]);
            expect(res.statusCode).to.equal(400);
            expect(res.result.message).to.equal('"projects" may only name projects you are a member of');
            expect((await decide(instance.server, user, id, 'allow', [])).statusCode).to.equal(400);
            expect((await decide(instance.server, user, id, 'allow', [user.projectId])).statusCode).to.equal(200);
        });

        it('take a session only', async () => {
            const id = authorizationOf(await authorize(instance.server, authorizeParams(client.id, pkce())));
            expect((await call('GET', `/v1/oauth/authorizations/${id}`)).statusCode).to.equal(401);
        });
    });

    describe('the assistant client (redirect URIs by prefix, AZ-03b)', () => {

        const assistant = (redirect: string) => authorize(instance.server, { ...authorizeParams('chatgpt', pkce()), redirect_uri: redirect });

        it('accepts callback paths under its prefixes', async () => {
            for (const uri of ['https://chatgpt.com/connector_platform_oauth_redirect', 'https://chatgpt.com/aip/g-123/oauth/callback', 'https://chatgpt.com/connector_platform_oauth_redirect/abc']) {
                authorizationOf(await assistant(uri));
            }
        });

        it('refuses every way around the prefix, without redirecting', async () => {
            for (const uri of [
                'https://chatgpt.com/aip/../../evil', 'https://chatgpt.com/aip/%2e%2e/evil', 'https://chatgpt.com/aip/x%2Fy', 'https://chatgpt.com/aip\\evil',
                'https://chatgpt.com/connector_platform_oauth_redirectevil', 'https://chatgpt.com.evil.com/aip/x', 'https://user@chatgpt.com/aip/x',
                'https://chatgpt.com/aip/x#frag', 'http://chatgpt.com/aip/x', 'https://chatgpt.com:8443/aip/x', 'https://evil.example/aip/x', 'https://chatgpt.com/aip'
            ]) {
                const res = await assistant(uri);
                expect(res.statusCode, uri).to.equal(400);
                expect(res.headers.location, uri).to.not.exist();
            }
        });
    });

    describe('the legacy shared client', () => {

        it('exists only when OAUTH_CLAUDE_CLIENT_SECRET is set', async () => {
            const params = { ...authorizeParams('claude', pkce()), redirect_uri: 'https://claude.ai/api/mcp/auth_callback' };
            expect((await authorize(instance.server, params)).statusCode).to.equal(400);

            const legacy = await testServer({ oauth: { assistant: null, legacy: { id: 'claude', name: 'Claude', secret: 'l'.repeat(40), redirectUris: ['https://claude.ai/api/mcp/auth_callback'] }, metadataDocuments: false } });
            try {
                authorizationOf(await authorize(legacy.server, params));
                expect((await authorize(legacy.server, authorizeParams('chatgpt', pkce()))).statusCode, 'no assistant configured').to.equal(400);
            }
            finally {
                await legacy.stop();
            }
        });
    });
});
