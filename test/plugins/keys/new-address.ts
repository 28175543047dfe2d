import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { caller, createKey, register } from '../../helpers/api';
import { eventually } from '../../helpers/apps';
import { testServer, type TestServer } from '../../helpers/server';

// A key used from an address it has never been used from: the first address is its baseline, every later new one is
// an `api_key.new_address` event, with an email at most once a day per key. Repeated uses write nothing more.
const { describe, it, before, after } = exports.lab = Lab.script();
const { expect } = Code;

describe('a key used from a new address', () => {

    let instance: TestServer;
    let offset = 0;
    const call = caller(() => instance.server);
    const knex = () => instance.server.app.knex;
    const from = (token: string, remoteAddress: string) => instance.server.inject({ method: 'GET', url: '/v1/projects', remoteAddress, headers: { authorization: token } });

    before(async () => {
        instance = await testServer({}, { clock: { now: () => new Date(Date.now() + offset) } });
    });

    after(async () => {
        await instance?.stop();
    });

    it('records every new address after the first, and emails the owner at most once a day', async () => {
        const user = await register(instance.server, 'wanderer');
        const key = await createKey(instance.server, user, ['projects:read'], { name: 'roaming' });
        const addresses = () => knex()('api_key_addresses').where({ key_id: key.id }).orderBy('first_seen_at').pluck('ip') as Promise<string[]>;
        const newAddresses = async () => ((await call('GET', '/v1/users/me/security-events', user.session)).result as Array<{ type: string; ip: string }>)
            .filter((event) => event.type === 'api_key.new_address').map((event) => event.ip);
        const emails = () => knex()('notifications').where({ user_id: user.id, type: 'security.api_key_new_address' });

        for (let i = 0; i < 3; ++i) {
            expect((await from(key.token, '203.0.113.9')).statusCode).to.equal(200);
        }

        await eventually(addresses, (found) => found.length === 1, 'the first address');
        expect(await newAddresses(), 'the first address is the baseline').to.equal([]);

        expect((await from(key.token, '2001:db8::7')).statusCode).to.equal(200);
        await eventually(newAddresses, (found) => found.length === 1, 'the second address in the trail');
        const [email] = await eventually(emails, (rows) => rows.length === 1, 'the email');
        expect(email.subject).to.equal('Your API key roaming was used from a new address: 2001:db8::7');

        expect((await from(key.token, '198.51.100.7')).statusCode).to.equal(200);
        expect((await from(key.token, '203.0.113.9')).statusCode, 'an address seen before').to.equal(200);
        await eventually(newAddresses, (found) => found.length === 2, 'the third address in the trail');
        expect(await emails(), 'one email a day per key').to.have.length(1);

        offset = 25 * 3600_000;
        expect((await from(key.token, '192.0.2.44')).statusCode).to.equal(200);
        await eventually(emails, (rows) => rows.length === 2, 'the next day\'s email');
        expect(await newAddresses()).to.equal(['192.0.2.44', '198.51.100.7', '2001:db8::7']);
        expect(await addresses()).to.equal(['203.0.113.9', '2001:db8::7', '198.51.100.7', '192.0.2.44']);
        offset = 0;
    });
});
