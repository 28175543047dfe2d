import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { caller, register, type TestUser } from '../../helpers/api';
import { dump } from '../../helpers/db';
import { basic, connectApp, registerClient, tokenRequest } from '../../helpers/oauth';
import { testServer, type TestServer } from '../../helpers/server';

// The user's OAuth clients and connected AI apps (session routes): a client secret shown once and stored as a digest,
// redirect URIs checked when registered, a deleted client disconnecting its apps, and every change in the user's
// security trail.
const { describe, it, before, after } = exports.lab = Lab.script();
const { expect } = Code;

describe('OAuth clients and connected apps', () => {

    let instance: TestServer;
    let user: TestUser;
    let other: TestUser;
    const call = caller(() => instance.server);
    const clients = '/v1/users/me/oauth-clients';

    before(async () => {
        instance = await testServer();
        user = await register(instance.server, 'clients');
        other = await register(instance.server, 'other');
    });

    after(async () => {
        await instance?.stop();
    });

    const trail = async (who: TestUser) => (await call('GET', '/v1/users/me/security-events', who.session)).result as Array<{ type: string; credentialId: string; data: Record<string, unknown> }>;

    it('registers a client: an svoc_ id, a secret shown once and stored as its digest', async () => {
        const res = await call('POST', clients, user.session, { name: 'Research bot', redirectUris: ['https://bot.example/callback', 'http://localhost/cb'] });
        expect(res.statusCode, res.payload).to.equal(201);
        expect(res.headers['cache-control']).to.equal('no-store');
        expect(res.result.client).to.include({ name: 'Research bot', redirectUris: ['https://bot.example/callback', 'http://localhost/cb'] });
        expect(res.result.client.id).to.match(/^svoc_[0-9A-Za-z]{16}$/);
        expect(res.result.clientSecret).to.match(/^svos_[0-9A-Za-z]{43}$/);

        const listed = await call('GET', clients, user.session);
        expect(listed.result).to.equal([res.result.client]);
        expect(listed.payload).to.not.include(res.result.clientSecret);
        expect(JSON.stringify(await dump(instance.server.app.knex))).to.not.include(res.result.clientSecret);
        expect((await call('GET', clients, other.session)).result).to.equal([]);

        const event = (await trail(user)).find((entry) => entry.type === 'oauth_client.created')!;
        expect(event.credentialId).to.equal(res.result.client.id);
        expect(JSON.stringify(event)).to.not.include(res.result.clientSecret);
    });

    it('refuses redirect URIs that are not https or loopback http, or carry a fragment or user info', async () => {
        for (const [uri, message] of [
            ['http://example.com/cb', 'must use https'],
            ['https://a.example/cb#x', 'must not contain a fragment'],
            ['https://user:pw@a.example/cb', 'must not contain a user name'],
            ['https://A.example/cb', 'canonical form'],
            ['https://a.example/x/../cb', 'canonical form'],
            ['not a url', 'canonical form'],
            ['javascript:alert(1)', 'must use https']
        ]) {
            const res = await call('POST', clients, user.session, { name: 'bad', redirectUris: [uri] });
            expect(res.statusCode, uri).to.equal(400);
            expect(res.result.message, uri).to.include(message);
        }

        expect((await call('POST', clients, user.session, { name: 'none', redirectUris: [] })).statusCode).to.equal(400);
        expect((await call('POST', clients, user.session, { name: 'dup', redirectUris: ['https://a.example/cb', 'https://a.example/cb'] })).result.message).to.equal('"redirectUris" must not contain duplicates');
    });

    it('deletes a client: its apps are refused from their next request, and only its owner may', async () => {
        const client = await registerClient(instance.server, user);
        const connection = await connectApp(instance.server, user, { client });
        expect((await call('DELETE', `${clients}/${client.id}`, other.session)).statusCode).to.equal(404);
        const removed = await call('DELETE', `${clients}/${client.id}`, user.session);
        expect(removed.statusCode).to.equal(200);
        expect(removed.result.id).to.equal(client.id);
        expect((await call('GET', '/v1/projects', `Bearer ${connection.accessToken}`)).statusCode).to.equal(401);
        const refresh = await tokenRequest(instance.server, { grant_type: 'refresh_token', refresh_token: connection.refreshToken }, basic(client.id, client.secret));
        expect(refresh.result.error).to.equal('invalid_client');
        expect((await call('DELETE', `${clients}/${client.id}`, user.session)).statusCode).to.equal(404);
        const events = await trail(user);
        expect(events.find((entry) => entry.type === 'oauth_grant.revoked' && entry.credentialId === connection.grantId)!.data).to.include({ reason: 'client_deleted' });
        expect(events.some((entry) => entry.type === 'oauth_client.deleted' && entry.credentialId === client.id)).to.be.true();
    });

    it('lists connected apps with their scopes and projects, and disconnects one at the next request', async () => {
        const connection = await connectApp(instance.server, user, { scope: 'projects:read apps:read' });
        const listed = await call('GET', '/v1/users/me/connected-apps', user.session);
        const app = listed.result.find((entry: { id: string }) => entry.id === connection.grantId);
        expect(app).to.include({ scopes: ['projects:read', 'apps:read'], projects: null, lastUsedAt: null });
        expect(app.client).to.equal({ id: connection.client.id, name: 'Test connector', kind: 'registered', host: null });
        expect((await call('GET', '/v1/users/me/connected-apps', other.session)).result).to.equal([]);

        expect((await call('DELETE', `/v1/users/me/connected-apps/${connection.grantId}`, other.session)).statusCode).to.equal(404);
        const revoked = await call('DELETE', `/v1/users/me/connected-apps/${connection.grantId}`, user.session);
        expect(revoked.statusCode).to.equal(200);
        expect(revoked.result.id).to.equal(connection.grantId);
        expect((await call('GET', '/v1/projects', `Bearer ${connection.accessToken}`)).statusCode).to.equal(401);
        expect((await call('GET', '/v1/users/me/connected-apps', user.session)).result.map((entry: { id: string }) => entry.id)).to.not.include(connection.grantId);
        expect((await call('DELETE', `/v1/users/me/connected-apps/${connection.grantId}`, user.session)).statusCode).to.equal(404);

        const events = await trail(user);
        expect(events.find((entry) => entry.type === 'oauth_grant.created' && entry.credentialId === connection.grantId)!.data).to.include({ client: 'Test connector', scopes: ['projects:read', 'apps:read'], projects: 'all' });
        expect(events.find((entry) => entry.type === 'oauth_grant.revoked' && entry.credentialId === connection.grantId)!.data).to.include({ reason: 'user' });
    });

    it('leaves no code, secret or token in clear in the database or the log', async () => {
        const connection = await connectApp(instance.server, user);
        const refreshed = await tokenRequest(instance.server, { grant_type: 'refresh_token', refresh_token: connection.refreshToken }, basic(connection.client.id, connection.client.secret));
        const database = JSON.stringify(await dump(instance.server.app.knex));
        const log = instance.logs.join('');
        for (const secret of [connection.client.secret, connection.code, connection.refreshToken, connection.accessToken, refreshed.result.refresh_token, refreshed.result.access_token, connection.verifier]) {
            expect(database.includes(secret), secret.slice(0, 8)).to.be.false();
            expect(log.includes(secret), secret.slice(0, 8)).to.be.false();
        }
    });
});
