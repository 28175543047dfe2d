import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';
import * as Jose from 'jose';

import { caller, register, type TestUser } from '../../helpers/api';
import {
    authorize, authorizationOf, authorizeParams, basic, connectApp, decide, ISSUER, MCP_RESOURCE, pkce, REDIRECT_URI, registerClient, tokenRequest, type Client
} from '../../helpers/oauth';
import { testServer, type TestServer } from '../../helpers/server';

// The token endpoint (mcp-oauth.md TK-01..TK-10), refresh rotation (RF-01..RF-04) and revocation (RV-01..RV-05):
// errors in the protocol's shape, codes once, refresh tokens once, and a token presented twice revokes its grant.
const { describe, it, before, after } = exports.lab = Lab.script();
const { expect } = Code;

describe('OAuth token endpoint', () => {

    let instance: TestServer;
    let user: TestUser;
    let client: Client;
    const call = caller(() => instance.server);

    before(async () => {
        instance = await testServer();
        user = await register(instance.server, 'token-user');
        client = await registerClient(instance.server, user);
    });

    after(async () => {
        await instance?.stop();
    });

    /** A fresh code for the client, and its verifier. */
    const issueCode = async (forClient = client, extra: Record<string, string | null> = {}) => {
        const code = pkce();
        const id = authorizationOf(await authorize(instance.server, authorizeParams(forClient.id, code, extra)));
        const answer = await decide(instance.server, user, id, 'allow');
        return { code: new URL(answer.result.redirectTo).searchParams.get('code')!, verifier: code.verifier };
    };

    /** null: no Authorization header (the client authenticates in the form, or not at all). */
    const exchange = (code: string, verifier: string, extra: Record<string, string> = {}, authorization: string | null = basic(client.id, client.secret)) =>
        tokenRequest(instance.server, { grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI, code_verifier: verifier, ...extra }, authorization ?? undefined);

    const expectError = (res: Awaited<ReturnType<typeof tokenRequest>>, status: number, error: string) => {
        expect(res.statusCode, res.payload).to.equal(status);
        expect(String(res.headers['content-type'])).to.startWith('application/json');
        expect(res.headers['cache-control']).to.equal('no-store');
        expect(res.result.error).to.equal(error);
        expect(res.result.error_description).to.be.a.string();
    };

    const mcpStatus = async (accessToken: string) => (await call('GET', '/v1/auth/introspect', `Bearer ${accessToken}`)).statusCode;

    describe('authorization_code', () => {

        it('answers a token pair, never cached, with an RFC 9068 access token (TK-01, TK-08, TK-09)', async () => {
            const { code, verifier } = await issueCode(client, { scope: 'projects:read apps:read', resource: MCP_RESOURCE });
            const res = await exchange(code, verifier, { resource: MCP_RESOURCE });
            expect(res.statusCode, res.payload).to.equal(200);
            expect(res.headers['cache-control']).to.equal('no-store');
            expect(res.headers.pragma).to.equal('no-cache');
            expect(res.result).to.include({ token_type: 'Bearer', expires_in: 600, scope: 'projects:read apps:read' });
            expect(res.result.refresh_token).to.match(/^svor_[0-9A-Za-z]{43}$/);

            const header = Jose.decodeProtectedHeader(res.result.access_token);
            expect(header).to.include({ alg: 'RS256', typ: 'at+jwt' });
            const jwks = (await call('GET', '/.well-known/jwks.json')).result;
            expect(jwks.keys.map((key: { kid: string }) => key.kid)).to.include(header.kid);
            const { payload } = await Jose.jwtVerify(res.result.access_token, Jose.createLocalJWKSet(jwks), {
                issuer: ISSUER, audience: MCP_RESOURCE, algorithms: ['RS256'], typ: 'at+jwt', requiredClaims: ['sub', 'client_id', 'scope', 'jti', 'iat', 'exp', 'grant_id']
            });
            expect(payload).to.include({ iss: ISSUER, sub: user.id, client_id: client.id, scope: 'projects:read apps:read' });
            expect(payload.aud).to.equal([MCP_RESOURCE, ISSUER]);
            expect(payload.exp! - payload.iat!).to.equal(600);
        });

        it('accepts client_secret_post as well as client_secret_basic', async () => {
            const { code, verifier } = await issueCode();
            expect((await exchange(code, verifier, { client_id: client.id, client_secret: client.secret }, null)).statusCode).to.equal(200);
        });

        it('refuses a wrong verifier, and the code still works with the right one (TK-02)', async () => {
            const { code, verifier } = await issueCode();
            expectError(await exchange(code, `${verifier.slice(0, -4)}AAAA`), 400, 'invalid_grant');
            expectError(await exchange(code, 'short'), 400, 'invalid_request');
            expect((await exchange(code, verifier)).statusCode).to.equal(200);
        });

        it('refuses a replayed code and revokes what it issued (TK-03)', async () => {
            const { code, verifier } = await issueCode();
            const first = await exchange(code, verifier);
            expect(await mcpStatus(first.result.access_token)).to.equal(200);
            expectError(await exchange(code, verifier), 400, 'invalid_grant');
            expect(await mcpStatus(first.result.access_token)).to.equal(401);
            expectError(await tokenRequest(instance.server, { grant_type: 'refresh_token', refresh_token: first.result.refresh_token }, basic(client.id, client.secret)), 400, 'invalid_grant');
        });

        it('binds the code to its client and redirect URI (TK-04)', async () => {
            const otherClient = await registerClient(instance.server, user);
            const { code, verifier } = await issueCode();
            expectError(await exchange(code, verifier, {}, basic(otherClient.id, otherClient.secret)), 400, 'invalid_grant');
            expectError(await exchange(code, verifier, { redirect_uri: 'https://connector.example/other' }), 400, 'invalid_grant');
            expect((await exchange(code, verifier)).statusCode).to.equal(200);
        });

        it('binds the code to its resource (TK-05)', async () => {
            const { code, verifier } = await issueCode();
            expectError(await exchange(code, verifier, { resource: `${ISSUER}/other` }), 400, 'invalid_target');
            expectError(await exchange(code, verifier, { resource: ISSUER }), 400, 'invalid_target');
        });

        it('expires codes after two minutes', async () => {
            const { code, verifier } = await issueCode();
            await instance.server.app.knex('oauth_authorizations').whereNotNull('code_hash').update({ code_expires_at: new Date(Date.now() - 1).toISOString() });
            expectError(await exchange(code, verifier), 400, 'invalid_grant');
        });

        it('authenticates confidential clients: 401 with the scheme the client used (TK-06)', async () => {
            const { code, verifier } = await issueCode();
            const wrong = await exchange(code, verifier, {}, basic(client.id, 'svos_wrong'));
            expectError(wrong, 401, 'invalid_client');
            expect(String(wrong.headers['www-authenticate'])).to.startWith('Basic ');
            const posted = await exchange(code, verifier, { client_id: client.id, client_secret: 'svos_wrong' }, null);
            expectError(posted, 401, 'invalid_client');
            expect(posted.headers['www-authenticate']).to.not.exist();
            expectError(await exchange(code, verifier, { client_id: client.id }, null), 401, 'invalid_client');
            expectError(await exchange(code, verifier, { client_id: 'svoc_0000000000000000', client_secret: 'x' }, null), 401, 'invalid_client');
            expectError(await exchange(code, verifier, { client_secret: client.secret }), 400, 'invalid_request');
            expect((await exchange(code, verifier)).statusCode).to.equal(200);
        });

        it('refuses public clients that send a secret', async () => {
            const res = await tokenRequest(instance.server, { grant_type: 'authorization_code', code: 'svoa_x', redirect_uri: REDIRECT_URI, code_verifier: pkce().verifier, client_id: 'chatgpt', client_secret: 'anything' });
            expectError(res, 401, 'invalid_client');
        });

        it('names unsupported and missing parameters (TK-07)', async () => {
            const auth = basic(client.id, client.secret);
            expectError(await tokenRequest(instance.server, { grant_type: 'password', username: 'a', password: 'b' }, auth), 400, 'unsupported_grant_type');
            expectError(await tokenRequest(instance.server, { code: 'x' }, auth), 400, 'invalid_request');
            expectError(await tokenRequest(instance.server, { grant_type: 'authorization_code', redirect_uri: REDIRECT_URI, code_verifier: pkce().verifier }, auth), 400, 'invalid_request');
            const repeated = await instance.server.inject({
                method: 'POST', url: '/v1/oauth/token', headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: auth },
                payload: 'grant_type=authorization_code&code=a&code=b&redirect_uri=x&code_verifier=y'
            });
            expectError(repeated, 400, 'invalid_request');
        });

        it('answers GET with 405 (TK-10)', async () => {
            const res = await call('GET', '/v1/oauth/token');
            expect(res.statusCode).to.equal(405);
            expect(res.headers.allow).to.equal('POST');
        });

        it('refuses the code of a user disabled since', async () => {
            const disabled = await register(instance.server, 'soon-disabled');
            const theirs = await registerClient(instance.server, disabled);
            const code = pkce();
            const id = authorizationOf(await authorize(instance.server, authorizeParams(theirs.id, code)));
            const issued = new URL((await decide(instance.server, disabled, id, 'allow')).result.redirectTo).searchParams.get('code')!;
            await instance.server.app.knex('users').where({ id: disabled.id }).update({ disabled_at: new Date().toISOString() });
            expectError(await exchange(issued, code.verifier, {}, basic(theirs.id, theirs.secret)), 400, 'invalid_grant');
        });
    });

    describe('refresh_token', () => {

        const refresh = (refreshToken: string, extra: Record<string, string> = {}, authorization: string | undefined = basic(client.id, client.secret)) =>
            tokenRequest(instance.server, { grant_type: 'refresh_token', refresh_token: refreshToken, ...extra }, authorization);

        it('rotates: a new pair each time, the old refresh token spent (RF-01)', async () => {
            const connection = await connectApp(instance.server, user, { client });
            const first = await refresh(connection.refreshToken);
            expect(first.statusCode, first.payload).to.equal(200);
            expect(first.headers['cache-control']).to.equal('no-store');
            expect(first.result.refresh_token).to.not.equal(connection.refreshToken);
            expect(Jose.decodeJwt(first.result.access_token).grant_id).to.equal(connection.grantId);
            const second = await refresh(first.result.refresh_token);
            expect(second.statusCode).to.equal(200);
        });

        it('revokes the grant when a rotated refresh token comes back (RF-02)', async () => {
            const connection = await connectApp(instance.server, user, { client });
            const rotated = await refresh(connection.refreshToken);
            expect(await mcpStatus(rotated.result.access_token)).to.equal(200);
            expectError(await refresh(connection.refreshToken), 400, 'invalid_grant');
            expectError(await refresh(rotated.result.refresh_token), 400, 'invalid_grant');
            expect(await mcpStatus(rotated.result.access_token)).to.equal(401);
            const trail = await call('GET', '/v1/users/me/security-events', user.session);
            expect(trail.result.find((event: any) => event.type === 'oauth_grant.revoked' && event.credentialId === connection.grantId).data).to.include({ reason: 'refresh_reuse' });
        });

        it('binds the refresh token to its client (RF-03)', async () => {
            const connection = await connectApp(instance.server, user, { client });
            const otherClient = await registerClient(instance.server, user);
            expectError(await refresh(connection.refreshToken, {}, basic(otherClient.id, otherClient.secret)), 400, 'invalid_grant');
            expectError(await refresh(connection.refreshToken, {}, basic(client.id, 'svos_wrong')), 401, 'invalid_client');
            expect((await refresh(connection.refreshToken)).statusCode).to.equal(200);
        });

        it('may only narrow the scopes, for the granted resource (RF-04)', async () => {
            const connection = await connectApp(instance.server, user, { client, scope: 'projects:read apps:read' });
            expectError(await refresh(connection.refreshToken, { scope: 'projects:read logs:read' }), 400, 'invalid_scope');
            expectError(await refresh(connection.refreshToken, { scope: 'apps:write' }), 400, 'invalid_scope');
            expectError(await refresh(connection.refreshToken, { resource: 'https://other.example/mcp' }), 400, 'invalid_target');
            const narrowed = await refresh(connection.refreshToken, { scope: 'apps:read', resource: MCP_RESOURCE });
            expect(narrowed.result.scope).to.equal('apps:read');
            expect((await call('GET', '/v1/projects', `Bearer ${narrowed.result.access_token}`)).result.message).to.equal('Missing required scope(s): projects:read');
            const widened = await refresh(narrowed.result.refresh_token);
            expect(widened.result.scope, 'a later refresh without scope gets the grant again').to.equal('projects:read apps:read');
            const offline = await refresh(widened.result.refresh_token, { scope: 'offline_access' });
            expect(offline.result.scope, 'offline_access alone asks for nothing more').to.equal('projects:read apps:read');
        });

        it('refuses an expired refresh token and a garbled one', async () => {
            const connection = await connectApp(instance.server, user, { client });
            expectError(await refresh('svor_unknown'), 400, 'invalid_grant');
            expectError(await refresh('not-a-token'), 400, 'invalid_grant');
            await instance.server.app.knex('oauth_refresh_tokens').where({ grant_id: connection.grantId }).update({ expires_at: new Date(Date.now() - 1).toISOString() });
            expectError(await refresh(connection.refreshToken), 400, 'invalid_grant');
        });
    });

    describe('revocation (RFC 7009)', () => {

        const revoke = (form: Record<string, string>, authorization: string | undefined = basic(client.id, client.secret)) =>
            tokenRequest(instance.server, form, authorization, '/v1/oauth/revoke');

        it('answers 200 for unknown tokens, after authenticating the client (RV-01)', async () => {
            for (const token of ['garbage', 'svor_unknown', 'eyJhbGciOiJub25lIn0.e30.']) {
                const res = await revoke({ token });
                expect(res.statusCode, token).to.equal(200);
                expect(res.payload).to.equal('');
            }

            expectError(await revoke({ token: 'garbage' }, basic(client.id, 'svos_wrong')), 401, 'invalid_client');
            expectError(await revoke({}), 400, 'invalid_request');
        });

        it('revoking the refresh token stops the access tokens of its grant at their next request (RV-02, RV-03)', async () => {
            const connection = await connectApp(instance.server, user, { client });
            expect(await mcpStatus(connection.accessToken)).to.equal(200);
            expect((await revoke({ token: connection.refreshToken, token_type_hint: 'refresh_token' })).statusCode).to.equal(200);
            const refused = await call('GET', '/v1/projects', `Bearer ${connection.accessToken}`);
            expect(refused.statusCode).to.equal(401);
            expect(refused.result.message).to.equal('The app\'s access has been revoked');
            expectError(await tokenRequest(instance.server, { grant_type: 'refresh_token', refresh_token: connection.refreshToken }, basic(client.id, client.secret)), 400, 'invalid_grant');
        });

        it('revoking an access token revokes its grant', async () => {
            const connection = await connectApp(instance.server, user, { client });
            expect((await revoke({ token: connection.accessToken, token_type_hint: 'access_token' })).statusCode).to.equal(200);
            expect(await mcpStatus(connection.accessToken)).to.equal(401);
        });

        it('does not let one client revoke another client\'s token', async () => {
            const connection = await connectApp(instance.server, user, { client });
            const otherClient = await registerClient(instance.server, user);
            expect((await revoke({ token: connection.refreshToken }, basic(otherClient.id, otherClient.secret))).statusCode).to.equal(200);
            expect((await revoke({ token: connection.accessToken }, basic(otherClient.id, otherClient.secret))).statusCode).to.equal(200);
            expect(await mcpStatus(connection.accessToken)).to.equal(200);
        });
    });
});
