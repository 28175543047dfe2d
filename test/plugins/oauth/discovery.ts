import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';
import * as Jose from 'jose';

import { runCli } from '../../../manifest/cli';
import { caller, register, type TestUser } from '../../helpers/api';
import { basic, connectApp, ISSUER, tokenRequest } from '../../helpers/oauth';
import { testServer, type TestServer } from '../../helpers/server';

// Discovery (mcp-oauth.md AM-01..AM-09) and the signing keys (JW-01..JW-04): the keys live in the database, sealed,
// and a rotation keeps the previous key published until every token it signed has expired.
const { describe, it, before, after } = exports.lab = Lab.script();
const { expect } = Code;

describe('OAuth discovery and signing keys', () => {

    let instance: TestServer;
    let user: TestUser;
    const call = caller(() => instance.server);

    before(async () => {
        instance = await testServer();
        user = await register(instance.server, 'keys');
    });

    after(async () => {
        await instance?.stop();
    });

    it('publishes RFC 8414 metadata for its issuer', async () => {
        const res = await call('GET', '/.well-known/oauth-authorization-server');
        expect(res.statusCode).to.equal(200);
        expect(String(res.headers['content-type'])).to.startWith('application/json');
        expect(res.result).to.include({
            issuer: ISSUER,
            authorization_endpoint: `${ISSUER}/v1/oauth/authorize`,
            token_endpoint: `${ISSUER}/v1/oauth/token`,
            revocation_endpoint: `${ISSUER}/v1/oauth/revoke`,
            jwks_uri: `${ISSUER}/.well-known/jwks.json`,
            authorization_response_iss_parameter_supported: true,
            client_id_metadata_document_supported: true
        });
        expect(res.result.response_types_supported).to.equal(['code']);
        expect(res.result.code_challenge_methods_supported).to.equal(['S256']);
        expect(res.result.grant_types_supported).to.equal(['authorization_code', 'refresh_token']);
        expect(res.result.token_endpoint_auth_methods_supported).to.equal(['client_secret_basic', 'client_secret_post', 'none']);
        expect(res.result.scopes_supported).to.include(['projects:read', 'apps:read', 'logs:read']);
        expect(res.result.scopes_supported.every((scope: string) => scope.endsWith(':read') && !scope.startsWith('test-data'))).to.be.true();
        expect(res.result).to.not.include('registration_endpoint');
    });

    it('publishes 2048-bit RSA signing keys without private members', async () => {
        await connectApp(instance.server, user);
        const res = await call('GET', '/.well-known/jwks.json');
        expect(res.statusCode).to.equal(200);
        expect(res.result.keys).to.have.length(1);
        for (const key of res.result.keys) {
            expect(key).to.include({ kty: 'RSA', use: 'sig', alg: 'RS256' });
            expect(key.kid).to.be.a.string();
            expect(Buffer.from(key.n, 'base64url').length).to.be.at.least(256);
            for (const member of ['d', 'p', 'q', 'dp', 'dq', 'qi']) {
                expect(key[member], member).to.not.exist();
            }
        }
    });

    it('keeps the private key sealed in the database', async () => {
        const row = await instance.server.app.knex('oauth_signing_keys').first();
        expect(String(row.private_jwk)).to.startWith('v1.');
        expect(row.private_jwk).to.not.include('"d"');
    });

    it('rotates from the CLI: new tokens use the new key, tokens of the old one keep working until they expire', async () => {
        const before = await connectApp(instance.server, user);
        const oldKid = Jose.decodeProtectedHeader(before.accessToken).kid;
        const out: string[] = [];
        expect(await runCli(['oauth', 'rotate-key'], instance.config, (line) => out.push(line))).to.equal(0);
        expect(out[0]).to.match(new RegExp(`^OAuth access tokens are now signed with key \\w+\\. The previous key \\(${oldKid}\\) stays in the JWKS until `));

        const refreshed = await tokenRequest(instance.server, { grant_type: 'refresh_token', refresh_token: before.refreshToken }, basic(before.client.id, before.client.secret));
        const newKid = Jose.decodeProtectedHeader(refreshed.result.access_token).kid;
        expect(newKid).to.not.equal(oldKid);
        const kids = (await call('GET', '/.well-known/jwks.json')).result.keys.map((key: { kid: string }) => key.kid);
        expect(kids).to.equal([newKid, oldKid]);
        expect((await call('GET', '/v1/projects', `Bearer ${before.accessToken}`)).statusCode, 'the old key\'s token').to.equal(200);
        expect((await call('GET', '/v1/projects', `Bearer ${refreshed.result.access_token}`)).statusCode).to.equal(200);

        // Once the old key's tokens have all expired, the next rotation removes it.
        await instance.server.app.knex('oauth_signing_keys').where({ id: oldKid }).update({ retired_at: new Date(Date.now() - 3600_000).toISOString() });
        expect(await runCli(['oauth', 'rotate-key'], instance.config, () => { })).to.equal(0);
        const after = (await call('GET', '/.well-known/jwks.json')).result.keys.map((key: { kid: string }) => key.kid);
        expect(after).to.have.length(2);
        expect(after).to.not.include(oldKid);
        expect(after[1]).to.equal(newKid);
    });
});
