import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';
import * as Jose from 'jose';

import { caller, register, type TestUser } from '../helpers/api';
import { call, connect, LIST_TOOLS, METADATA_URL, mcpInstance, post, text, type ApiPath, type McpInstance } from '../helpers/mcp';
import { connectApp, forge, ISSUER, MCP_RESOURCE, type Connection } from '../helpers/oauth';

// OAuth access tokens on POST /mcp (mcp-oauth.md RS-08..RS-13): the MCP server verifies them itself against the
// API's JWKS (signature, issuer, its own resource in `aud`, expiry, `typ`), then the API's introspection checks the
// grant; either refusal is 401 `error="invalid_token"`, and a revocation holds at the next request. Both ways of
// reaching the API: in-process, and over HTTP like a server of its own.
const { describe, it, before, after } = exports.lab = Lab.script();
const { expect } = Code;

for (const path of ['inject', 'http'] as ApiPath[]) {
    describe(`OAuth access tokens on the MCP server (API over ${path})`, () => {

        let instance: McpInstance;
        let user: TestUser;
        let connection: Connection;

        before(async () => {
            instance = await mcpInstance({}, path);
            user = await register(instance.api.server, 'mcp-oauth');
            connection = await connectApp(instance.api.server, user);
        });

        after(async () => {
            await instance?.stop();
        });

        const refusedWith = async (token: string, label: string, description = 'Invalid or expired access token') => {
            const res = await post(`${instance.url}/mcp`, LIST_TOOLS, { authorization: `Bearer ${token}` });
            expect(res.status, label).to.equal(401);
            expect(res.headers.get('www-authenticate'), label).to.equal(`Bearer error="invalid_token", error_description="${description}", resource_metadata="${METADATA_URL}"`);
        };

        it('lists and calls tools with a live token', async () => {
            const client = await connect(`${instance.url}/mcp`, { authorization: `Bearer ${connection.accessToken}` });
            try {
                const listed = await call(client, 'projects_list');
                expect(listed.isError).to.not.be.true();
                expect(listed.structuredContent.items.map((project: { id: string }) => project.id)).to.equal([user.projectId]);
                const write = await call(client, 'apps_create', { projectId: user.projectId, name: 'from-oauth' });
                expect(write.isError).to.be.true();
                expect(text(write)).to.include('Missing required scope(s): apps:write');
            }
            finally {
                await client.close();
            }
        });

        it('verifies the audience itself: a token for the API alone is refused here, though the API takes it', async () => {
            const apiOnly = await forge(instance.api.server, connection.accessToken, { claims: { aud: [ISSUER] } });
            expect((await caller(() => instance.api.server)('GET', '/v1/projects', `Bearer ${apiOnly}`)).statusCode).to.equal(200);
            await refusedWith(apiOnly, 'aud is the API only');
            const mcpOnly = await forge(instance.api.server, connection.accessToken, { claims: { aud: [MCP_RESOURCE] } });
            await refusedWith(mcpOnly, 'aud is the MCP server only: the API refuses it', 'Invalid or expired access token');
        });

        it('refuses another issuer, typ, algorithm, key, or an expired token', async () => {
            const now = Math.floor(Date.now() / 1000);
            await refusedWith(await forge(instance.api.server, connection.accessToken, { claims: { iss: 'https://issuer.example' } }), 'issuer');
            await refusedWith(await forge(instance.api.server, connection.accessToken, { claims: { iat: now - 700, exp: now - 60 } }), 'expired');
            await refusedWith(await forge(instance.api.server, connection.accessToken, { header: { typ: 'JWT' } }), 'typ JWT');
            const { privateKey } = await Jose.generateKeyPair('RS256');
            const kid = Jose.decodeProtectedHeader(connection.accessToken).kid!;
            await refusedWith(await new Jose.SignJWT(Jose.decodeJwt(connection.accessToken)).setProtectedHeader({ alg: 'RS256', typ: 'at+jwt', kid }).sign(privateKey), 'foreign key');
            const none = `${Jose.base64url.encode(JSON.stringify({ alg: 'none', typ: 'at+jwt', kid }))}.${connection.accessToken.split('.')[1]}.`;
            await refusedWith(none, 'alg none');
        });

        it('refuses the token of a revoked grant at the next request', async () => {
            const doomed = await connectApp(instance.api.server, user);
            expect((await post(`${instance.url}/mcp`, LIST_TOOLS, { authorization: `Bearer ${doomed.accessToken}` })).status).to.equal(200);
            expect((await caller(() => instance.api.server)('DELETE', `/v1/users/me/connected-apps/${doomed.grantId}`, user.session)).statusCode).to.equal(200);
            await refusedWith(doomed.accessToken, 'revoked', 'The app\'s access has been revoked');
        });

        it('refuses the token of a disabled user', async () => {
            const other = await register(instance.api.server, 'mcp-oauth-disabled');
            const theirs = await connectApp(instance.api.server, other);
            await instance.api.server.app.knex('users').where({ id: other.id }).update({ disabled_at: new Date().toISOString() });
            await refusedWith(theirs.accessToken, 'disabled', 'Account is disabled');
        });
    });
}
