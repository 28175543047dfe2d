import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { parseApiKey } from '../../lib/api-key-token';
import { sha256Hex } from '../../lib/crypto';
import { MAX_ACTIVE_KEYS } from '../../plugins/api-keys/services/api-keys';
import { caller, createKey, register } from '../helpers/api';
import { testServer, type TestServer } from '../helpers/server';

const { describe, it, before, after } = exports.lab = Lab.script();
const { expect } = Code;

const KEY_FIELDS = ['createdAt', 'expiresAt', 'id', 'lastUsedAt', 'name', 'prefix', 'scopes'];

describe('API keys', () => {

    let instance: TestServer;
    const call = caller(() => instance.server);
    const knex = () => instance.server.app.knex;

    before(async () => {
        instance = await testServer();
    });

    after(async () => {
        await instance?.stop();
    });

    describe('POST /v1/users/me/api-keys', () => {

        it('shows the token once, with the seven fields of the key, and stores only its SHA-256', async () => {
            const user = await register(instance.server);
            const res = await call('POST', '/v1/users/me/api-keys', user.session, { name: 'deploy bot', scopes: ['apps:read', 'deployments:write'] });
            expect(res.statusCode).to.equal(201);
            expect(res.headers['cache-control']).to.equal('no-store');
            expect(Object.keys(res.result).sort()).to.equal(['apiKey', 'token']);
            expect(Object.keys(res.result.apiKey).sort()).to.equal(KEY_FIELDS);

            const { token, apiKey } = res.result;
            expect(token).to.match(/^svk_[0-9A-Za-z]{10}_[0-9A-Za-z]{49}$/);
            const parsed = parseApiKey(token)!;
            expect(apiKey).to.equal({ id: apiKey.id, name: 'deploy bot', prefix: `svk_${parsed.prefix}`, scopes: ['apps:read', 'deployments:write'], expiresAt: null, lastUsedAt: null, createdAt: apiKey.createdAt });

            const row = await knex()('api_keys').where({ id: apiKey.id }).first();
            expect(row.secret_hash).to.equal(sha256Hex(parsed.secret));
            expect(JSON.stringify(row)).to.not.include(parsed.secret);

            const listed = await call('GET', '/v1/users/me/api-keys', user.session);
            expect(listed.payload).to.not.include(parsed.secret);
            expect(listed.result).to.equal([apiKey]);
        });

        it('validates name, scopes and expiry, naming what is wrong', async () => {
            const user = await register(instance.server);
            const cases: Array<[object, string]> = [
                [{ name: '', scopes: ['apps:read'] }, '"name" is not allowed to be empty'],
                [{ name: 'x'.repeat(129), scopes: ['apps:read'] }, '"name" length must be less than or equal to 128 characters long'],
                [{ scopes: ['apps:read'] }, '"name" is required'],
                [{ name: 'k', scopes: [] }, '"scopes" must hold at least 1 item'],
                [{ name: 'k' }, '"scopes" is required'],
                [{ name: 'k', scopes: ['apps:read', 'apps:read'] }, '"scopes" must not contain duplicates'],
                [{ name: 'k', scopes: ['apps:read', 'apps:fly', 'root'] }, '"scopes" contains unknown scope(s): apps:fly, root'],
                [{ name: 'k', scopes: ['apps:read'], expiresAt: '2001-01-01T00:00:00.000Z' }, '"expiresAt" must be in the future'],
                [{ name: 'k', scopes: ['apps:read'], expiresAt: 'tomorrow' }, '"expiresAt" must be a valid ISO 8601 date'],
                [{ name: 'k', scopes: ['apps:read'], owner: 'me' }, '"owner" is not allowed']
            ];
            for (const [payload, message] of cases) {
                const res = await call('POST', '/v1/users/me/api-keys', user.session, payload);
                expect(res.statusCode, message).to.equal(400);
                expect(res.result.message).to.equal(message);
            }

            expect(await knex()('api_keys').where({ user_id: user.id })).to.have.length(0);
        });

        it('expands a <resource>:* shorthand at creation: the key holds, shows and lists the scopes it stands for', async () => {
            const user = await register(instance.server);
            const res = await call('POST', '/v1/users/me/api-keys', user.session, { name: 'ci', scopes: ['deployments:*', 'apps:*', 'logs:read', 'apps:read'] });
            expect(res.statusCode).to.equal(201);
            const expanded = ['apps:read', 'apps:write', 'apps:delete', 'deployments:read', 'deployments:write', 'logs:read'];
            expect(res.result.apiKey.scopes).to.equal(expanded);
            expect((await call('GET', '/v1/users/me/api-keys', user.session)).result[0].scopes).to.equal(expanded);
            const introspected = await call('GET', '/v1/auth/introspect', res.result.token);
            expect(introspected.result.scopes).to.equal(expanded);
            expect((await call('DELETE', `/v1/apps/nothing-here`, res.result.token)).statusCode).to.equal(404);

            const unknown = await call('POST', '/v1/users/me/api-keys', user.session, { name: 'k', scopes: ['rockets:*', '*', 'apps:read'] });
            expect(unknown.statusCode).to.equal(400);
            expect(unknown.result.message).to.equal('"scopes" contains unknown scope(s): rockets:*, *');
        });

        it('accepts the test-data scopes and an explicit null expiry', async () => {
            const user = await register(instance.server);
            const res = await call('POST', '/v1/users/me/api-keys', user.session, { name: 'k', scopes: ['test-data:read'], expiresAt: null });
            expect(res.statusCode).to.equal(201);
            expect(res.result.apiKey.expiresAt).to.equal(null);
        });

        it(`holds at most ${MAX_ACTIVE_KEYS} live keys per account`, async () => {
            const user = await register(instance.server);
            const now = new Date().toISOString();
            await knex()('api_keys').insert(Array.from({ length: MAX_ACTIVE_KEYS }, (_, i) => ({
                id: `key_filler${String(i).padStart(8, '0')}`, user_id: user.id, name: 'filler', prefix: `filler${String(i).padStart(6, '0')}`,
                secret_hash: '0'.repeat(64), scopes: '["apps:read"]', created_at: now
            })));
            const res = await call('POST', '/v1/users/me/api-keys', user.session, { name: 'one too many', scopes: ['apps:read'] });
            expect(res.statusCode).to.equal(409);
        });
    });

    describe('GET /v1/users/me/api-keys', () => {

        it('lists live and expired keys newest first, pages with a Link header, and hides revoked ones', async () => {
            const user = await register(instance.server);
            const a = await createKey(instance.server, user, ['apps:read'], { name: 'a' });
            const b = await createKey(instance.server, user, ['apps:read'], { name: 'b', expiresAt: new Date(Date.now() + 60_000).toISOString() });
            const c = await createKey(instance.server, user, ['apps:read'], { name: 'c' });
            await knex()('api_keys').where({ id: b.id }).update({ expires_at: '2020-01-01T00:00:00.000Z' });
            await call('DELETE', `/v1/users/me/api-keys/${c.id}`, user.session);

            const all = await call('GET', '/v1/users/me/api-keys', user.session);
            expect(all.result.map((key: { id: string }) => key.id)).to.equal([b.id, a.id]);
            expect(all.result[0].expiresAt).to.equal('2020-01-01T00:00:00.000Z');

            const first = await call('GET', '/v1/users/me/api-keys?limit=1', user.session);
            expect(first.result.map((key: { id: string }) => key.id)).to.equal([b.id]);
            const next = /^<([^>]+)>; rel="next"$/.exec(first.headers.link as string)![1];
            const second = await call('GET', next, user.session);
            expect(second.result.map((key: { id: string }) => key.id)).to.equal([a.id]);
            expect(second.headers.link).to.not.exist();

            expect((await call('GET', '/v1/users/me/api-keys?limit=101', user.session)).statusCode).to.equal(400);
            expect((await call('GET', '/v1/users/me/api-keys?cursor=nonsense', user.session)).result.message).to.equal('"cursor" is not a valid cursor');
        });

        it('shows a user their own keys only', async () => {
            const [owner, other] = [await register(instance.server), await register(instance.server)];
            await createKey(instance.server, owner, ['apps:read']);
            expect((await call('GET', '/v1/users/me/api-keys', other.session)).result).to.equal([]);
        });
    });

    describe('DELETE /v1/users/me/api-keys/{keyId}', () => {

        it('revokes with 200 and the key object; the key is refused at the very next request', async () => {
            const user = await register(instance.server);
            const key = await createKey(instance.server, user, ['projects:read']);
            expect((await call('GET', '/v1/projects', key.token)).statusCode).to.equal(200);
            const res = await call('DELETE', `/v1/users/me/api-keys/${key.id}`, user.session);
            expect(res.statusCode).to.equal(200);
            expect(Object.keys(res.result).sort()).to.equal(KEY_FIELDS);
            expect(res.result.id).to.equal(key.id);
            const after = await call('GET', '/v1/projects', key.token);
            expect(after.statusCode).to.equal(401);
        });

        it('answers 404 for an unknown, a foreign and an already revoked key', async () => {
            const [owner, other] = [await register(instance.server), await register(instance.server)];
            const key = await createKey(instance.server, owner, ['apps:read']);
            const foreign = await call('DELETE', `/v1/users/me/api-keys/${key.id}`, other.session);
            expect(foreign.statusCode).to.equal(404);
            expect((await call('DELETE', '/v1/users/me/api-keys/key_0000000000000000', owner.session)).payload).to.equal(foreign.payload);
            expect((await call('DELETE', `/v1/users/me/api-keys/${key.id}`, owner.session)).statusCode).to.equal(200);
            expect((await call('DELETE', `/v1/users/me/api-keys/${key.id}`, owner.session)).payload).to.equal(foreign.payload);
        });
    });

    describe('lastUsedAt', () => {

        const settled = () => instance.server.plugins['hostless-auth'].settleUses();

        it('is null before first use, then written at most once a minute', async () => {
            const user = await register(instance.server);
            const key = await createKey(instance.server, user, ['projects:read']);
            const read = async () => (await call('GET', '/v1/users/me/api-keys', user.session)).result.find((k: { id: string }) => k.id === key.id).lastUsedAt;
            expect(await read()).to.equal(null);

            await call('GET', '/v1/projects', key.token);
            await settled();
            const first = await read();
            expect(first).to.be.a.string();

            await call('GET', '/v1/projects', key.token);
            await settled();
            expect(await read(), 'a second use within the minute writes nothing').to.equal(first);

            await knex()('api_keys').where({ id: key.id }).update({ last_used_at: new Date(Date.now() - 61_000).toISOString() });
            await call('GET', '/v1/projects', key.token);
            await settled();
            expect(await read() > first, "a use after a minute writes again").to.be.true();
        });

        it('is written once for uses that arrive together, before the first write lands', async () => {
            const user = await register(instance.server);
            const key = await createKey(instance.server, user, ['projects:read']);
            const writes: unknown[] = [];
            const count = (query: { sql: string; bindings: unknown[] }) => {
                if (/^update .api_keys. set .last_used_at./.test(query.sql) && query.bindings.includes(key.id)) {
                    writes.push(query.bindings);
                }
            };

            knex().on('query', count);
            try {
                const answers = await Promise.all(Array.from({ length: 20 }, () => call('GET', '/v1/projects', key.token)));
                expect(answers.map((res) => res.statusCode)).to.equal(Array(20).fill(200));
                await settled();
            }
            finally {
                knex().off('query', count);
            }

            expect(writes).to.have.length(1);
        });
    });
});
