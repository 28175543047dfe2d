import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { parseApiKey } from '../../../lib/api-key-token';
import { messages } from '../../../plugins/auth/credentials';
import { caller, createKey, register, type TestUser } from '../../helpers/api';
import { eventually } from '../../helpers/apps';
import { testServer, type TestServer } from '../../helpers/server';

// Rolling a key: a new token for the same key, the old one kept for an overlap judged by a clock the test controls,
// every use of the old token in the owner's security trail and the owner told once; a second roll ends the overlap
// of the first; `"overlap": null` ends it at once.
const { describe, it, before, after } = exports.lab = Lab.script();
const { expect } = Code;

const KEY_FIELDS = ['createdAt', 'expiresAt', 'id', 'lastUsedAt', 'name', 'prefix', 'scopes'];
const HOUR_S = 3600;

describe('rolling an API key', () => {

    let instance: TestServer;
    let offset = 0;                                             // the controlled clock: real time moved by this much
    const call = caller(() => instance.server);
    const knex = () => instance.server.app.knex;
    const advance = (seconds: number) => {
        offset += seconds * 1000;
    };

    const events = async (user: TestUser, type: string) => {
        const res = await call('GET', '/v1/users/me/security-events?limit=100', user.session);
        return (res.result as Array<{ type: string; ip: string; data: Record<string, unknown>; credentialId: string }>).filter((event) => event.type === type);
    };

    const notices = (user: TestUser, type: string) => knex()('notifications').where({ user_id: user.id, type });

    before(async () => {
        instance = await testServer({}, { clock: { now: () => new Date(Date.now() + offset) } });
    });

    after(async () => {
        await instance?.stop();
    });

    it('gives the same key a new token; both work inside the overlap, only the new one after it, and the old uses are in the trail', async () => {
        const user = await register(instance.server, 'roller');
        const old = await createKey(instance.server, user, ['projects:read'], { name: 'deploy bot' });
        const before = (await call('GET', '/v1/users/me/api-keys', user.session)).result[0];

        const rolled = await call('POST', `/v1/users/me/api-keys/${old.id}/roll`, user.session, { overlapSeconds: HOUR_S });
        expect(rolled.statusCode, rolled.payload).to.equal(200);
        expect(rolled.headers['cache-control']).to.equal('no-store');
        expect(Object.keys(rolled.result).sort()).to.equal(['apiKey', 'previousTokenExpiresAt', 'token']);
        expect(Object.keys(rolled.result.apiKey).sort()).to.equal(KEY_FIELDS);
        expect(rolled.result.apiKey).to.equal(before);                                  // same id, name, prefix, scopes, expiry
        const fresh: string = rolled.result.token;
        expect(fresh).to.not.equal(old.token);
        expect(parseApiKey(fresh)!.prefix).to.equal(parseApiKey(old.token)!.prefix);
        const overlapEnd = Date.parse(rolled.result.previousTokenExpiresAt);
        expect(overlapEnd - (Date.now() + offset)).to.be.within(HOUR_S * 1000 - 5000, HOUR_S * 1000);

        // Inside the overlap, both tokens work; every use of the old one is recorded.
        for (const token of [old.token, fresh, old.token, `Bearer ${old.token}`]) {
            expect((await call('GET', '/v1/projects', token)).statusCode, token.slice(0, 20)).to.equal(200);
        }

        advance(HOUR_S - 60);
        expect((await call('GET', '/v1/projects', old.token)).statusCode, 'a minute before the end').to.equal(200);

        const uses = await eventually(() => events(user, 'api_key.previous_secret_used'), (found) => found.length === 4, 'the old token\'s uses in the trail');
        for (const use of uses) {
            expect(use.credentialId).to.equal(old.id);
            expect(use.ip).to.equal('127.0.0.1');
            expect(use.data).to.include({ name: 'deploy bot', prefix: before.prefix, overlapEndsAt: rolled.result.previousTokenExpiresAt });
        }

        const told = await eventually(() => notices(user, 'security.api_key_previous_secret_used'), (rows) => rows.length > 0, 'the message about the old token');
        expect(told).to.have.length(1);                                                // once, however many uses
        expect(told[0].subject).to.equal('The old token of your API key deploy bot is still in use');
        expect(told[0].body).to.include(rolled.result.previousTokenExpiresAt);

        // After the overlap, only the new token works.
        advance(61);
        const refused = await call('GET', '/v1/projects', old.token);
        expect(refused.statusCode).to.equal(401);
        expect(refused.result.message).to.equal(messages.rolledKey);
        expect((await call('GET', '/v1/projects', fresh)).statusCode).to.equal(200);

        const trail = await events(user, 'api_key.rolled');
        expect(trail).to.have.length(1);
        expect(trail[0].data).to.include({ name: 'deploy bot', overlapSeconds: HOUR_S, previousTokenExpiresAt: rolled.result.previousTokenExpiresAt });
        const stored = JSON.stringify(await knex()('security_events').where({ user_id: user.id })) + JSON.stringify(await knex()('notifications').where({ user_id: user.id }));
        for (const token of [old.token, fresh]) {
            expect(stored).to.not.include(parseApiKey(token)!.secret);
        }

        expect((await notices(user, 'security.api_key_rolled'))).to.have.length(1);
    });

    it('ends the previous overlap when the key is rolled again', async () => {
        const user = await register(instance.server);
        const first = await createKey(instance.server, user, ['projects:read']);
        const second = (await call('POST', `/v1/users/me/api-keys/${first.id}/roll`, user.session, { overlapSeconds: 24 * HOUR_S })).result.token as string;
        expect((await call('GET', '/v1/projects', first.token)).statusCode).to.equal(200);

        const third = await call('POST', `/v1/users/me/api-keys/${first.id}/roll`, user.session, { overlapSeconds: 600 });
        expect(third.statusCode).to.equal(200);
        expect((await call('GET', '/v1/projects', first.token)).statusCode, 'the first token, whose overlap had a day left').to.equal(401);
        expect((await call('GET', '/v1/projects', second)).statusCode, 'the second token, now in its own overlap').to.equal(200);
        expect((await call('GET', '/v1/projects', third.result.token)).statusCode).to.equal(200);

        const policy = await call('GET', `/v1/users/me/api-keys/${first.id}/policy`, user.session);
        expect(policy.result.overlap).to.equal({ rolledAt: policy.result.overlap.rolledAt, previousTokenExpiresAt: third.result.previousTokenExpiresAt });
    });

    it('stops the old token at once with an overlap of 0, or when the overlap is ended through the policy', async () => {
        const user = await register(instance.server);
        const key = await createKey(instance.server, user, ['projects:read']);
        const rolled = await call('POST', `/v1/users/me/api-keys/${key.id}/roll`, user.session, { overlapSeconds: 0 });
        expect(rolled.result.previousTokenExpiresAt).to.equal(null);
        expect((await call('GET', '/v1/projects', key.token)).statusCode).to.equal(401);
        expect((await call('GET', `/v1/users/me/api-keys/${key.id}/policy`, user.session)).result).to.equal({ keyId: key.id, allowedCidrs: [], overlap: null });

        const again = await call('POST', `/v1/users/me/api-keys/${key.id}/roll`, user.session, { overlapSeconds: HOUR_S });
        expect((await call('GET', '/v1/projects', rolled.result.token)).statusCode).to.equal(200);
        const ended = await call('PATCH', `/v1/users/me/api-keys/${key.id}/policy`, user.session, { overlap: null });
        expect(ended.statusCode).to.equal(200);
        expect(ended.result.overlap).to.equal(null);
        expect((await call('GET', '/v1/projects', rolled.result.token)).statusCode).to.equal(401);
        expect((await call('GET', '/v1/projects', again.result.token)).statusCode).to.equal(200);
        expect((await events(user, 'api_key.policy_changed'))[0].data).to.include({ overlapEnded: true });
    });

    it('refuses bad overlaps, and unknown, foreign, revoked and expired keys, changing nothing', async () => {
        const owner = await register(instance.server);
        const other = await register(instance.server);
        const key = await createKey(instance.server, owner, ['projects:read'], { expiresAt: new Date(Date.now() + offset + 2 * 24 * 3600_000).toISOString() });
        const url = `/v1/users/me/api-keys/${key.id}/roll`;
        const cases: Array<[unknown, string]> = [
            [{}, '"overlapSeconds" is required'],
            [{ overlapSeconds: -1 }, '"overlapSeconds" must be greater than or equal to 0'],
            [{ overlapSeconds: 30 * 24 * 3600 + 1 }, '"overlapSeconds" must be at most 2592000 (30 days)'],
            [{ overlapSeconds: 1.5 }, '"overlapSeconds" must be an integer'],
            [{ overlapSeconds: 60, name: 'x' }, '"name" is not allowed']
        ];
        for (const [payload, message] of cases) {
            const res = await call('POST', url, owner.session, payload as object);
            expect(res.statusCode, message).to.equal(400);
            expect(res.result.message).to.equal(message);
        }

        const foreign = await call('POST', url, other.session, { overlapSeconds: 60 });
        expect(foreign.statusCode).to.equal(404);
        expect((await call('POST', '/v1/users/me/api-keys/key_0000000000000000/roll', owner.session, { overlapSeconds: 60 })).payload).to.equal(foreign.payload);
        expect((await call('POST', url, key.token, { overlapSeconds: 60 })).statusCode, 'a key cannot roll keys').to.equal(403);

        advance(3 * 24 * HOUR_S);
        const expired = await call('POST', url, owner.session, { overlapSeconds: 60 });
        expect(expired.statusCode).to.equal(409);
        expect(expired.result.message).to.include('create a new key instead');
        expect((await call('GET', '/v1/projects', key.token)).statusCode).to.equal(401);

        await call('DELETE', `/v1/users/me/api-keys/${key.id}`, owner.session);
        expect((await call('POST', url, owner.session, { overlapSeconds: 60 })).statusCode).to.equal(404);
        expect(await knex()('api_keys').where({ id: key.id }).first('rolled_at')).to.equal({ rolled_at: null });
    });
});
