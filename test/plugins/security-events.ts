import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { parseApiKey } from '../../lib/api-key-token';
import { recordSecurityEvent } from '../../lib/security-events';
import { runCli } from '../../manifest/cli';
import { caller, login, PASSWORD, register } from '../helpers/api';
import { testServer, type TestServer } from '../helpers/server';

const { describe, it, before, after } = exports.lab = Lab.script();
const { expect } = Code;

describe('security event log', () => {

    let instance: TestServer;
    const call = caller(() => instance.server);
    const events = async (userId: string) => (await instance.server.app.knex('security_events').where({ user_id: userId }).orderBy('seq')) as Array<{ type: string; actor: string; data: string; credential_id: string | null }>;

    before(async () => {
        instance = await testServer();
    });

    after(async () => {
        await instance?.stop();
    });

    it('records each of the account flows once, in order, without a secret', async () => {
        const user = await register(instance.server, 'trail');
        const secrets = [PASSWORD, user.accessToken, user.refreshToken];
        await call('POST', '/v1/auth/login', undefined, { email: user.email, password: 'not the password' });
        const second = await login(instance.server, user);
        secrets.push(second.accessToken, second.refreshToken);
        const created = await call('POST', '/v1/users/me/api-keys', user.session, { name: 'ci', scopes: ['apps:read'] });
        secrets.push(created.result.token, parseApiKey(created.result.token)!.secret);
        await call('DELETE', `/v1/users/me/api-keys/${created.result.apiKey.id}`, user.session);
        await call('POST', '/v1/auth/logout', second.session);
        const third = await login(instance.server, user);
        await call('POST', '/v1/auth/refresh', undefined, { refreshToken: third.refreshToken });
        await call('POST', '/v1/auth/refresh', undefined, { refreshToken: third.refreshToken });
        await login(instance.server, user);
        await call('PATCH', '/v1/users/me', user.session, { password: 'another long password', currentPassword: PASSWORD });
        secrets.push('another long password');
        for (const command of [['admin', 'grant'], ['admin', 'grant'], ['admin', 'revoke'], ['user', 'disable'], ['user', 'enable']]) {
            await runCli([...command, user.email], instance.config, () => { });
        }

        const rows = await events(user.id);
        expect(rows.map((row) => row.type)).to.equal([
            'user.registered', 'session.signed_in',
            'session.sign_in_failed', 'session.signed_in',
            'api_key.created', 'api_key.revoked',
            'session.revoked',
            'session.signed_in', 'session.revoked',
            'session.signed_in', 'user.password_changed', 'session.revoked',
            'user.admin_granted', 'user.admin_revoked', 'user.disabled', 'user.enabled'
        ]);
        expect(rows.map((row) => JSON.parse(row.data).reason).filter(Boolean)).to.equal(['wrong_password', 'logout', 'refresh_reuse', 'password_changed']);
        expect(rows.slice(-4).map((row) => row.actor)).to.equal(['cli', 'cli', 'cli', 'cli']);
        expect(JSON.parse(rows[4].data)).to.equal({ name: 'ci', prefix: created.result.apiKey.prefix, scopes: ['apps:read'], expiresAt: null });

        const text = JSON.stringify(rows);
        for (const secret of secrets) {
            expect(text.includes(secret), `the log holds ${secret.slice(0, 8)}...`).to.be.false();
        }
    });

    it('writes nothing when the transaction it belongs to rolls back', async () => {
        const user = await register(instance.server, 'rollback');
        const before = (await events(user.id)).length;
        await expect(instance.server.app.knex.transaction(async (trx) => {
            await recordSecurityEvent(trx, { type: 'user.password_changed', userId: user.id, actor: user.id });
            throw new Error('the change failed');
        })).to.reject('the change failed');
        expect(await events(user.id)).to.have.length(before);
    });

    it('is append-only: a recorded event cannot be rewritten', async () => {
        const user = await register(instance.server, 'immutable');
        await expect(instance.server.app.knex('security_events').where({ user_id: user.id }).update({ type: 'user.enabled' })).to.reject(/append-only/);
    });

    it('redacts anything shaped like a credential that reaches an event\'s data', async () => {
        const user = await register(instance.server, 'redact');
        await recordSecurityEvent(instance.server.app.knex, {
            type: 'api_key.created', userId: user.id, actor: user.id,
            data: { name: `oops ${created_token_like()}`, scopes: [`svr_${'a'.repeat(43)}`] }
        });
        const last = (await events(user.id)).pop()!;
        expect(JSON.parse(last.data)).to.equal({ name: 'oops [redacted]', scopes: ['[redacted]'] });
    });

    it('shows a user their own trail, newest first, in pages, to a session only', async () => {
        const user = await register(instance.server, 'reader');
        const other = await register(instance.server, 'other');
        await call('POST', '/v1/users/me/api-keys', user.session, { name: 'k', scopes: ['apps:read'] });
        const first = await call('GET', '/v1/users/me/security-events?limit=2', user.session);
        expect(first.statusCode).to.equal(200);
        expect(first.result.map((event: { type: string }) => event.type)).to.equal(['api_key.created', 'session.signed_in']);
        expect(Object.keys(first.result[0]).sort()).to.equal(['actor', 'createdAt', 'credentialId', 'data', 'id', 'ip', 'type']);
        const next = /^<([^>]+)>/.exec(first.headers.link as string)![1];
        expect((await call('GET', next, user.session)).result.map((event: { type: string }) => event.type)).to.equal(['user.registered']);
        const theirs = await call('GET', '/v1/users/me/security-events', other.session);
        expect(theirs.result.every((event: { actor: string }) => event.actor === other.id)).to.be.true();
        expect((await call('GET', '/v1/users/me/security-events?cursor=abc', user.session)).statusCode).to.equal(400);
    });

    it('prunes events past the retention period in a daily job, and schedules the next day\'s', async () => {
        // Workers off at start, so the day's run (enqueued at start) waits until the old event is in place.
        const server = await testServer({ jobs: { mode: 'api', concurrency: 2 }, securityEventRetentionDays: 30 }, { start: true });
        try {
            const user = await register(server.server, 'retained');
            const knex = server.server.app.knex;
            await knex('security_events').where({ user_id: user.id, type: 'user.registered' }).delete();
            await recordSecurityEvent(knex, { type: 'user.enabled', userId: user.id, actor: 'cli' });
            await knex.raw('DROP TRIGGER security_events_no_update' + (knex.client.config.client === 'pg' ? ' ON security_events' : ''));
            await knex('security_events').where({ user_id: user.id, type: 'user.enabled' }).update({ created_at: new Date(Date.now() - 31 * 24 * 3600 * 1000).toISOString() });

            const queue = server.server.plugins['hostless-jobs'].queue;
            const today = await knex('jobs').where({ type: 'security-events.prune' }).first();
            expect(today.status).to.equal('queued');
            queue.start();
            for (let i = 0; i < 100 && (await queue.get(today.id))!.status !== 'succeeded'; ++i) {
                await new Promise((resolve) => setTimeout(resolve, 20));
            }

            expect((await queue.get(today.id))!.status).to.equal('succeeded');
            const remaining = await knex('security_events').where({ user_id: user.id }).select('type');
            expect(remaining.map((row: { type: string }) => row.type)).to.equal(['session.signed_in']);
            const next = await knex('jobs').where({ type: 'security-events.prune' }).whereNot({ id: today.id }).first();
            expect(next.status).to.equal('queued');
            expect(next.run_at > new Date().toISOString()).to.be.true();
        }
        finally {
            await server.stop();
        }
    });
});

function created_token_like(): string {
    return `svk_${'A'.repeat(10)}_${'b'.repeat(49)}`;
}
