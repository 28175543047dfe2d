import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';
import * as Jose from 'jose';

import { caller, createKey, login, register } from '../../helpers/api';
import { testServer, type TestServer } from '../../helpers/server';

const { describe, it, before, after } = exports.lab = Lab.script();
const { expect } = Code;

const sid = (accessToken: string) => (Jose.decodeJwt(accessToken) as { sid: string }).sid;

describe('the signed-in user\'s sessions', () => {

    let instance: TestServer;
    const call = caller(() => instance.server);

    before(async () => {
        instance = await testServer();
    });

    after(async () => {
        await instance?.stop();
    });

    const trail = async (session: string) => (await call('GET', '/v1/users/me/security-events?limit=100', session)).result as Array<{ type: string; credentialId: string; data: Record<string, unknown> }>;

    describe('GET /v1/users/me/sessions', () => {

        it('lists the live sessions newest first, marking the caller\'s, without any token', async () => {
            const user = await register(instance.server);
            const second = await login(instance.server, user);
            const ended = await login(instance.server, user);
            expect((await call('POST', '/v1/auth/logout', ended.session)).statusCode).to.equal(204);

            const res = await call('GET', '/v1/users/me/sessions', second.session);
            expect(res.statusCode).to.equal(200);
            expect(res.result.map((session: { id: string }) => session.id)).to.equal([sid(second.accessToken), sid(user.accessToken)]);
            expect(res.result[0]).to.include({ current: true, method: 'password', ip: '127.0.0.1' });
            expect(res.result[1]).to.include({ current: false, method: 'register' });
            expect(Object.keys(res.result[0]).sort()).to.equal(['createdAt', 'current', 'expiresAt', 'id', 'ip', 'lastRefreshedAt', 'method']);
            expect(res.payload).to.not.contain(second.refreshToken);
            expect(res.payload).to.not.contain('svr_');
        });

        it('is refused to an API key, as every session route is', async () => {
            const user = await register(instance.server);
            const key = await createKey(instance.server, user, ['projects:read']);
            const res = await call('GET', '/v1/users/me/sessions', `Bearer ${key.token}`);
            expect(res.statusCode).to.equal(403);
        });
    });

    describe('DELETE /v1/users/me/sessions/{sessionId}', () => {

        it('signs one session out at its next request, recorded in the trail', async () => {
            const user = await register(instance.server);
            const other = await login(instance.server, user);
            expect((await call('GET', '/v1/users/me', other.session)).statusCode).to.equal(200);

            const res = await call('DELETE', `/v1/users/me/sessions/${sid(other.accessToken)}`, user.session);
            expect(res.statusCode).to.equal(204);
            const refused = await call('GET', '/v1/users/me', other.session);
            expect(refused.statusCode).to.equal(401);
            expect(refused.result.message).to.equal('Session has ended');
            expect((await call('POST', '/v1/auth/refresh', undefined, { refreshToken: other.refreshToken })).statusCode).to.equal(401);
            expect((await call('GET', '/v1/users/me', user.session)).statusCode, 'the caller\'s session lives on').to.equal(200);

            const event = (await trail(user.session)).find((candidate) => candidate.type === 'session.revoked');
            expect(event).to.include({ credentialId: sid(other.accessToken) });
            expect(event!.data).to.equal({ reason: 'signed_out_by_user', by: sid(user.accessToken) });
            expect((await call('GET', '/v1/users/me/sessions', user.session)).result.map((session: { id: string }) => session.id)).to.equal([sid(user.accessToken)]);
        });

        it('answers 404 for an ended session, another user\'s and one that does not exist, and 400 naming a malformed id', async () => {
            const user = await register(instance.server);
            const stranger = await register(instance.server, 'stranger');
            const other = await login(instance.server, user);
            expect((await call('DELETE', `/v1/users/me/sessions/${sid(other.accessToken)}`, user.session)).statusCode).to.equal(204);

            const again = await call('DELETE', `/v1/users/me/sessions/${sid(other.accessToken)}`, user.session);
            expect(again.statusCode).to.equal(404);
            expect(again.result.message).to.equal('Session not found');
            expect((await call('DELETE', `/v1/users/me/sessions/${sid(stranger.accessToken)}`, user.session)).statusCode).to.equal(404);
            expect((await call('GET', '/v1/users/me', stranger.session)).statusCode, 'the stranger stays signed in').to.equal(200);
            expect((await call('DELETE', '/v1/users/me/sessions/ses_0000000000000000', user.session)).statusCode).to.equal(404);
            const bad = await call('DELETE', '/v1/users/me/sessions/nope', user.session);
            expect(bad.statusCode).to.equal(400);
            expect(bad.result.message).to.contain('"sessionId"');
        });

        it('signs out the caller\'s own session too', async () => {
            const user = await register(instance.server);
            expect((await call('DELETE', `/v1/users/me/sessions/${sid(user.accessToken)}`, user.session)).statusCode).to.equal(204);
            expect((await call('GET', '/v1/users/me', user.session)).statusCode).to.equal(401);
        });
    });

    describe('POST /v1/users/me/sessions/revoke-others', () => {

        it('signs out every other session, each recorded, and keeps the caller\'s', async () => {
            const user = await register(instance.server);
            const others = [await login(instance.server, user), await login(instance.server, user)];
            const stranger = await register(instance.server, 'stranger');

            const res = await call('POST', '/v1/users/me/sessions/revoke-others', user.session);
            expect(res.statusCode).to.equal(200);
            expect(res.result).to.equal({ signedOut: 2 });
            for (const other of others) {
                expect((await call('GET', '/v1/users/me', other.session)).statusCode).to.equal(401);
            }

            expect((await call('GET', '/v1/users/me', user.session)).statusCode).to.equal(200);
            expect((await call('GET', '/v1/users/me', stranger.session)).statusCode).to.equal(200);
            const revoked = (await trail(user.session)).filter((event) => event.type === 'session.revoked');
            expect(revoked.map((event) => event.credentialId).sort()).to.equal(others.map((other) => sid(other.accessToken)).sort());
            expect(revoked.every((event) => event.data.reason === 'signed_out_elsewhere' && event.data.by === sid(user.accessToken))).to.be.true();

            expect((await call('POST', '/v1/users/me/sessions/revoke-others', user.session)).result, 'nothing left to end').to.equal({ signedOut: 0 });
        });
    });
});
