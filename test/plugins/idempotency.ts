import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';
import type { Server } from '@hapi/hapi';

import { fingerprint } from '../../lib/idempotency';
import { deployment } from '../../manifest';
import { caller, register, type TestUser } from '../helpers/api';
import { eventually } from '../helpers/apps';
import { manualClock } from '../helpers/clock';
import { testServer, type TestServer } from '../helpers/server';

const { describe, it, before, after } = exports.lab = Lab.script();
const { expect } = Code;

describe('Idempotency-Key', () => {

    let instance: TestServer;
    let user: TestUser;
    const clock = manualClock();
    const call = caller(() => instance.server);
    const projects = async (name: string) => Number((await instance.server.app.knex('projects').where({ name }).count({ n: '*' }))[0].n);
    const keyRows = (userId: string) => instance.server.app.knex('idempotency_keys').where({ user_id: userId });
    const withKey = (key: string) => ({ 'idempotency-key': key });

    before(async () => {
        instance = await testServer({}, { clock });
        user = await register(instance.server, 'idem');
    });

    after(async () => {
        await instance?.stop();
    });

    it('answers a replay with the first answer, runs the handler once and keeps the answer sealed', async () => {
        const first = await call('POST', '/v1/projects', user.session, { name: 'Replayed once' }, withKey('create-1'));
        expect(first.statusCode).to.equal(201);
        expect(first.headers['idempotent-replayed']).to.not.exist();

        const again = await call('POST', '/v1/projects', user.session, { name: 'Replayed once' }, withKey('create-1'));
        expect(again.statusCode).to.equal(201);
        expect(again.headers['idempotent-replayed']).to.equal('true');
        expect(String(again.headers['content-type'])).to.startWith('application/json');
        expect(JSON.parse(again.payload)).to.equal(JSON.parse(first.payload));
        expect(await projects('Replayed once')).to.equal(1);

        const [row] = await keyRows(user.id).where({ key: 'create-1' });
        expect(row.state).to.equal('done');
        expect(row.response as string).to.startWith('v1.');
        expect(row.response).to.not.contain('Replayed once');
        expect(row.route_id).to.equal('projects.create');

        // Without the header, or with another key, the request runs again.
        expect((await call('POST', '/v1/projects', user.session, { name: 'Replayed once' }, withKey('create-2'))).statusCode).to.equal(201);
        expect((await call('POST', '/v1/projects', user.session, { name: 'Replayed once' })).statusCode).to.equal(201);
        expect(await projects('Replayed once')).to.equal(3);
    });

    it('refuses the same key with another body with 422, and keys by user and route', async () => {
        expect((await call('POST', '/v1/projects', user.session, { name: 'Body one' }, withKey('body-key'))).statusCode).to.equal(201);
        const other = await call('POST', '/v1/projects', user.session, { name: 'Body two' }, withKey('body-key'));
        expect(other.statusCode).to.equal(422);
        expect(other.result).to.equal({ statusCode: 422, error: 'Unprocessable Entity', message: 'This Idempotency-Key was used with another request (method, path, query or body): use a new key for a new request' });
        expect(await projects('Body two')).to.equal(0);

        // Key order in the body does not make another request.
        const app = await call('POST', '/v1/apps', user.session, { name: 'idem-order', plan: 'starter' }, withKey('order'));
        expect(app.statusCode).to.equal(201);
        const reordered = await call('POST', '/v1/apps', user.session, { plan: 'starter', name: 'idem-order' }, withKey('order'));
        expect(reordered.statusCode).to.equal(201);
        expect(reordered.headers['idempotent-replayed']).to.equal('true');

        // Another user's key of the same name is theirs; the same key on another route is another key.
        const stranger = await register(instance.server, 'idem-other');
        expect((await call('POST', '/v1/projects', stranger.session, { name: 'Body two' }, withKey('body-key'))).statusCode).to.equal(201);
        const restart = await call('POST', '/v1/apps/idem-order/restart', user.session, undefined, withKey('body-key'));
        expect(restart.statusCode).to.not.equal(422);
    });

    it('refuses the header with 400 on routes whose answer shows a secret once, on uploads and when malformed', async () => {
        const key = await call('POST', '/v1/users/me/api-keys', user.session, { name: 'k', scopes: ['projects:read'] }, withKey('secret'));
        expect(key.statusCode).to.equal(400);
        expect(key.result.message).to.equal('This route shows a secret once and does not take an Idempotency-Key: send the request without it');
        const client = await call('POST', '/v1/users/me/oauth-clients', user.session, { name: 'c', redirectUris: ['https://example.com/cb'] }, withKey('secret'));
        expect(client.statusCode).to.equal(400);
        expect((await call('POST', '/v1/users/me/api-keys', user.session, { name: 'k', scopes: ['projects:read'] })).statusCode).to.equal(201);

        for (const bad of ['', 'has space', 'x'.repeat(256), 'é']) {
            const res = await call('POST', '/v1/projects', user.session, { name: 'Bad key' }, withKey(bad));
            expect(res.statusCode, bad).to.equal(400);
            expect(res.result.message).to.equal('The Idempotency-Key header must be 1 to 255 visible ASCII characters');
        }

        expect(await projects('Bad key')).to.equal(0);
        expect(await keyRows(user.id).where({ key: 'secret' })).to.equal([]);
    });

    it('keeps only successes: a failed request lets the key go', async () => {
        expect((await call('POST', '/v1/apps', user.session, { name: 'idem-taken', plan: 'starter' })).statusCode).to.equal(201);
        const taken = await call('POST', '/v1/apps', user.session, { name: 'idem-taken', plan: 'starter' }, withKey('retry'));
        expect(taken.statusCode).to.equal(409);
        expect(await keyRows(user.id).where({ key: 'retry' })).to.equal([]);
        const retried = await call('POST', '/v1/apps', user.session, { name: 'idem-taken', plan: 'starter' }, withKey('retry'));
        expect(retried.statusCode).to.equal(409);
        expect(retried.headers['idempotent-replayed']).to.not.exist();
    });

    it('checks the credential of a replay like any request', async () => {
        const other = await register(instance.server, 'idem-logout');
        expect((await call('POST', '/v1/projects', other.session, { name: 'Logout replay' }, withKey('k'))).statusCode).to.equal(201);
        expect((await call('POST', '/v1/auth/logout', other.session)).statusCode).to.be.below(300);
        expect((await call('POST', '/v1/projects', other.session, { name: 'Logout replay' }, withKey('k'))).statusCode).to.equal(401);
    });

    it('makes concurrent replays wait for the first, whose row is the lock in the database', async () => {
        // Several at once: one runs, the others wait and answer its answer.
        const answers = await Promise.all([1, 2, 3, 4].map(() => call('POST', '/v1/projects', user.session, { name: 'Concurrent' }, withKey('together'))));
        expect(answers.map((res) => res.statusCode)).to.equal([201, 201, 201, 201]);
        expect(new Set(answers.map((res) => res.payload)).size).to.equal(1);
        expect(answers.filter((res) => res.headers['idempotent-replayed']).length).to.equal(3);
        expect(await projects('Concurrent')).to.equal(1);

        // A first request still running elsewhere (its pending row): the replay waits until its answer is stored.
        const store = instance.server.plugins['hostless-idempotency'].store;
        const claim = { userId: user.id, routeId: 'projects.create', key: 'elsewhere' };
        await instance.server.app.knex('idempotency_keys').insert({
            user_id: user.id, route_id: 'projects.create', key: 'elsewhere', state: 'pending', response: null,
            fingerprint: fingerprint('POST', '/v1/projects', {}, { name: 'Elsewhere' }),
            created_at: clock.now().toISOString(), expires_at: new Date(clock.now().getTime() + 86_400_000).toISOString()
        });
        let settled = false;
        const waiting = call('POST', '/v1/projects', user.session, { name: 'Elsewhere' }, withKey('elsewhere')).finally(() => {
            settled = true;
        });
        const checks = async (n: number) => {
            for (let i = 0; i < n; ++i) {
                await instance.server.app.knex('idempotency_keys').where({ key: 'elsewhere' }).first();      // the replay has polled meanwhile
            }
        };

        await checks(20);
        expect(settled).to.be.false();
        await store.finish(claim, { statusCode: 201, headers: { 'content-type': 'application/json; charset=utf-8' }, payload: '{"id":"prj_fromelsewhere00"}' });
        const res = await waiting;
        expect(res.statusCode).to.equal(201);
        expect(JSON.parse(res.payload)).to.equal({ id: 'prj_fromelsewhere00' });
        expect(await projects('Elsewhere')).to.equal(0);

        // The first request failed elsewhere (its row deleted): the waiting replay runs itself.
        await instance.server.app.knex('idempotency_keys').insert({
            user_id: user.id, route_id: 'projects.create', key: 'failed', state: 'pending', response: null,
            fingerprint: fingerprint('POST', '/v1/projects', {}, { name: 'After failure' }),
            created_at: clock.now().toISOString(), expires_at: new Date(clock.now().getTime() + 86_400_000).toISOString()
        });
        const after = call('POST', '/v1/projects', user.session, { name: 'After failure' }, withKey('failed'));
        await checks(5);
        await store.release({ ...claim, key: 'failed' });
        expect((await after).statusCode).to.equal(201);
        expect(await projects('After failure')).to.equal(1);
    });

    it('holds across two servers on the same database', async () => {
        const second: Server = await deployment({ config: instance.config, log: () => undefined, clock });
        try {
            const other = caller(() => second);
            const answers = await Promise.all([
                call('POST', '/v1/projects', user.session, { name: 'Two servers' }, withKey('two')),
                other('POST', '/v1/projects', user.session, { name: 'Two servers' }, withKey('two')),
                other('POST', '/v1/projects', user.session, { name: 'Two servers' }, withKey('two'))
            ]);
            expect(answers.map((res) => res.statusCode)).to.equal([201, 201, 201]);
            expect(new Set(answers.map((res) => res.payload)).size).to.equal(1);
            expect(await projects('Two servers')).to.equal(1);
            expect((await other('POST', '/v1/projects', user.session, { name: 'Two servers!' }, withKey('two'))).statusCode).to.equal(422);
        }
        finally {
            await second.stop();
        }
    });

    it('forgets answers after 24 hours, and the hourly job deletes them', async () => {
        const other = await register(instance.server, 'idem-expiry');
        expect((await call('POST', '/v1/projects', other.session, { name: 'Day one' }, withKey('daily'))).statusCode).to.equal(201);
        clock.advance(23 * 3600 * 1000);
        expect((await call('POST', '/v1/projects', other.session, { name: 'Day one' }, withKey('daily'))).headers['idempotent-replayed']).to.equal('true');
        expect((await call('POST', '/v1/projects', other.session, { name: 'Day one' }, withKey('later'))).statusCode).to.equal(201);

        clock.advance(2 * 3600 * 1000);
        const fresh = await call('POST', '/v1/projects', other.session, { name: 'Day two' }, withKey('daily'));
        expect(fresh.statusCode).to.equal(201);
        expect(fresh.headers['idempotent-replayed']).to.not.exist();
        expect(await projects('Day two')).to.equal(1);

        clock.advance(24 * 3600 * 1000);
        expect((await keyRows(other.id)).length).to.equal(2);
        const queue = instance.server.plugins['hostless-jobs'].queue;
        const job = await queue.enqueue('idempotency.prune', {});
        queue.start();
        try {
            await eventually(() => queue.get(job.id), (record) => record?.status === 'succeeded', 'the prune job');
        }
        finally {
            await queue.stop();
        }

        expect(await keyRows(other.id)).to.equal([]);
        expect(await instance.server.plugins['hostless-idempotency'].store.prune()).to.equal(0);
    });

    it('is listed in the OpenAPI document on the routes that honour it', async () => {
        const res = await call('GET', '/v1/openapi.json');
        const paths = JSON.parse(res.payload).paths;
        const names = (op: { parameters?: Array<{ name: string }> }) => (op.parameters ?? []).map((p) => p.name);
        expect(names(paths['/v1/projects'].post)).to.include('Idempotency-Key');
        expect(Object.keys(paths['/v1/projects'].post.responses)).to.include(['201', '409', '422']);
        expect(paths['/v1/projects'].post.responses['201'].headers['Idempotent-Replayed']).to.exist();
        expect(names(paths['/v1/users/me/api-keys'].post)).to.not.include('Idempotency-Key');
        expect(names(paths['/v1/projects'].get)).to.not.include('Idempotency-Key');
    });
});
