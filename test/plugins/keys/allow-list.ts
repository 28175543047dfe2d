import * as Code from '@hapi/code';
import type { ServerInjectResponse } from '@hapi/hapi';
import * as Lab from '@hapi/lab';

import { messages } from '../../../plugins/auth/credentials';
import { caller, createKey, register, type TestUser } from '../../helpers/api';
import { eventually } from '../../helpers/apps';
import { digest } from '../../helpers/db';
import { forgedKeys } from '../../helpers/route-cases';
import { testServer, type TestServer } from '../../helpers/server';

// Address allow-lists: a key refused (403) from anywhere its list does not name, with the attempt in the trail; the
// address is the connection's, or X-Forwarded-For's only from a proxy in TRUSTED_PROXIES; the check reads nothing
// beyond the key's own row.
const { describe, it, before, after } = exports.lab = Lab.script();
const { expect } = Code;

const RANGES = ['203.0.113.0/24', '2001:db8::/32'];

async function allowListedKey(instance: TestServer, user: TestUser, ranges: string[] = RANGES): Promise<{ id: string; token: string }> {
    const key = await createKey(instance.server, user, ['projects:read']);
    const res = await caller(() => instance.server)('PATCH', `/v1/users/me/api-keys/${key.id}/policy`, user.session, { allowedCidrs: ranges });
    expect(res.statusCode, res.payload).to.equal(200);
    return key;
}

const from = (instance: TestServer, token: string, remoteAddress: string, forwardedFor?: string): Promise<ServerInjectResponse<any>> => instance.server.inject({
    method: 'GET', url: '/v1/projects', remoteAddress, headers: { authorization: token, ...(forwardedFor ? { 'x-forwarded-for': forwardedFor } : {}) }
});

describe('API key address allow-lists', () => {

    describe('on a server that trusts no proxy', () => {

        let instance: TestServer;
        const call = caller(() => instance.server);

        before(async () => {
            instance = await testServer();
        });

        after(async () => {
            await instance?.stop();
        });

        it('holds canonical IPv4 and IPv6 ranges, and an empty list means any address', async () => {
            const user = await register(instance.server);
            const key = await createKey(instance.server, user, ['projects:read']);
            const url = `/v1/users/me/api-keys/${key.id}/policy`;
            expect((await call('GET', url, user.session)).result).to.equal({ keyId: key.id, allowedCidrs: [], overlap: null });

            const set = await call('PATCH', url, user.session, { allowedCidrs: ['203.0.113.0/24', '198.51.100.7', '2001:DB8:0:0::/32', ' 2001:db8:1::1 '] });
            expect(set.statusCode, set.payload).to.equal(200);
            expect(set.result.allowedCidrs).to.equal(['203.0.113.0/24', '198.51.100.7/32', '2001:db8::/32', '2001:db8:1::1/128']);
            expect((await call('GET', url, user.session)).result.allowedCidrs).to.equal(set.result.allowedCidrs);
            expect((await from(instance, key.token, '192.0.2.1')).statusCode).to.equal(403);

            const cleared = await call('PATCH', url, user.session, { allowedCidrs: [] });
            expect(cleared.result.allowedCidrs).to.equal([]);
            expect((await from(instance, key.token, '192.0.2.1')).statusCode).to.equal(200);
        });

        it('refuses a bad list with a 400 naming the entry, and changes nothing', async () => {
            const user = await register(instance.server);
            const key = await allowListedKey(instance, user);
            const url = `/v1/users/me/api-keys/${key.id}/policy`;
            const cases: Array<[unknown, string]> = [
                [{ allowedCidrs: ['203.0.113.0/24', 'not-a-range'] }, '"allowedCidrs[1]" is not an IPv4 or IPv6 address range (like 203.0.113.0/24, 2001:db8::/32 or a single address)'],
                [{ allowedCidrs: ['10.1.2.3/8'] }, '"allowedCidrs[0]" has bits set past its prefix length: the range it names is 10.0.0.0/8'],
                [{ allowedCidrs: ['10.0.0.0/33'] }, '"allowedCidrs[0]" has a prefix length above 32'],
                [{ allowedCidrs: ['2001:db8::/129'] }, '"allowedCidrs[0]" has a prefix length above 128'],
                [{ allowedCidrs: ['::ffff:10.0.0.0/104'] }, '"allowedCidrs[0]" is an IPv4-mapped IPv6 range: write it as an IPv4 range'],
                [{ allowedCidrs: ['10.0.0.0/8', '10.0.0.0/8'] }, '"allowedCidrs[1]" must not hold the same item twice'],
                [{ allowedCidrs: Array.from({ length: 33 }, (_, i) => `10.0.${i}.0/24`) }, '"allowedCidrs" must hold at most 32 items'],
                [{ allowedCidrs: '10.0.0.0/8' }, '"allowedCidrs" must be an array'],
                [{}, 'The request body must change at least one field'],
                [{ overlap: 5 }, '"overlap" can only be set to null, which ends the overlap now']
            ];
            const before = await digest(instance.server.app.knex);
            for (const [payload, message] of cases) {
                const res = await call('PATCH', url, user.session, payload as object);
                expect(res.statusCode, message).to.equal(400);
                expect(res.result.message).to.equal(message);
            }

            expect(await digest(instance.server.app.knex)).to.equal(before);
            expect((await call('GET', url, user.session)).result.allowedCidrs).to.equal(RANGES);
        });

        it('refuses the key from elsewhere with 403 naming the address, records the attempt, and accepts it from inside', async () => {
            const user = await register(instance.server);
            const key = await allowListedKey(instance, user);

            const refused = await from(instance, key.token, '198.51.100.7');
            expect(refused.statusCode).to.equal(403);
            expect(refused.result).to.equal({ statusCode: 403, error: 'Forbidden', message: messages.addressRefused('198.51.100.7') });
            expect((await from(instance, key.token, '2001:db9::1')).statusCode).to.equal(403);
            expect((await from(instance, key.token, '::ffff:198.51.100.7')).statusCode, 'an IPv4-mapped address is judged as IPv4').to.equal(403);

            for (const address of ['203.0.113.9', '::ffff:203.0.113.200', '2001:db8:ffff::5']) {
                expect((await from(instance, key.token, address)).statusCode, address).to.equal(200);
            }

            const refusals = async () => ((await call('GET', '/v1/users/me/security-events', user.session)).result as Array<{ type: string; ip: string; credentialId: string }>)
                .filter((event) => event.type === 'api_key.address_refused');
            const attempts = await eventually(refusals, (found) => found.length === 3, 'the refused attempts in the trail');
            expect(attempts.map((event) => event.ip).sort()).to.equal(['198.51.100.7', '198.51.100.7', '2001:db9::1']);
            expect(attempts[0].credentialId).to.equal(key.id);
        });

        it('answers a wrong secret with 401 wherever it comes from: the allow-list comes after the credential', async () => {
            const user = await register(instance.server);
            const key = await allowListedKey(instance, user);
            for (const token of Object.values(forgedKeys(key.token))) {
                expect((await from(instance, token, '198.51.100.7')).statusCode).to.equal(401);
            }

            await call('DELETE', `/v1/users/me/api-keys/${key.id}`, user.session);
            expect((await from(instance, key.token, '198.51.100.7')).result.message).to.equal(messages.revokedKey);
        });

        it('does not believe X-Forwarded-For from a connection it does not trust', async () => {
            const user = await register(instance.server);
            const key = await allowListedKey(instance, user);
            expect((await from(instance, key.token, '127.0.0.1', '203.0.113.9')).statusCode).to.equal(403);
            expect((await from(instance, key.token, '203.0.113.9', '198.51.100.7')).statusCode, 'nor against the connection').to.equal(200);
        });

        it('reads nothing more than a key without a list: the check is in memory on the row already read', async () => {
            const user = await register(instance.server);
            const plain = await createKey(instance.server, user, ['projects:read']);
            const listed = await allowListedKey(instance, user);
            const statements = async (token: string) => {
                await from(instance, token, '203.0.113.9');                          // the once-a-minute writes happen here
                await instance.server.plugins['hostless-auth'].settleUses();
                const seen: string[] = [];
                const onQuery = (query: { sql: string }) => seen.push(query.sql);
                const { reader } = instance.server.plugins['hostless-auth'];
                instance.server.app.knex.on('query', onQuery);
                reader.observe((sql) => seen.push(sql));
                try {
                    expect((await from(instance, token, '203.0.113.9')).statusCode).to.equal(200);
                    await instance.server.plugins['hostless-auth'].settleUses();
                }
                finally {
                    instance.server.app.knex.removeListener('query', onQuery);
                    reader.observe(null);
                }

                return seen;
            };

            expect(await statements(listed.token)).to.equal(await statements(plain.token));
        });
    });

    describe('behind proxies', () => {

        let trusting: TestServer;
        let elsewhere: TestServer;

        before(async () => {
            trusting = await testServer({ trustedProxies: ['127.0.0.1', '10.0.0.0/8'] }, { start: true });
            elsewhere = await testServer({ trustedProxies: ['10.9.9.9'] });
        });

        after(async () => {
            await trusting?.stop();
            await elsewhere?.stop();
        });

        it('accepts the key behind a trusted proxy that forwards an allowed address, and refuses a disallowed one', async () => {
            const user = await register(trusting.server);
            const key = await allowListedKey(trusting, user);
            expect((await from(trusting, key.token, '127.0.0.1', '203.0.113.9')).statusCode).to.equal(200);
            expect((await from(trusting, key.token, '10.1.1.1', '198.51.100.7, 203.0.113.9, 10.2.2.2')).statusCode, 'the rightmost address no trusted proxy holds').to.equal(200);
            expect((await from(trusting, key.token, '127.0.0.1', '203.0.113.9, 198.51.100.7')).statusCode, 'a forged address to the left changes nothing').to.equal(403);
            expect((await from(trusting, key.token, '127.0.0.1', '198.51.100.7')).result.message).to.equal(messages.addressRefused('198.51.100.7'));
            expect((await from(trusting, key.token, '127.0.0.1', 'not-an-address')).result.message).to.equal(messages.addressRefused(null));
        });

        it('does the same over a real connection, where the socket gives the proxy\'s address', async () => {
            const user = await register(trusting.server);
            const key = await allowListedKey(trusting, user);
            const get = (forwardedFor: string) => fetch(`${trusting.server.info.uri}/v1/projects`, { headers: { authorization: key.token, 'x-forwarded-for': forwardedFor } });
            expect((await get('203.0.113.9')).status).to.equal(200);
            const refused = await get('198.51.100.7');
            expect(refused.status).to.equal(403);
            expect(((await refused.json()) as { message: string }).message).to.equal(messages.addressRefused('198.51.100.7'));
        });

        it('refuses the key behind a proxy that is not trusted, whatever it forwards', async () => {
            const user = await register(elsewhere.server);
            const key = await allowListedKey(elsewhere, user);
            const refused = await from(elsewhere, key.token, '127.0.0.1', '203.0.113.9');
            expect(refused.statusCode).to.equal(403);
            expect(refused.result.message).to.equal(messages.addressRefused('127.0.0.1'));
            expect((await from(elsewhere, key.token, '10.9.9.9', '203.0.113.9')).statusCode).to.equal(200);
        });

        it('records the forwarded address in the security trail, as every event does', async () => {
            const user = await register(trusting.server);
            const res = await trusting.server.inject({
                method: 'POST', url: '/v1/users/me/api-keys', remoteAddress: '127.0.0.1',
                headers: { authorization: user.session, 'x-forwarded-for': '203.0.113.77' }, payload: { name: 'k', scopes: ['projects:read'] }
            });
            expect(res.statusCode).to.equal(201);
            const events = (await caller(() => trusting.server)('GET', '/v1/users/me/security-events', user.session)).result as Array<{ type: string; ip: string }>;
            expect(events.find((event) => event.type === 'api_key.created')!.ip).to.equal('203.0.113.77');
        });
    });
});
