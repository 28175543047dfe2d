import * as Net from 'node:net';

import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { caller, collaborate, register, type TestUser } from '../../helpers/api';
import { createApp, deploymentSettled, eventually } from '../../helpers/apps';
import { dump } from '../../helpers/db';
import { testServer, type TestServer } from '../../helpers/server';

// The databases family under the `records` provisioner: the state machine and its refusals, tiers and storage,
// links from apps (and the deployments that record them), imports through the outbound destination rules, search,
// the events and the allocation history, and the delete that takes everything the database owns with it. The
// `postgres` provisioner's own tests (postgres.ts) run the same routes against a real server.
const { describe, it, before, after } = exports.lab = Lab.script();
const { expect } = Code;

describe('databases (records provisioner)', () => {

    let instance: TestServer;
    let owner: TestUser;
    const call = caller(() => instance.server);
    const available = (name: string, user = owner) => eventually(async () => (await call('GET', `/v1/databases/${name}/details`, user.session)).result,
        (database: any) => database.status === 'available', `${name} to be available`);
    // Jobs held back, so the states between a request and its job can be seen.
    const withoutJobs = async <T>(work: () => Promise<T>): Promise<T> => {
        const { queue } = instance.server.plugins['hostless-jobs'];
        await queue.stop();
        try {
            return await work();
        }
        finally {
            queue.start();
        }
    };
    const create = async (name: string, body: Record<string, unknown> = {}, user = owner) => {
        const res = await call('POST', '/v1/databases', user.session, { name, ...body });
        expect(res.statusCode, res.payload).to.equal(201);
        return available(name, user);
    };

    before(async () => {
        instance = await testServer({ outbound: { allowlist: ['127.0.0.1'] } });
        instance.server.plugins['hostless-jobs'].queue.start();
        owner = await register(instance.server, 'owner');
    });

    after(async () => {
        await instance?.stop();
    });

    it('creates a database provisioning, then available, saying its driver and holding no credential', async () => {
        const res = await call('POST', '/v1/databases', owner.session, { name: 'orders', tier: 'standard', storageGiB: 20 });
        expect(res.statusCode, res.payload).to.equal(201);
        expect(res.result).to.include({ name: 'orders', projectId: owner.projectId, status: 'provisioning', engine: 'postgres', version: '17', tier: 'standard', storageGiB: 20, connectionLimit: 60, driver: 'records', error: null });
        expect(res.result.id).to.match(/^db_[0-9A-Za-z]{16}$/);

        const details = await available('orders');
        expect(details).to.include({ status: 'available', driver: 'records', connection: null, usedBytes: null });
        const listed = await call('GET', '/v1/databases', owner.session);
        expect(listed.result.map((database: any) => database.name)).to.equal(['orders']);
        expect(Object.keys(listed.result[0])).to.not.include(['connection', 'credentials', 'password']);
        expect((await call('GET', `/v1/databases?projectId=${owner.projectId}`, owner.session)).result).to.have.length(1);

        const events = await call('GET', '/v1/databases/orders/search?q=available', owner.session);
        expect(events.result.logs.map((line: any) => line.message)).to.equal(['Available (the records provisioner made nothing)']);
        expect(Object.keys(events.result)).to.equal(['query', 'imports', 'logs']);
    });

    it('refuses a taken name, a version not offered and storage beyond the tier', async () => {
        expect((await call('POST', '/v1/databases', owner.session, { name: 'orders' })).statusCode).to.equal(409);
        const version = await call('POST', '/v1/databases', owner.session, { name: 'old', version: '9' });
        expect(version.statusCode).to.equal(400);
        expect(version.result.message).to.equal('"version" must be one of 17, 16, 15, 14: the PostgreSQL versions this platform offers');
        const storage = await call('POST', '/v1/databases', owner.session, { name: 'huge', storageGiB: 11 });
        expect(storage.result).to.equal({ statusCode: 400, error: 'Bad Request', message: '"storageGiB" must be at most 10 on the starter tier' });
        const engine = await call('POST', '/v1/databases', owner.session, { name: 'mongo', engine: 'mongodb' });
        expect(engine.result.message).to.equal('"engine" must be postgres');
        expect((await call('GET', '/v1/databases/old/details', owner.session)).statusCode).to.equal(404);
    });

    it('moves through pause and unpause, and answers every impossible move with 409 naming the current state', async () => {
        const created = await withoutJobs(async () => {
            const made = await call('POST', '/v1/databases', owner.session, { name: 'states' });
            const early = await call('POST', '/v1/databases/states/pause', owner.session);
            expect(early.statusCode).to.equal(409);
            expect(early.result.message).to.equal('Cannot pause the database states: it is provisioning (it must be available)');
            expect((await call('DELETE', '/v1/databases/states', owner.session)).result.message).to.equal('Cannot delete the database states: it is provisioning (it must be available, paused or failed)');
            expect((await call('PATCH', '/v1/databases/states/tier', owner.session, { tier: 'pro' })).result.message).to.equal('Cannot change the tier or storage of the database states: it is provisioning (it must be available or paused)');
            return made;
        });
        await available('states');

        expect((await call('POST', '/v1/databases/states/unpause', owner.session)).result.message).to.equal('Cannot unpause the database states: it is available (it must be paused)');
        const paused = await call('POST', '/v1/databases/states/pause', owner.session);
        expect(paused.statusCode).to.equal(200);
        expect(paused.result.status).to.equal('paused');
        expect((await call('POST', '/v1/databases/states/pause', owner.session)).result.message).to.equal('Cannot pause the database states: it is paused (it must be available)');
        const importing = await call('POST', '/v1/databases/states/import', owner.session, { sourceUrl: 'postgres://u:p@127.0.0.1/d' });
        expect(importing.result.message).to.equal('Cannot import into the database states: it is paused (it must be available)');
        expect((await call('PATCH', '/v1/databases/states/tier', owner.session, { tier: 'pro' })).result.tier).to.equal('pro');

        const unpaused = await call('POST', '/v1/databases/states/unpause', owner.session);
        expect(unpaused.result.status).to.equal('available');

        const knex = instance.server.app.knex;
        const history = (await knex('allocation_events').where({ resource_id: created.result.id }).orderBy('seq')).map((row: any) => `${row.reason}:${!!row.running}:${row.plan}:${row.storage_gib}`);
        expect(history).to.equal(['created:false:starter:1', 'started:true:starter:1', 'stopped:false:starter:1', 'plan:false:pro:1', 'started:true:pro:1']);
    });

    it('lets one of two simultaneous pauses through and refuses the other', async () => {
        const database = await create('racing');
        const answers = await Promise.all([call('POST', '/v1/databases/racing/pause', owner.session), call('POST', '/v1/databases/racing/pause', owner.session)]);
        expect(answers.map((res) => res.statusCode).sort()).to.equal([200, 409]);
        expect(await instance.server.app.knex('allocation_events').where({ resource_id: database.id, reason: 'stopped' })).to.have.length(1);
    });

    it('changes tier and storage: storage only grows, within the tier; each change is an allocation event', async () => {
        const database = await create('sized', { tier: 'starter', storageGiB: 5 });
        const grown = await call('PATCH', '/v1/databases/sized', owner.session, { storageGiB: 8 });
        expect(grown.result).to.include({ storageGiB: 8, tier: 'starter' });
        expect((await call('PATCH', '/v1/databases/sized', owner.session, { storageGiB: 4 })).result.message).to.equal('Storage can only grow: the database sized has 8 GiB');
        expect((await call('PATCH', '/v1/databases/sized', owner.session, { storageGiB: 50 })).result.message).to.equal('The starter tier holds at most 10 GiB, and the database sized would have 50 GiB');
        const both = await call('PATCH', '/v1/databases/sized', owner.session, { tier: 'standard', storageGiB: 50 });
        expect(both.result).to.include({ tier: 'standard', storageGiB: 50, connectionLimit: 60 });
        expect((await call('PATCH', '/v1/databases/sized/tier', owner.session, { tier: 'starter' })).statusCode).to.equal(409);
        expect((await call('PATCH', '/v1/databases/sized', owner.session, {})).result.message).to.equal('The request body must change at least one field');
        expect((await call('PATCH', '/v1/databases/sized', owner.session, { name: 'renamed' })).statusCode).to.equal(400);

        const history = (await instance.server.app.knex('allocation_events').where({ resource_id: database.id }).orderBy('seq')).map((row: any) => `${row.reason}:${row.plan}:${row.storage_gib}`);
        expect(history).to.equal(['created:starter:5', 'started:starter:5', 'storage:starter:8', 'plan:standard:8', 'storage:standard:50']);
    });

    describe('links from apps', () => {

        it('records the databases an app links, in linked-apps and in the app\'s next deployment', async () => {
            await create('shop-db');
            await create('shop-cache');
            const app = await createApp(instance.server, owner);
            const linked = await call('PATCH', `/v1/apps/${app.name}`, owner.session, { databases: ['shop-db', 'shop-cache'] });
            expect(linked.statusCode, linked.payload).to.equal(200);

            const apps = await call('GET', '/v1/databases/shop-db/linked-apps', owner.session);
            expect(apps.result).to.have.length(1);
            expect(apps.result[0]).to.include({ type: 'app', id: app.id, name: app.name, projectId: owner.projectId });

            const deployment = await call('POST', `/v1/apps/${app.name}/deployments/new`, owner.session, {});
            expect(deployment.result.configuration.databases).to.equal(['shop-cache', 'shop-db']);
            await deploymentSettled(instance.server, owner, app.name, deployment.result.id);

            expect((await call('PATCH', `/v1/apps/${app.name}`, owner.session, { databases: ['shop-cache'] })).statusCode).to.equal(200);
            expect((await call('GET', '/v1/databases/shop-db/linked-apps', owner.session)).result).to.equal([]);
            const next = await call('POST', `/v1/apps/${app.name}/deployments/new`, owner.session, {});
            expect(next.result.configuration.databases).to.equal(['shop-cache']);
            await deploymentSettled(instance.server, owner, app.name, next.result.id);

            expect((await call('DELETE', `/v1/apps/${app.name}`, owner.session)).statusCode).to.equal(204);
            expect((await call('GET', '/v1/databases/shop-cache/linked-apps', owner.session)).result).to.equal([]);
        });

        it('gives the same 400 for a database of another project as for one that exists nowhere, and links nothing', async () => {
            const stranger = await register(instance.server, 'stranger');
            await call('POST', '/v1/databases', stranger.session, { name: 'theirs' });
            const team = (await call('POST', '/v1/projects', owner.session, { name: 'Team' })).result;
            await call('POST', '/v1/databases', owner.session, { name: 'team-db', projectId: team.id });
            const app = await createApp(instance.server, owner);

            const messages: string[] = [];
            for (const name of ['theirs', 'nowhere', 'team-db']) {
                const refused = await call('PATCH', `/v1/apps/${app.name}`, owner.session, { databases: ['shop-cache', name], buildCommand: 'make' });
                expect(refused.statusCode, name).to.equal(400);
                messages.push(refused.result.message.replace(name, '<name>'));
            }

            expect(new Set(messages).size).to.equal(1);
            expect(messages[0]).to.equal('"databases" must name databases of the app\'s project: there is no "<name>" in it');
            expect((await call('GET', `/v1/apps/${app.name}`, owner.session)).result.buildCommand).to.equal(null);
            expect((await call('GET', '/v1/databases/shop-cache/linked-apps', owner.session)).result).to.equal([]);
            expect((await call('PATCH', `/v1/apps/${app.name}`, owner.session, { databases: ['Bad_Name'] })).statusCode).to.equal(400);
        });

        it('refuses a collaborator of the app, who holds the app and not its project', async () => {
            const app = await createApp(instance.server, owner);
            const helper = await register(instance.server, 'helper');
            await collaborate(instance.server, owner, `/v1/apps/${app.name}`, helper, ['manage']);
            const refused = await call('PATCH', `/v1/apps/${app.name}`, helper.session, { databases: ['shop-cache'] });
            expect(refused.statusCode).to.equal(403);
            expect(refused.result.message).to.equal('Linking databases needs a role in the project: a collaborator holds this resource only');
            expect((await call('PATCH', `/v1/apps/${app.name}`, helper.session, { buildCommand: 'make' })).statusCode).to.equal(200);
        });
    });

    describe('imports', () => {

        it('refuses a source the destination rules refuse, naming the field and never the URL', async () => {
            const strict = await testServer();
            try {
                const user = await register(strict.server, 'strict');
                await strict.server.inject({ method: 'POST', url: '/v1/databases', headers: { authorization: user.session }, payload: { name: 'strict-db' } });
                strict.server.plugins['hostless-jobs'].queue.start();
                await eventually(async () => (await caller(() => strict.server)('GET', '/v1/databases/strict-db/details', user.session)).result.status, (status) => status === 'available', 'available');
                for (const [host, kind] of [['127.0.0.1', 'loopback'], ['10.1.2.3', 'private'], ['169.254.169.254', 'link-local'], ['[::1]', 'loopback']]) {
                    const res = await caller(() => strict.server)('POST', '/v1/databases/strict-db/import', user.session, { sourceUrl: `postgres://admin:hunter2secret@${host}:5432/prod` });
                    expect(res.statusCode, host).to.equal(400);
                    expect(res.result.message, host).to.equal(`"sourceUrl" is refused: ${host.replace(/[[\]]/g, '')} resolves to a ${kind} address, which is not allowed`);
                    expect(res.payload).to.not.include('hunter2secret');
                }

                expect((await caller(() => strict.server)('GET', '/v1/databases/strict-db/details', user.session)).result.status).to.equal('available');
            }
            finally {
                await strict.stop();
            }
        });

        it('refuses a source URL that is not one postgres database, without repeating it', async () => {
            for (const [url, problem] of [
                ['mysql://u:topsecret1@db.example.com/x', 'must be a postgres:// or postgresql:// URL'],
                ['postgres://db.example.com/x', 'must name the user to connect as (postgres://user:password@host/name)'],
                ['postgres://u:topsecret1@db.example.com', 'must name one database after the host (postgres://user:password@host:5432/name)'],
                ['postgres://u:topsecret1@db.example.com/x?host=/var/run/postgresql', 'may carry only the sslmode parameter'],
                ['postgres://u:topsecret1@db.example.com/x?sslmode=sometimes', 'has an unknown sslmode (use disable, allow, prefer, require, verify-ca, verify-full)'],
                ['not a url topsecret1', 'must be a URL such as postgres://user:password@db.example.com:5432/name']
            ]) {
                const res = await call('POST', '/v1/databases/orders/import', owner.session, { sourceUrl: url });
                expect(res.statusCode, url).to.equal(400);
                expect(res.result.message, url).to.equal(`"sourceUrl" ${problem}`);
                expect(res.payload).to.not.include('topsecret1');
            }
        });

        it('imports (copying nothing under records) with status and logs, and keeps the source password out of every answer, line and row', async () => {
            const started = await call('POST', '/v1/databases/orders/import', owner.session, { sourceUrl: 'postgresql://reader:s3cret-Source-pw@127.0.0.1:5439/shop?sslmode=disable' });
            expect(started.statusCode, started.payload).to.equal(202);
            expect(started.result).to.include({ databaseName: 'orders', status: 'queued', driver: 'records', source: 'postgresql://reader@127.0.0.1:5439/shop?sslmode=disable', error: null });
            expect(started.result.id).to.match(/^cln_[0-9A-Za-z]{16}$/);
            expect(['importing', 'available']).to.include((await call('GET', '/v1/databases/orders/details', owner.session)).result.status);

            const url = `/v1/databases/orders/import/${started.result.id}`;
            const done = await eventually(async () => (await call('GET', `${url}/status`, owner.session)).result, (status: any) => status.status === 'succeeded', 'the import');
            expect(done.finishedAt).to.be.a.string();
            expect((await available('orders')).status).to.equal('available');
            const logs = await call('GET', `${url}/logs`, owner.session);
            expect(logs.result.map((line: any) => line.message)).to.equal([
                'Import started (attempt 1 of 5, records provisioner)',
                'Source 127.0.0.1:5439/shop accepted',
                'The records provisioner keeps state only: no data was copied',
                'Import succeeded'
            ]);
            expect((await call('GET', `${url}/logs?level=warn`, owner.session)).result).to.have.length(1);
            const found = await call('GET', `/v1/databases/orders/search?q=${started.result.id.slice(4, 12)}`, owner.session);
            expect(found.result.imports.map((item: any) => item.id)).to.equal([started.result.id]);

            const everything = JSON.stringify(await dump(instance.server.app.knex));
            expect(everything).to.not.include('s3cret-Source-pw');
            expect(instance.logs.join('')).to.not.include('s3cret-Source-pw');
            expect(JSON.stringify([started.result, done, logs.result, found.result])).to.not.include('s3cret-Source-pw');
        });

        it('ends an import whose source cannot be resolved failed, with the reason, the database available again', async () => {
            const started = await call('POST', '/v1/databases/orders/import', owner.session, { sourceUrl: 'postgres://reader:pw@no-such-host.invalid/shop' });
            expect(started.statusCode).to.equal(202);
            const url = `/v1/databases/orders/import/${started.result.id}`;
            const failed = await eventually(async () => (await call('GET', `${url}/status`, owner.session)).result, (status: any) => status.status === 'failed', 'the import to fail');
            expect(failed.error).to.equal('The source host no-such-host.invalid could not be resolved');
            expect((await available('orders')).status).to.equal('available');
            expect((await call('GET', `${url}/logs?level=error`, owner.session)).result.map((line: any) => line.message)).to.equal(['Import failed: The source host no-such-host.invalid could not be resolved']);
            expect((await call('GET', `/v1/databases/shop-db/import/${started.result.id}/status`, owner.session)).statusCode, 'another database\'s import').to.equal(404);
        });
    });

    it('answers 503 without a change when the provisioner\'s server cannot be reached, never the server\'s own words', async () => {
        const closed = await new Promise<number>((resolve) => {
            const probe = Net.createServer().listen(0, '127.0.0.1', () => {
                const { port } = probe.address() as Net.AddressInfo;
                probe.close(() => resolve(port));
            });
        });
        const unreachable = await testServer({ databases: { provisionerUrl: `postgres://admin:Adm1n-pw@127.0.0.1:${closed}/postgres`, publicHost: null, publicPort: null, binDir: null, importTimeoutMs: 60_000 } });
        try {
            const user = await register(unreachable.server, 'unreachable');
            const res = await caller(() => unreachable.server)('POST', '/v1/databases', user.session, { name: 'never-made' });
            expect(res.statusCode).to.equal(503);
            expect(res.result.message).to.equal('The database server did not make the change (it could not be reached, or refused it): nothing was changed; try again');
            expect(await unreachable.server.app.knex('databases')).to.equal([]);
            expect(unreachable.logs.join('')).to.not.include('Adm1n-pw');
        }
        finally {
            await unreachable.stop();
        }
    });

    it('deletes a database deleting, then gone with its events, imports and links; its allocation history stays', async () => {
        const database = await create('doomed');
        const app = await createApp(instance.server, owner);
        await call('PATCH', `/v1/apps/${app.name}`, owner.session, { databases: ['doomed'] });
        await withoutJobs(async () => {
            const deleting = await call('DELETE', '/v1/databases/doomed', owner.session);
            expect(deleting.statusCode).to.equal(202);
            expect(deleting.result.status).to.equal('deleting');
            expect((await call('POST', '/v1/databases/doomed/pause', owner.session)).result.message).to.equal('Cannot pause the database doomed: it is deleting (it must be available)');
            expect((await call('DELETE', '/v1/databases/doomed', owner.session)).result.message).to.equal('Cannot delete the database doomed: it is deleting (it must be available, paused or failed)');
            expect((await call('GET', '/v1/databases/doomed/linked-apps', owner.session)).result).to.have.length(1);
        });
        await eventually(async () => (await call('GET', '/v1/databases/doomed/details', owner.session)).statusCode, (status) => status === 404, 'the database to go');

        const knex = instance.server.app.knex;
        expect(await knex('log_lines').where({ resource_id: database.id })).to.equal([]);
        expect(await knex('database_links').where({ database_id: database.id })).to.equal([]);
        const history = (await knex('allocation_events').where({ resource_id: database.id }).orderBy('seq')).map((row: any) => `${row.reason}:${!!row.running}:${row.storage_gib}`);
        expect(history).to.equal(['created:false:1', 'started:true:1', 'deleted:false:0']);
        expect((await call('POST', '/v1/databases', owner.session, { name: 'doomed' })).statusCode, 'the name is free again').to.equal(201);
    });
});

describe('the database state machine, every state against every action', () => {

    let instance: TestServer;
    let owner: TestUser;
    const call = caller(() => instance.server);
    const STATES = ['provisioning', 'available', 'paused', 'importing', 'deleting', 'failed'];
    const ACTIONS: Array<{ action: string; method: string; path: string; payload?: object; allowed: string[]; verb: string }> = [
        { action: 'pause', method: 'POST', path: 'pause', allowed: ['available'], verb: 'pause' },
        { action: 'unpause', method: 'POST', path: 'unpause', allowed: ['paused'], verb: 'unpause' },
        { action: 'tier', method: 'PATCH', path: 'tier', payload: { tier: 'pro' }, allowed: ['available', 'paused'], verb: 'change the tier or storage of' },
        { action: 'patch', method: 'PATCH', path: '', payload: { storageGiB: 2 }, allowed: ['available', 'paused'], verb: 'change the tier or storage of' },
        { action: 'import', method: 'POST', path: 'import', payload: { sourceUrl: 'postgres://u:p@no-such-host.invalid/d' }, allowed: ['available'], verb: 'import into' },
        { action: 'delete', method: 'DELETE', path: '', allowed: ['available', 'paused', 'failed'], verb: 'delete' }
    ];

    before(async () => {
        instance = await testServer();                          // no job runs: each state stays as it is set
        owner = await register(instance.server, 'owner');
    });

    after(async () => {
        await instance?.stop();
    });

    for (const state of STATES) {
        for (const { action, method, path, payload, allowed, verb } of ACTIONS) {
            const ok = allowed.includes(state);
            it(`${ok ? 'lets' : 'refuses with 409'} ${action} when it is ${state}`, async () => {
                const name = `m-${state}-${action}`;
                expect((await call('POST', '/v1/databases', owner.session, { name })).statusCode).to.equal(201);
                await instance.server.app.knex('databases').where({ name }).update({ status: state });
                const res = await call(method, `/v1/databases/${name}${path ? `/${path}` : ''}`, owner.session, payload);
                if (ok) {
                    expect(res.statusCode, res.payload).to.be.within(200, 202);
                    return;
                }

                expect(res.statusCode).to.equal(409);
                const needs = allowed.length > 1 ? `${allowed.slice(0, -1).join(', ')} or ${allowed[allowed.length - 1]}` : allowed[0];
                expect(res.result.message).to.equal(`Cannot ${verb} the database ${name}: it is ${state} (it must be ${needs})`);
                expect((await instance.server.app.knex('databases').where({ name }).first()).status).to.equal(state);
            });
        }
    }
});
