import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { SESSION_SCOPES } from '../../../lib/scopes';
import { PASSWORD, caller, createKey, login, register, uniqueEmail } from '../../helpers/api';
import { testServer, type TestServer } from '../../helpers/server';

const { describe, it, before, after } = exports.lab = Lab.script();
const { expect } = Code;

describe('accounts and sessions', () => {

    let instance: TestServer;
    const call = caller(() => instance.server);

    before(async () => {
        instance = await testServer();
    });

    after(async () => {
        await instance?.stop();
    });

    describe('POST /v1/auth/register', () => {

        it('creates the account, its personal project and a session, not to be cached', async () => {
            const email = uniqueEmail();
            const res = await call('POST', '/v1/auth/register', undefined, { email: email.toUpperCase(), password: PASSWORD, name: 'Ada' });
            expect(res.statusCode).to.equal(201);
            expect(res.headers['cache-control']).to.equal('no-store');
            expect(Object.keys(res.result).sort()).to.equal(['accessToken', 'expiresIn', 'refreshToken', 'user']);
            expect(res.result.user).to.include({ email, name: 'Ada', isAdmin: false });
            expect(res.result.expiresIn).to.equal(900);

            const projects = await call('GET', '/v1/projects', `Bearer ${res.result.accessToken}`);
            expect(projects.result).to.have.length(1);
            expect(projects.result[0]).to.include({ kind: 'personal', role: 'owner', name: 'Personal' });
        });

        it('refuses a taken email, whatever its case', async () => {
            const user = await register(instance.server);
            const res = await call('POST', '/v1/auth/register', undefined, { email: user.email.toUpperCase(), password: PASSWORD });
            expect(res.statusCode).to.equal(409);
            expect(res.result.message).to.equal('An account with this email already exists');
        });

        it('refuses a password under 10 characters and an invalid email, naming the field', async () => {
            const short = await call('POST', '/v1/auth/register', undefined, { email: uniqueEmail(), password: 'short' });
            expect(short.statusCode).to.equal(400);
            expect(short.result.message).to.equal('"password" length must be at least 10 characters long');
            const bad = await call('POST', '/v1/auth/register', undefined, { email: 'not-an-email', password: PASSWORD });
            expect(bad.result.message).to.equal('"email" must be a valid email address');
        });

        it('is refused when sign-up is closed', async () => {
            const closed = await testServer({ signupEnabled: false });
            try {
                const res = await closed.server.inject({ method: 'POST', url: '/v1/auth/register', payload: { email: uniqueEmail(), password: PASSWORD } });
                expect(res.statusCode).to.equal(403);
                expect(res.result).to.equal({ statusCode: 403, error: 'Forbidden', message: 'Sign-up is closed on this deployment' });
            }
            finally {
                await closed.stop();
            }
        });
    });

    describe('POST /v1/auth/login', () => {

        it('signs in with the email in any case', async () => {
            const user = await register(instance.server);
            const res = await call('POST', '/v1/auth/login', undefined, { email: user.email.toUpperCase(), password: PASSWORD });
            expect(res.statusCode).to.equal(200);
            expect(res.result.user.id).to.equal(user.id);
        });

        it('answers a wrong password and an unknown email with the same 401', async () => {
            const user = await register(instance.server);
            const wrong = await call('POST', '/v1/auth/login', undefined, { email: user.email, password: 'wrong password!' });
            const unknown = await call('POST', '/v1/auth/login', undefined, { email: uniqueEmail(), password: PASSWORD });
            expect(wrong.statusCode).to.equal(401);
            expect(wrong.payload).to.equal(unknown.payload);
            expect(wrong.result.message).to.equal('Invalid email or password');
        });
    });

    describe('POST /v1/auth/refresh', () => {

        it('rotates the pair: the new tokens work and the old refresh token does not', async () => {
            const user = await register(instance.server);
            const first = await call('POST', '/v1/auth/refresh', undefined, { refreshToken: user.refreshToken });
            expect(first.statusCode).to.equal(200);
            expect(first.headers['cache-control']).to.equal('no-store');
            expect(first.result.refreshToken).to.not.equal(user.refreshToken);
            expect((await call('GET', '/v1/users/me', `Bearer ${first.result.accessToken}`)).statusCode).to.equal(200);

            const second = await call('POST', '/v1/auth/refresh', undefined, { refreshToken: first.result.refreshToken });
            expect(second.statusCode).to.equal(200);
        });

        it('ends the whole session when a used refresh token comes back', async () => {
            const user = await register(instance.server);
            const rotated = await call('POST', '/v1/auth/refresh', undefined, { refreshToken: user.refreshToken });
            const replay = await call('POST', '/v1/auth/refresh', undefined, { refreshToken: user.refreshToken });
            expect(replay.statusCode).to.equal(401);
            expect(replay.result.message).to.equal('Refresh token was already used; the session has been ended');

            expect((await call('GET', '/v1/users/me', `Bearer ${rotated.result.accessToken}`)).statusCode).to.equal(401);
            expect((await call('GET', '/v1/users/me', user.session)).statusCode).to.equal(401);
            expect((await call('POST', '/v1/auth/refresh', undefined, { refreshToken: rotated.result.refreshToken })).statusCode).to.equal(401);
        });

        it('refuses an unknown or malformed refresh token', async () => {
            for (const refreshToken of ['svr_doesnotexist', 'garbage', user_like_token()]) {
                const res = await call('POST', '/v1/auth/refresh', undefined, { refreshToken });
                expect(res.statusCode).to.equal(401);
                expect(res.result.message).to.equal('Invalid refresh token');
            }
        });
    });

    describe('POST /v1/auth/logout', () => {

        it('ends the session at the next request, access and refresh tokens alike', async () => {
            const user = await register(instance.server);
            const other = await login(instance.server, user);
            const res = await call('POST', '/v1/auth/logout', user.session);
            expect(res.statusCode).to.equal(204);
            const after = await call('GET', '/v1/users/me', user.session);
            expect(after.statusCode).to.equal(401);
            expect(after.result.message).to.equal('Session has ended');
            expect((await call('POST', '/v1/auth/refresh', undefined, { refreshToken: user.refreshToken })).statusCode).to.equal(401);
            expect((await call('GET', '/v1/users/me', other.session)).statusCode, 'another session lives on').to.equal(200);
        });
    });

    describe('GET /v1/auth/introspect', () => {

        it('describes a key, a session, and refuses a dead credential', async () => {
            const user = await register(instance.server);
            const key = await createKey(instance.server, user, ['apps:read', 'logs:read']);
            const viaKey = await call('GET', '/v1/auth/introspect', key.token);
            expect(viaKey.result).to.equal({ userId: user.id, via: 'key', credentialId: key.id, scopes: ['apps:read', 'logs:read'], isAdmin: false });

            const viaSession = await call('GET', '/v1/auth/introspect', user.session);
            expect(viaSession.result).to.include({ userId: user.id, via: 'session', isAdmin: false });
            expect(viaSession.result.scopes).to.equal(SESSION_SCOPES);
            expect(viaSession.result.scopes).to.not.include('test-data:read');

            await call('DELETE', `/v1/users/me/api-keys/${key.id}`, user.session);
            expect((await call('GET', '/v1/auth/introspect', key.token)).statusCode).to.equal(401);
        });
    });

    describe('/v1/users/me', () => {

        it('reads and renames the signed-in user', async () => {
            const user = await register(instance.server);
            const res = await call('PATCH', '/v1/users/me', user.session, { name: 'Grace' });
            expect(res.statusCode).to.equal(200);
            expect(res.result).to.include({ id: user.id, name: 'Grace', email: user.email });
            expect((await call('GET', '/v1/users/me', user.session)).result.name).to.equal('Grace');
        });

        it('changes the password with the current one, ending the other sessions', async () => {
            const user = await register(instance.server);
            const other = await login(instance.server, user);
            const wrong = await call('PATCH', '/v1/users/me', user.session, { password: 'a brand new password', currentPassword: 'not it at all' });
            expect(wrong.statusCode).to.equal(400);
            expect(wrong.result.message).to.equal('"currentPassword" is incorrect');
            const missing = await call('PATCH', '/v1/users/me', user.session, { password: 'a brand new password' });
            expect(missing.statusCode).to.equal(400);

            const res = await call('PATCH', '/v1/users/me', user.session, { password: 'a brand new password', currentPassword: PASSWORD });
            expect(res.statusCode).to.equal(200);
            expect((await call('GET', '/v1/users/me', user.session)).statusCode, 'this session lives on').to.equal(200);
            expect((await call('GET', '/v1/users/me', other.session)).statusCode, 'the other one ends').to.equal(401);
            expect((await call('POST', '/v1/auth/login', undefined, { email: user.email, password: PASSWORD })).statusCode).to.equal(401);
            expect((await call('POST', '/v1/auth/login', undefined, { email: user.email, password: 'a brand new password' })).statusCode).to.equal(200);
        });

        it('refuses fields it does not own', async () => {
            const user = await register(instance.server);
            const res = await call('PATCH', '/v1/users/me', user.session, { email: 'x@y.z' });
            expect(res.statusCode).to.equal(400);
            expect(res.result.message).to.equal('"email" is not allowed');
        });
    });
});

function user_like_token(): string {
    return `svr_${'A'.repeat(43)}`;
}
