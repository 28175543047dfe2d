import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { caller, register, type TestUser } from '../../helpers/api';
import { fakeService, type FakeService } from '../../helpers/fake-service';
import { authorize, authorizationOf, authorizeParams, decide, pkce, tokenRequest } from '../../helpers/oauth';
import { testServer, type TestServer } from '../../helpers/server';

// A client identified by a Client ID Metadata Document (MCP 2026-07-28) through the API: the document is fetched from
// a fake client host on 127.0.0.1 (allowed by OUTBOUND_ALLOWLIST, plain http outside production), its redirect URIs
// are enforced exactly, the consent screen shows its host, and the client is public at the token endpoint.
const { describe, it, before, after } = exports.lab = Lab.script();
const { expect } = Code;

describe('OAuth clients identified by a metadata document', () => {

    let instance: TestServer;
    let host: FakeService;
    let user: TestUser;
    let clientId: string;
    const redirect = 'http://127.0.0.1:8765/callback';
    const call = caller(() => instance.server);

    before(async () => {
        host = await fakeService([
            { method: 'GET', path: '/client.json', handler: () => ({ client_id: clientId, client_name: 'Doc Assistant', redirect_uris: [redirect], token_endpoint_auth_method: 'none' }) },
            { method: 'GET', path: '/impostor.json', handler: () => ({ client_id: 'https://famous.example/client.json', client_name: 'Famous app', redirect_uris: [redirect] }) }
        ]);
        clientId = `${host.url}/client.json`;
        instance = await testServer({ outbound: { allowlist: ['127.0.0.1'] } });
        user = await register(instance.server, 'doc-user');
    });

    after(async () => {
        await instance?.stop();
        await host?.stop();
    });

    it('runs the whole flow as a public client, the consent screen naming the document\'s host', async () => {
        const code = pkce();
        const id = authorizationOf(await authorize(instance.server, authorizeParams(clientId, code, { redirect_uri: redirect })));
        const described = await call('GET', `/v1/oauth/authorizations/${id}`, user.session);
        expect(described.result.client).to.equal({ id: clientId, name: 'Doc Assistant', kind: 'document', host: new URL(host.url).host });
        expect(described.result).to.include({ redirectHost: '127.0.0.1:8765', loopbackRedirect: true });

        const issued = new URL((await decide(instance.server, user, id, 'allow')).result.redirectTo).searchParams.get('code')!;
        const secretSent = await tokenRequest(instance.server, { grant_type: 'authorization_code', code: issued, redirect_uri: redirect, code_verifier: code.verifier, client_id: clientId, client_secret: 'x' });
        expect(secretSent.result.error).to.equal('invalid_client');
        const tokens = await tokenRequest(instance.server, { grant_type: 'authorization_code', code: issued, redirect_uri: redirect, code_verifier: code.verifier, client_id: clientId });
        expect(tokens.statusCode, tokens.payload).to.equal(200);
        expect((await call('GET', '/v1/projects', `Bearer ${tokens.result.access_token}`)).statusCode).to.equal(200);

        const app = (await call('GET', '/v1/users/me/connected-apps', user.session)).result[0];
        expect(app.client).to.equal({ id: clientId, name: 'Doc Assistant', kind: 'document', host: new URL(host.url).host });

        const refreshed = await tokenRequest(instance.server, { grant_type: 'refresh_token', refresh_token: tokens.result.refresh_token, client_id: clientId });
        expect(refreshed.statusCode).to.equal(200);
        expect(host.requests.filter((request) => request.path === '/client.json')).to.have.length(1);
    });

    it('enforces the document\'s redirect URIs exactly', async () => {
        for (const uri of ['http://127.0.0.1:8765/other', 'http://127.0.0.1:9999/callback', 'https://evil.example/callback']) {
            const res = await authorize(instance.server, authorizeParams(clientId, pkce(), { redirect_uri: uri }));
            expect(res.statusCode, uri).to.equal(400);
            expect(res.headers.location).to.not.exist();
        }
    });

    it('shows a page, never a redirect, for a document that names another client or cannot be fetched', async () => {
        for (const [id, text] of [[`${host.url}/impostor.json`, 'names another client_id'], [`${host.url}/missing.json`, 'status 404'], ['https://127.0.0.1:1/client.json', 'could not be fetched']]) {
            const res = await authorize(instance.server, authorizeParams(id, pkce(), { redirect_uri: redirect }));
            expect(res.statusCode, id).to.equal(400);
            expect(res.headers.location).to.not.exist();
            expect(res.payload, id).to.include(text);
        }
    });

    it('is refused altogether when metadata documents are turned off', async () => {
        const off = await testServer({ outbound: { allowlist: ['127.0.0.1'] }, oauth: { assistant: null, legacy: null, metadataDocuments: false } });
        try {
            const res = await authorize(off.server, authorizeParams(clientId, pkce(), { redirect_uri: redirect }));
            expect(res.statusCode).to.equal(400);
            expect((await off.server.inject('/.well-known/oauth-authorization-server')).result).to.include({ client_id_metadata_document_supported: false });
        }
        finally {
            await off.stop();
        }
    });
});
