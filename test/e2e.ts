import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { testServer } from './helpers/server';

// The walk-through over real HTTP on 127.0.0.1: register, log in, create a key, call GET /v1/projects with
// both header forms, revoke, and see the next call refused. Then the same revocation seen by a second server.
const { describe, it } = exports.lab = Lab.script();
const { expect } = Code;

const json = async (response: Response) => ({ status: response.status, body: await response.json() as any });

describe('end to end over HTTP', () => {

    it('registers, logs in, creates a key, uses it both ways, revokes it, and is refused next', async () => {
        const instance = await testServer({}, { start: true });
        const base = instance.server.info.uri;
        const post = (path: string, body: object, authorization?: string) => fetch(`${base}${path}`, {
            method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json', ...(authorization ? { authorization } : {}) }
        });

        try {
            const registered = await json(await post('/v1/auth/register', { email: 'e2e@example.test', password: 'correct horse battery' }));
            expect(registered.status).to.equal(201);
            const loggedIn = await json(await post('/v1/auth/login', { email: 'e2e@example.test', password: 'correct horse battery' }));
            expect(loggedIn.status).to.equal(200);
            const session = `Bearer ${loggedIn.body.accessToken}`;

            const created = await json(await post('/v1/users/me/api-keys', { name: 'e2e', scopes: ['projects:read'] }, session));
            expect(created.status).to.equal(201);
            const { token, apiKey } = created.body;

            for (const authorization of [token, `Bearer ${token}`]) {
                const listed = await json(await fetch(`${base}/v1/projects`, { headers: { authorization } }));
                expect(listed.status).to.equal(200);
                expect(listed.body).to.have.length(1);
                expect(listed.body[0]).to.include({ kind: 'personal', role: 'owner' });
            }

            const revoked = await fetch(`${base}/v1/users/me/api-keys/${apiKey.id}`, { method: 'DELETE', headers: { authorization: session } });
            expect(revoked.status).to.equal(200);
            const refused = await json(await fetch(`${base}/v1/projects`, { headers: { authorization: token } }));
            expect(refused.status).to.equal(401);
            expect(refused.body).to.equal({ statusCode: 401, error: 'Unauthorized', message: 'API key has been revoked' });
        }
        finally {
            await instance.stop();
        }
    });

    it('lets no server cache validity: a key revoked through one server is refused by another at its next request', async () => {
        const first = await testServer();
        const second = await testServer({ database: first.config.database, sessionSecret: first.config.sessionSecret });
        try {
            const registered = await first.server.inject({ method: 'POST', url: '/v1/auth/register', payload: { email: 'two@example.test', password: 'correct horse battery' } });
            const session = `Bearer ${(registered.result as any).accessToken}`;
            const created = (await first.server.inject({ method: 'POST', url: '/v1/users/me/api-keys', headers: { authorization: session }, payload: { name: 'k', scopes: ['projects:read'] } })).result as any;

            expect((await second.server.inject({ url: '/v1/projects', headers: { authorization: created.token } })).statusCode).to.equal(200);
            expect((await second.server.inject({ url: '/v1/projects', headers: { authorization: session } })).statusCode).to.equal(200);

            await first.server.inject({ method: 'DELETE', url: `/v1/users/me/api-keys/${created.apiKey.id}`, headers: { authorization: session } });
            await first.server.inject({ method: 'POST', url: '/v1/auth/logout', headers: { authorization: session } });
            expect((await second.server.inject({ url: '/v1/projects', headers: { authorization: created.token } })).statusCode).to.equal(401);
            expect((await second.server.inject({ url: '/v1/projects', headers: { authorization: session } })).statusCode).to.equal(401);
        }
        finally {
            await second.stop();
            await first.stop();
        }
    });
});
