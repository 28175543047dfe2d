import * as Crypto from 'node:crypto';

import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';
import * as Jose from 'jose';

import { gateMessages } from '../../../plugins/auth/gate';
import { caller, register, type TestUser } from '../../helpers/api';
import { createApp } from '../../helpers/apps';
import { basic, connectApp, forge, ISSUER, MCP_RESOURCE, tokenRequest, type Connection } from '../../helpers/oauth';
import { testServer, type TestServer } from '../../helpers/server';

// OAuth access tokens at the API (api-contract.md sections 2, 4 and 10): verified on every request (signature from
// the server's keys, RS256 only, `typ: at+jwt`, issuer, the API's own URL in `aud`, expiry), their grant read on
// every request, acting within their read-only scopes, never on session-only routes, never seeing secret values,
// and only in the projects the grant is pinned to, where everything else is the 404 of a missing project.
const { describe, it, before, after } = exports.lab = Lab.script();
const { expect } = Code;

describe('OAuth access tokens at the API', () => {

    let instance: TestServer;
    let user: TestUser;
    let connection: Connection;
    const call = caller(() => instance.server);
    const bearer = (token: string) => `Bearer ${token}`;

    before(async () => {
        instance = await testServer();
        user = await register(instance.server, 'oauth-reader');
        connection = await connectApp(instance.server, user);
    });

    after(async () => {
        await instance?.stop();
    });

    it('read within their scopes and introspect as oauth', async () => {
        expect((await call('GET', '/v1/projects', bearer(connection.accessToken))).statusCode).to.equal(200);
        const introspected = await call('GET', '/v1/auth/introspect', bearer(connection.accessToken));
        expect(introspected.result).to.include({ userId: user.id, via: 'oauth', credentialId: connection.grantId, isAdmin: false });
        expect(introspected.result.scopes).to.include(['projects:read', 'apps:read']);
    });

    describe('refused with 401 when verification fails', () => {

        const refused = async (token: string, label: string) => {
            const res = await call('GET', '/v1/projects', bearer(token));
            expect(res.statusCode, label).to.equal(401);
            expect(res.result.message, label).to.equal('Invalid or expired access token');
        };

        it('another audience, another issuer, expired, not yet valid', async () => {
            await refused(await forge(instance.server, connection.accessToken, { claims: { aud: MCP_RESOURCE } }), 'the MCP audience only');
            await refused(await forge(instance.server, connection.accessToken, { claims: { aud: 'https://other.example' } }), 'another audience');
            await refused(await forge(instance.server, connection.accessToken, { claims: { iss: 'https://issuer.example' } }), 'another issuer');
            const now = Math.floor(Date.now() / 1000);
            await refused(await forge(instance.server, connection.accessToken, { claims: { iat: now - 700, exp: now - 100 } }), 'expired');
            await refused(await forge(instance.server, connection.accessToken, { claims: { nbf: now + 600 } }), 'not yet valid');
        });

        it('another typ, missing claims', async () => {
            await refused(await forge(instance.server, connection.accessToken, { header: { typ: 'JWT' } }), 'typ JWT');
            await refused(await forge(instance.server, connection.accessToken, { claims: { grant_id: undefined } }), 'no grant_id');
            await refused(await forge(instance.server, connection.accessToken, { claims: { client_id: undefined } }), 'no client_id');
        });

        it('another algorithm: none, and HS256 keyed with the public key', async () => {
            const header = Jose.decodeProtectedHeader(connection.accessToken);
            const payload = Jose.decodeJwt(connection.accessToken);
            const none = `${Jose.base64url.encode(JSON.stringify({ alg: 'none', typ: 'at+jwt', kid: header.kid }))}.${Jose.base64url.encode(JSON.stringify(payload))}.`;
            await refused(none, 'alg none');
            const jwk = (await call('GET', '/.well-known/jwks.json')).result.keys.find((key: { kid: string }) => key.kid === header.kid);
            const pem = Crypto.createPublicKey({ key: jwk, format: 'jwk' }).export({ type: 'spki', format: 'pem' });
            const hs256 = await new Jose.SignJWT(payload).setProtectedHeader({ alg: 'HS256', typ: 'at+jwt', kid: header.kid! }).sign(Buffer.from(pem));
            await refused(hs256, 'HS256 with the public key');
        });

        it('another key: unknown kid, or a foreign key under our kid', async () => {
            const { privateKey } = await Jose.generateKeyPair('RS256');
            const payload = Jose.decodeJwt(connection.accessToken);
            const kid = Jose.decodeProtectedHeader(connection.accessToken).kid!;
            await refused(await new Jose.SignJWT(payload).setProtectedHeader({ alg: 'RS256', typ: 'at+jwt', kid: 'unknown-kid' }).sign(privateKey), 'unknown kid');
            await refused(await new Jose.SignJWT(payload).setProtectedHeader({ alg: 'RS256', typ: 'at+jwt', kid }).sign(privateKey), 'our kid, another key');
        });

        it('a signature that does not match, and a token in the query string only', async () => {
            const [head, body, signature] = connection.accessToken.split('.');
            await refused(`${head}.${body}.${signature.slice(0, -4)}AAAA`, 'tampered signature');
            expect((await call('GET', `/v1/projects?access_token=${connection.accessToken}`)).statusCode).to.equal(401);
        });
    });

    describe('held to their grant on every request', () => {

        it('refuses a token whose user or client does not match its grant', async () => {
            const other = await register(instance.server, 'not-the-grantee');
            for (const claims of [{ sub: other.id }, { client_id: 'svoc_0000000000000000' }, { grant_id: 'ogr_0000000000000000' }]) {
                const res = await call('GET', '/v1/projects', bearer(await forge(instance.server, connection.accessToken, { claims })));
                expect(res.statusCode, JSON.stringify(claims)).to.equal(401);
            }
        });

        it('refuses a disabled user\'s token with 401, and takes it back on enabling', async () => {
            const soon = await register(instance.server, 'to-disable');
            const theirs = await connectApp(instance.server, soon);
            await instance.server.app.knex('users').where({ id: soon.id }).update({ disabled_at: new Date().toISOString() });
            const res = await call('GET', '/v1/projects', bearer(theirs.accessToken));
            expect(res.statusCode).to.equal(401);
            expect(res.result.message).to.equal('Account is disabled');
        });

        it('records when the grant was last used, at most once a minute', async () => {
            const fresh = await connectApp(instance.server, user);
            await call('GET', '/v1/projects', bearer(fresh.accessToken));
            await new Promise((resolve) => setTimeout(resolve, 50));
            const row = await instance.server.app.knex('oauth_grants').where({ id: fresh.grantId }).first();
            expect(row.last_used_at).to.be.a.string();
        });
    });

    describe('what they may do', () => {

        it('never a write: the scope gate answers 403 before the body is read', async () => {
            const res = await call('POST', '/v1/apps', bearer(connection.accessToken), { name: 'nope', projectId: user.projectId });
            expect(res.statusCode).to.equal(403);
            expect(res.result.message).to.equal('Missing required scope(s): apps:write');
        });

        it('never a session-only route', async () => {
            for (const [method, url] of [['GET', '/v1/users/me'], ['POST', '/v1/users/me/api-keys'], ['GET', '/v1/users/me/connected-apps'], ['POST', '/v1/projects']] as const) {
                const res = await call(method, url, bearer(connection.accessToken), method === 'POST' ? {} : undefined);
                expect(res.statusCode, url).to.equal(403);
                expect(res.result.message).to.equal(gateMessages.sessionOnly);
            }
        });

        it('never a secret value: environment variables read as value null, set true', async () => {
            const app = await createApp(instance.server, user, { projectId: user.projectId, environmentVariables: { DATABASE_URL: 'postgres://u:hunter2pass@db/app' } });
            const res = await call('GET', `/v1/apps/${app.name}/environment-variables`, bearer(connection.accessToken));
            expect(res.statusCode).to.equal(200);
            expect(res.result).to.have.length(1);
            expect(res.result[0]).to.include({ name: 'DATABASE_URL', value: null, set: true });
            expect(res.payload).to.not.include('hunter2pass');
        });
    });

    describe('a grant pinned to projects', () => {

        let team: string;
        let teamApp: string;
        let personalApp: string;
        let pinned: Connection;

        before(async () => {
            team = (await call('POST', '/v1/projects', user.session, { name: 'Pinned team' })).result.id;
            teamApp = (await createApp(instance.server, user, { projectId: team })).name;
            personalApp = (await createApp(instance.server, user, { projectId: user.projectId })).name;
            pinned = await connectApp(instance.server, user, { projects: [team] });
        });

        const sameAsMissing = async (url: string, missingUrl: string) => {
            const reached = await call('GET', url, bearer(pinned.accessToken));
            const missing = await call('GET', missingUrl, bearer(pinned.accessToken));
            expect(reached.statusCode, url).to.equal(404);
            expect(reached.result, url).to.equal(missing.result);
        };

        it('lists its projects and their apps only', async () => {
            expect((await call('GET', '/v1/projects', bearer(pinned.accessToken))).result.map((project: { id: string }) => project.id)).to.equal([team]);
            expect((await call('GET', '/v1/apps', bearer(pinned.accessToken))).result.map((app: { name: string }) => app.name)).to.equal([teamApp]);
            expect((await call('GET', `/v1/projects/${team}/apps`, bearer(pinned.accessToken))).result.map((app: { name: string }) => app.name)).to.equal([teamApp]);
            expect((await call('GET', '/v1/apps', bearer(connection.accessToken))).result.map((app: { name: string }) => app.name), 'an unpinned grant sees both').to.include([teamApp, personalApp]);
        });

        it('gets the same 404 for every other project as for a missing one', async () => {
            const missingProject = 'prj_0000000000000000';
            await sameAsMissing(`/v1/projects/${user.projectId}`, `/v1/projects/${missingProject}`);
            await sameAsMissing(`/v1/projects/${user.projectId}/apps`, `/v1/projects/${missingProject}/apps`);
            await sameAsMissing(`/v1/apps?projectId=${user.projectId}`, `/v1/apps?projectId=${missingProject}`);
            await sameAsMissing(`/v1/projects?projectId=${user.projectId}`, `/v1/projects?projectId=${missingProject}`);
        });

        it('gets the same 404 for every app of another project as for a missing app', async () => {
            await sameAsMissing(`/v1/apps/${personalApp}`, '/v1/apps/missing-app-name');
            await sameAsMissing(`/v1/apps/${personalApp}/environment-variables`, '/v1/apps/missing-app-name/environment-variables');
            await sameAsMissing(`/v1/apps/${personalApp}/deployments`, '/v1/apps/missing-app-name/deployments');
            expect((await call('GET', `/v1/apps/${teamApp}`, bearer(pinned.accessToken))).statusCode).to.equal(200);
        });

        it('holds for a refreshed token too, and the connected apps page names the projects', async () => {
            const refreshed = await tokenRequest(instance.server, { grant_type: 'refresh_token', refresh_token: pinned.refreshToken }, basic(pinned.client.id, pinned.client.secret));
            expect((await call('GET', '/v1/projects', bearer(refreshed.result.access_token))).result.map((project: { id: string }) => project.id)).to.equal([team]);
            const apps = await call('GET', '/v1/users/me/connected-apps', user.session);
            const listed = apps.result.find((app: { id: string }) => app.id === pinned.grantId);
            expect(listed.projects).to.equal([{ id: team, name: 'Pinned team' }]);
            expect(apps.result.find((app: { id: string }) => app.id === connection.grantId).projects).to.be.null();
        });
    });

    it('names the API and the MCP server in the audience, the issuer being the API', () => {
        const claims = Jose.decodeJwt(connection.accessToken);
        expect(claims.aud).to.equal([MCP_RESOURCE, ISSUER]);
        expect(claims.iss).to.equal(ISSUER);
    });
});
