import * as Fs from 'node:fs';
import * as Os from 'node:os';
import * as Path from 'node:path';

import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';
import pg from 'pg';

import { caller, createKey, register, type TestUser } from '../../helpers/api';
import { eventually } from '../../helpers/apps';
import { dump } from '../../helpers/db';
import { connectApp } from '../../helpers/oauth';
import { alive, pgBin, processesMentioning, startCluster, type PgCluster } from '../../helpers/pg-cluster';
import { testServer, type TestServer } from '../../helpers/server';

// The `postgres` provisioner against a PostgreSQL cluster of the test's own (initdb --auth=scram-sha-256, started as
// the postgres OS user on a free port, stopped and deleted after, even when a test fails): a database made through
// the API is a role that logs in with SCRAM (a wrong password really fails) and owns its database; pausing refuses
// and ends connections; an import really copies a second database, restored as the database's own role, and a
// failed one leaves it as it was; the provisioner touches nothing without its marker; delete drops both. Needs
// TEST_PG_BIN (e.g. /usr/lib/postgresql/15/bin); without it these tests report themselves skipped.
const { describe, it, before, after } = exports.lab = Lab.script();
const { expect } = Code;

describe('databases (postgres provisioner)', { skip: !pgBin }, () => {

    let cluster: PgCluster | null = null;
    let instance: TestServer;
    let owner: TestUser;
    let admin: pg.Client;
    let clusterProcesses: number[] = [];
    let serverStopped = false;
    const call = caller(() => instance.server);
    const clients: pg.Client[] = [];

    const connect = async (options: { user: string; password: string; database: string }) => {
        const client = new pg.Client({ host: cluster!.host, port: cluster!.port, ...options, connectionTimeoutMillis: 10_000 });
        client.on('error', () => { });                          // a connection the server ends is an expected outcome here
        await client.connect();
        clients.push(client);
        return client;
    };
    const refused = async (options: { user: string; password: string; database: string }) => {
        const error = await connect(options).then(() => null, (err: Error) => err);
        expect(error, 'the connection was accepted').to.be.an.error();
        return error!.message;
    };
    const status = (name: string, wanted: string) => eventually(async () => (await call('GET', `/v1/databases/${name}/details`, owner.session)).result,
        (database: any) => database.status === wanted, `${name} to be ${wanted}`, 30_000);
    const importSettled = (name: string, id: string) => eventually(async () => (await call('GET', `/v1/databases/${name}/import/${id}/status`, owner.session)).result,
        (found: any) => found.status === 'succeeded' || found.status === 'failed', `import ${id}`, 60_000);
    const onServer = async (sql: string, params: unknown[] = []) => (await admin.query(sql, params)).rows;

    before({ timeout: 120_000 }, async () => {
        cluster = await startCluster();
        clusterProcesses = cluster.processes();
        admin = new pg.Client({ connectionString: cluster.url });
        await admin.connect();
        instance = await testServer({
            outbound: { allowlist: ['127.0.0.1'] },
            databases: { provisionerUrl: cluster.url, publicHost: null, publicPort: null, binDir: pgBin, importTimeoutMs: 120_000 }
        });
        instance.server.plugins['hostless-jobs'].queue.start();
        owner = await register(instance.server, 'owner');

        // The second database an import copies: its own role, a table and rows.
        await admin.query('CREATE ROLE shop_reader LOGIN PASSWORD \'reader-Pa55word\'');
        await admin.query('CREATE DATABASE shop OWNER shop_reader');
        const source = await connect({ user: 'shop_reader', password: 'reader-Pa55word', database: 'shop' });
        await source.query('CREATE TABLE orders (id serial PRIMARY KEY, item text NOT NULL)');
        await source.query('INSERT INTO orders (item) VALUES (\'lamp\'), (\'desk\'), (\'chair\')');
        await source.end();
    });

    after({ timeout: 60_000 }, async () => {
        await Promise.all(clients.map((client) => client.end().catch(() => { })));
        await admin?.end().catch(() => { });
        if (!serverStopped) {
            await instance?.stop();
        }

        await cluster?.stop();
    });

    let credentials: { host: string; port: number; database: string; username: string; password: string; connectionString: string };
    let physical: string;

    it('creates a role with a SCRAM password and a database it owns, and gives its connection to those allowed to see secrets', async () => {
        const created = await call('POST', '/v1/databases', owner.session, { name: 'inventory' });
        expect(created.statusCode, created.payload).to.equal(201);
        expect(created.result).to.include({ status: 'provisioning', driver: 'postgres', version: '15' });
        const details = await status('inventory', 'available');
        physical = `hl_${created.result.id.toLowerCase()}`;
        expect(details.connection).to.include({ host: '127.0.0.1', port: cluster!.port, database: physical, username: physical, set: true });
        expect(details.connection.password).to.match(/^[0-9A-Za-z]{32}$/);
        expect(details.connection.connectionString).to.equal(`postgresql://${physical}:${details.connection.password}@127.0.0.1:${cluster!.port}/${physical}`);
        expect(details.usedBytes as number).to.be.above(0);
        credentials = { ...details.connection };

        const [role] = await onServer('SELECT rolcanlogin, rolconnlimit, rolsuper, rolcreaterole, rolcreatedb, rolpassword FROM pg_authid WHERE rolname = $1', [physical]);
        expect(role).to.include({ rolcanlogin: true, rolconnlimit: 20, rolsuper: false, rolcreaterole: false, rolcreatedb: false });
        expect(role.rolpassword as string).to.startWith('SCRAM-SHA-256$4096:');
        const [database] = await onServer('SELECT pg_get_userbyid(datdba) AS owner, datconnlimit, shobj_description(oid, \'pg_database\') AS marker FROM pg_database WHERE datname = $1', [physical]);
        expect(database).to.equal({ owner: physical, datconnlimit: 20, marker: `hostless:${created.result.id}` });

        expect(await refused({ user: physical, password: 'not-the-password', database: physical })).to.include('password authentication failed');
        const client = await connect({ user: physical, password: credentials.password, database: physical });
        await client.query('CREATE TABLE notes (body text)');
        await client.query('INSERT INTO notes VALUES ($1)', ['written with the returned credentials']);
        expect((await client.query('SELECT current_user AS who')).rows[0].who).to.equal(physical);
        await client.end();
        expect(await refused({ user: 'shop_reader', password: 'reader-Pa55word', database: physical }), 'another role').to.include('permission denied for database');

        // What an app linking it gets in its processes' environment (the process runtime reads it when they start).
        const project = (await call('GET', '/v1/databases/inventory/details', owner.session)).result.projectId as string;
        const { links, knex } = instance.server.plugins['hostless-resources'].services;
        expect(await links.environment(knex, project, ['inventory'])).to.equal({ DATABASE_URL: details.connection.connectionString, DATABASE_URL_INVENTORY: details.connection.connectionString });
    });

    it('shows the password to no key without databases:write and to no OAuth token, and keeps it out of lists and rows', async () => {
        const reader = (await createKey(instance.server, owner, ['databases:read'])).token;
        const writer = (await createKey(instance.server, owner, ['databases:read', 'databases:write'])).token;
        const oauth = await connectApp(instance.server, owner, { scope: 'databases:read' });
        for (const [who, authorization] of [['a reading key', reader], ['an OAuth token', `Bearer ${oauth.accessToken}`]] as const) {
            const details = await call('GET', '/v1/databases/inventory/details', authorization);
            expect(details.statusCode, who).to.equal(200);
            expect(details.result.connection, who).to.equal({ host: '127.0.0.1', port: cluster!.port, database: physical, username: physical, password: null, connectionString: null, set: true });
        }

        expect((await call('GET', '/v1/databases/inventory/details', writer)).result.connection.password).to.equal(credentials.password);
        const listed = await call('GET', '/v1/databases', writer);
        expect(JSON.stringify(listed.result)).to.not.include(credentials.password);
        expect(JSON.stringify(await dump(instance.server.app.knex))).to.not.include(credentials.password);
        expect(instance.logs.join('')).to.not.include(credentials.password);
    });

    it('changes the tier\'s connection limit on the server', async () => {
        expect((await call('PATCH', '/v1/databases/inventory/tier', owner.session, { tier: 'standard' })).result.connectionLimit).to.equal(60);
        const [role] = await onServer('SELECT rolconnlimit FROM pg_roles WHERE rolname = $1', [physical]);
        const [database] = await onServer('SELECT datconnlimit FROM pg_database WHERE datname = $1', [physical]);
        expect([role.rolconnlimit, database.datconnlimit]).to.equal([60, 60]);
    });

    it('pauses by refusing connections and ending the open ones, and unpauses', async () => {
        const open = await connect({ user: physical, password: credentials.password, database: physical });
        const paused = await call('POST', '/v1/databases/inventory/pause', owner.session);
        expect(paused.statusCode, paused.payload).to.equal(200);
        expect(paused.result.status).to.equal('paused');
        expect(await open.query('SELECT 1').then(() => 'still open', (err: Error) => err.message)).to.not.equal('still open');
        expect(await refused({ user: physical, password: credentials.password, database: physical })).to.include('not permitted to log in');

        expect((await call('POST', '/v1/databases/inventory/unpause', owner.session)).result.status).to.equal('available');
        const again = await connect({ user: physical, password: credentials.password, database: physical });
        expect((await again.query('SELECT body FROM notes')).rows).to.equal([{ body: 'written with the returned credentials' }]);
        await again.end();
    });

    it('imports a second database with a real copy, restored as the database\'s own role, with progress in the import\'s logs', async () => {
        const started = await call('POST', '/v1/databases/inventory/import', owner.session, { sourceUrl: `postgres://shop_reader:reader-Pa55word@127.0.0.1:${cluster!.port}/shop` });
        expect(started.statusCode, started.payload).to.equal(202);
        const done = await importSettled('inventory', started.result.id);
        expect(done, JSON.stringify(done)).to.include({ status: 'succeeded', driver: 'postgres', error: null, source: `postgresql://shop_reader@127.0.0.1:${cluster!.port}/shop` });
        expect((await status('inventory', 'available')).status).to.equal('available');

        const client = await connect({ user: physical, password: credentials.password, database: physical });
        expect((await client.query('SELECT item FROM orders ORDER BY id')).rows.map((row) => row.item)).to.equal(['lamp', 'desk', 'chair']);
        expect((await client.query('SELECT tableowner FROM pg_tables WHERE tablename = \'orders\'')).rows).to.equal([{ tableowner: physical }]);
        expect((await client.query('SELECT to_regclass(\'notes\') AS notes')).rows[0].notes, 'the contents were replaced').to.equal(null);
        await client.query('INSERT INTO orders (item) VALUES (\'shelf\')');
        await client.end();

        const lines = (await call('GET', `/v1/databases/inventory/import/${started.result.id}/logs`, owner.session)).result.map((line: any) => line.message);
        expect(lines).to.include([`Copying from 127.0.0.1:${cluster!.port}/shop as shop_reader`, 'pg_dump: dumping contents of table "public.orders"', 'pg_restore: processing data for table "public.orders"', 'Import succeeded']);
        expect(JSON.stringify(lines)).to.not.include('reader-Pa55word');
        expect(await onServer('SELECT datname FROM pg_database WHERE datname LIKE $1', [`${physical}_%`])).to.equal([]);
    });

    it('ends an import with a wrong source password, or an unreachable source, failed with the reason and the database as it was', async () => {
        const closed = await (async () => {
            const probe = await import('node:net');
            return new Promise<number>((resolve) => {
                const server = probe.createServer().listen(0, '127.0.0.1', () => {
                    const { port } = server.address() as import('node:net').AddressInfo;
                    server.close(() => resolve(port));
                });
            });
        })();
        for (const [url, reason] of [
            [`postgres://shop_reader:wrong-password@127.0.0.1:${cluster!.port}/shop`, 'password authentication failed for user "shop_reader"'],
            [`postgres://shop_reader:reader-Pa55word@127.0.0.1:${closed}/shop`, 'Connection refused']
        ] as const) {
            const started = await call('POST', '/v1/databases/inventory/import', owner.session, { sourceUrl: url });
            expect(started.statusCode, started.payload).to.equal(202);
            const done = await importSettled('inventory', started.result.id);
            expect(done.status).to.equal('failed');
            expect(done.error as string).to.startWith('The source could not be read: ');
            expect(done.error).to.include(reason);
            expect(done.error).to.not.include('wrong-password');
            await status('inventory', 'available');
            expect(await onServer('SELECT datname FROM pg_database WHERE datname LIKE $1', [`${physical}_%`]), 'no half-imported copy').to.equal([]);
        }

        const client = await connect({ user: physical, password: credentials.password, database: physical });
        expect((await client.query('SELECT item FROM orders ORDER BY id')).rows.map((row) => row.item)).to.equal(['lamp', 'desk', 'chair', 'shelf']);
        await client.end();
    });

    it('touches nothing that lacks its marker: the change is refused with 409 and the server left as it was', async () => {
        await admin.query(`COMMENT ON ROLE ${pg.escapeIdentifier(physical)} IS 'somebody else''s'`);
        const res = await call('POST', '/v1/databases/inventory/pause', owner.session);
        expect(res.statusCode).to.equal(409);
        expect(res.result.message).to.equal(`The server has a role ${physical} that this platform did not create: it was left alone`);
        expect((await status('inventory', 'available')).status).to.equal('available');
        const [role] = await onServer('SELECT rolcanlogin FROM pg_roles WHERE rolname = $1', [physical]);
        expect(role.rolcanlogin).to.be.true();
        await admin.query(`COMMENT ON ROLE ${pg.escapeIdentifier(physical)} IS ${pg.escapeLiteral((await onServer('SELECT shobj_description(oid, \'pg_database\') AS m FROM pg_database WHERE datname = $1', [physical]))[0].m)}`);
    });

    it('deletes the database and its role from the server', async () => {
        const deleted = await call('DELETE', '/v1/databases/inventory', owner.session);
        expect(deleted.statusCode).to.equal(202);
        await eventually(async () => (await call('GET', '/v1/databases/inventory/details', owner.session)).statusCode, (code) => code === 404, 'the database to go', 30_000);
        expect(await onServer('SELECT datname FROM pg_database WHERE datname LIKE $1', [`${physical}%`])).to.equal([]);
        expect(await onServer('SELECT rolname FROM pg_roles WHERE rolname = $1', [physical])).to.equal([]);
        expect(await onServer('SELECT datname FROM pg_database WHERE datname = \'shop\''), 'what it did not make stays').to.have.length(1);
    });

    it('stops and deletes its cluster and leaves no process behind', { timeout: 60_000 }, async () => {
        expect(processesMentioning('hostless-import-'), 'pg_dump or pg_restore still running').to.equal([]);
        await Promise.all(clients.map((client) => client.end().catch(() => { })));
        await admin.end();
        await instance.stop();
        serverStopped = true;
        const seen = [...new Set([...clusterProcesses, ...cluster!.processes()])];
        const dir = cluster!.dir;
        await cluster!.stop();
        cluster = null;
        expect(seen.filter(alive), 'cluster processes alive after stop').to.equal([]);
        expect(Fs.existsSync(dir)).to.be.false();
        expect(Fs.readdirSync(Os.tmpdir()).filter((name) => name.startsWith('hostless-import-') && Fs.statSync(Path.join(Os.tmpdir(), name)).isDirectory()), 'import folders left').to.equal([]);
    });
});
