import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { caller, createKey, login, register } from '../../helpers/api';
import { eventually } from '../../helpers/apps';
import { pageText, signedUp } from '../../helpers/dashboard';
import { testServer, type TestServer } from '../../helpers/server';

// Key health: the address of a key's last use and its warnings (no expiry, unused for 90 days, scopes not used in 30
// days), each shown for a key made to match it by moving a clock the test controls; the dashboard's key page shows
// them; API_KEY_MAX_LIFETIME_DAYS caps the expiry of new keys.
const { describe, it, before, after } = exports.lab = Lab.script();
const { expect } = Code;

const DAY_MS = 24 * 3600_000;

describe('API key health (GET /v1/users/me/api-keys/health)', () => {

    let instance: TestServer;
    let offset = 0;
    const call = caller(() => instance.server);
    const inDays = (days: number) => new Date(Date.now() + days * DAY_MS).toISOString();
    const use = (token: string, url = '/v1/projects', remoteAddress = '203.0.113.9') => instance.server.inject({ method: 'GET', url, remoteAddress, headers: { authorization: token } });

    before(async () => {
        instance = await testServer({}, { clock: { now: () => new Date(Date.now() + offset) } });
    });

    after(async () => {
        await instance?.stop();
    });

    it('lists each live key with the address of its last use and a warning for each problem it has', async () => {
        const user = await register(instance.server, 'health');
        await createKey(instance.server, user, ['projects:read'], { name: 'forever' });
        await createKey(instance.server, user, ['projects:read'], { name: 'idle', expiresAt: inDays(400) });
        const broad = await createKey(instance.server, user, ['projects:read', 'apps:read', 'apps:write'], { name: 'broad', expiresAt: inDays(400) });
        const tidy = await createKey(instance.server, user, ['projects:read'], { name: 'tidy', expiresAt: inDays(400) });
        const gone = await createKey(instance.server, user, ['projects:read'], { name: 'gone' });
        await call('DELETE', `/v1/users/me/api-keys/${gone.id}`, user.session);

        const health = async () => {
            const res = await call('GET', '/v1/users/me/api-keys/health', user.session);
            expect(res.statusCode).to.equal(200);
            return new Map((res.result as Array<{ name: string; lastUsedIp: string | null; warnings: Array<{ code: string; message: string; scopes?: string[] }> }>).map((entry) => [entry.name, entry]));
        };

        const fresh = await health();
        expect([...fresh.keys()]).to.equal(['tidy', 'broad', 'idle', 'forever']);          // newest first, revoked keys left out
        expect(fresh.get('forever')!.warnings.map((w) => w.code)).to.equal(['no_expiry']);
        expect(fresh.get('tidy')!.warnings, 'a new key with an expiry').to.equal([]);
        expect(Object.keys(fresh.get('tidy')!).sort()).to.equal(['createdAt', 'expiresAt', 'id', 'lastUsedAt', 'lastUsedIp', 'name', 'prefix', 'warnings']);

        // Used today: broad exercises apps:read and projects:read (never apps:write); the address of the use is kept.
        expect((await use(broad.token, '/v1/apps')).statusCode).to.equal(200);
        expect((await use(broad.token)).statusCode).to.equal(200);
        const refused = await use(broad.token, '/v1/users/me/api-keys');
        expect(refused.statusCode, 'a refused route exercises nothing').to.equal(403);
        await eventually(health, (found) => found.get('broad')!.lastUsedIp === '203.0.113.9', 'the address of the last use');
        await eventually(() => instance.server.app.knex('api_keys').where({ id: broad.id }).first('scope_uses'),
            (row: { scope_uses: string | null }) => Object.keys(JSON.parse(row.scope_uses ?? '{}')).length === 2, 'the scopes used today');

        // 31 days later: broad used projects:read again, today; tidy used everything it holds.
        offset = 31 * DAY_MS;
        expect((await use(broad.token)).statusCode).to.equal(200);
        expect((await use(tidy.token)).statusCode).to.equal(200);
        await eventually(() => instance.server.app.knex('api_keys').whereIn('id', [broad.id, tidy.id]).pluck('scope_uses'),
            (rows: Array<string | null>) => rows.every((uses) => uses?.includes(new Date(Date.now() + offset).toISOString().slice(0, 10))), 'the scopes used 31 days later');
        const month = await health();
        expect(month.get('broad')!.warnings).to.equal([{
            code: 'unused_scopes', scopes: ['apps:read', 'apps:write'],
            message: 'The key has not used these scopes in 30 days: apps:read, apps:write. A key with fewer scopes does less harm if it leaks.'
        }]);
        expect(month.get('tidy')!.warnings).to.equal([]);
        expect(month.get('idle')!.warnings.map((w) => w.code), 'not used, but not 90 days old').to.equal(['unused_scopes']);

        // 91 days later: idle has never been used; forever neither.
        offset = 91 * DAY_MS;
        const quarter = await health();
        expect(quarter.get('idle')!.warnings.map((w) => w.code)).to.equal(['unused', 'unused_scopes']);
        expect(quarter.get('forever')!.warnings.map((w) => w.code)).to.equal(['no_expiry', 'unused', 'unused_scopes']);
        expect(quarter.get('tidy')!.warnings.map((w) => w.code), 'last used 60 days ago').to.equal(['unused_scopes']);
        offset = 0;
    });

    it('pages like the key list, and the dashboard\'s key page shows the warnings', async () => {
        const { visitor, email, password } = await signedUp(instance.server);
        const user = await login(instance.server, { email, password });
        for (const name of ['a', 'b', 'c']) {
            expect((await call('POST', '/v1/users/me/api-keys', user.session, { name, scopes: ['projects:read'] })).statusCode).to.equal(201);
        }

        const first = await call('GET', '/v1/users/me/api-keys/health?limit=2', user.session);
        expect(first.result.map((k: { name: string }) => k.name)).to.equal(['c', 'b']);
        const next = /<([^>]+)>; rel="next"/.exec(first.headers.link as string)![1];
        expect((await call('GET', next, user.session)).result.map((k: { name: string }) => k.name)).to.equal(['a']);

        const page = await visitor.get('/dashboard/keys');
        expect(page.statusCode).to.equal(200);
        expect(pageText(page.payload)).to.contain('Warnings for a: The key never expires: give new keys an expiry, and roll long-lived ones regularly.');
        expect(page.payload).to.contain('data-warning="no_expiry"');
    });
});

describe('API_KEY_MAX_LIFETIME_DAYS', () => {

    let instance: TestServer;
    const call = caller(() => instance.server);

    before(async () => {
        instance = await testServer({ apiKeys: { maxLifetimeDays: 30 } });
    });

    after(async () => {
        await instance?.stop();
    });

    it('caps the expiry of new keys, with a 400 naming the cap', async () => {
        const user = await register(instance.server);
        const create = (expiresAt?: string | null) => call('POST', '/v1/users/me/api-keys', user.session, { name: 'k', scopes: ['projects:read'], ...(expiresAt !== undefined ? { expiresAt } : {}) });
        for (const expiresAt of [undefined, null]) {
            const res = await create(expiresAt);
            expect(res.statusCode).to.equal(400);
            expect(res.result.message).to.equal('"expiresAt" is required: API keys on this deployment expire within 30 days (API_KEY_MAX_LIFETIME_DAYS)');
        }

        const late = await create(new Date(Date.now() + 31 * DAY_MS).toISOString());
        expect(late.statusCode).to.equal(400);
        expect(late.result.message as string).to.startWith('"expiresAt" must be at most 30 days from now (API_KEY_MAX_LIFETIME_DAYS), no later than 20');
        expect(await instance.server.app.knex('api_keys').where({ user_id: user.id })).to.have.length(0);

        expect((await create(new Date(Date.now() + 29 * DAY_MS).toISOString())).statusCode).to.equal(201);
    });
});
