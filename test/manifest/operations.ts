import * as ChildProcess from 'node:child_process';
import * as Http from 'node:http';
import * as Net from 'node:net';
import * as Path from 'node:path';

import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { deployment } from '../../manifest';
import { caller, createKey, register } from '../helpers/api';
import { createApp, eventually } from '../helpers/apps';
import { postgresUrl, testDatabase, testServer, type TestServer } from '../helpers/server';

const { describe, it, before, after } = exports.lab = Lab.script();
const { expect } = Code;

describe('operations', () => {

    describe('readiness', () => {

        let instance: TestServer;
        const call = caller(() => instance.server);

        before(async () => {
            instance = await testServer();
        });

        after(async () => {
            await instance?.stop();
        });

        it('answers /livez and /readyz without a credential, and /v1/health to sessions only', async () => {
            expect((await call('GET', '/livez')).result).to.equal({ status: 'ok' });
            expect((await call('GET', '/readyz')).result).to.equal({ status: 'ok' });
            const user = await register(instance.server, 'health');
            const detail = await call('GET', '/v1/health', user.session);
            expect(detail.statusCode).to.equal(200);
            expect(detail.result).to.include({ status: 'ok', version: '0.1.0' });
            expect(detail.result.database).to.include({ dialect: instance.config.database.client, pendingMigrations: 0 });
            expect(detail.result.database.migrations as number).to.be.above(10);
            expect(detail.result.process.pid).to.equal(process.pid);
            expect((await call('GET', '/v1/health')).statusCode).to.equal(401);
        });

        it('fails /readyz while migrations run (another process holds the migration lock) or are pending', async () => {
            const knex = instance.server.app.knex;
            await knex('knex_migrations_lock').update({ is_locked: 1 });
            try {
                const res = await call('GET', '/readyz');
                expect(res.statusCode).to.equal(503);
                expect(res.result).to.equal({ statusCode: 503, error: 'Service Unavailable', message: 'Database migrations are running' });
            }
            finally {
                await knex('knex_migrations_lock').update({ is_locked: 0 });
            }

            expect((await call('GET', '/readyz')).statusCode).to.equal(200);

            const last = await knex('knex_migrations').orderBy('id', 'desc').first();
            await knex('knex_migrations').where({ id: last.id }).delete();
            try {
                const res = await call('GET', '/readyz');
                expect(res.statusCode).to.equal(503);
                expect(res.result.message).to.equal('Database migrations are pending');
            }
            finally {
                await knex('knex_migrations').insert(last);
            }

            expect((await call('GET', '/readyz')).statusCode).to.equal(200);
        });
    });

    describe('request log', () => {

        it('writes one JSON line per request with its request id, route id and credential id, and no secret', async () => {
            const instance = await testServer();
            const call = caller(() => instance.server);
            try {
                const user = await register(instance.server, 'logline');
                const key = await createKey(instance.server, user, ['projects:read']);
                const before = instance.logs.length;
                const res = await call('GET', '/v1/projects', `Bearer ${key.token}`);
                expect(res.statusCode).to.equal(200);
                const denied = await call('GET', '/v1/apps', `Bearer ${key.token}`);
                expect(denied.statusCode).to.equal(403);
                const lines = instance.logs.slice(before).map((line) => JSON.parse(line) as Record<string, unknown>);
                expect(lines).to.have.length(2);
                expect(lines[0]).to.include({ level: 'info', requestId: res.headers['x-request-id'], route: 'projects.list', method: 'GET', path: '/v1/projects', status: 200, via: 'key', credentialId: key.id });
                expect(lines[1]).to.include({ requestId: denied.headers['x-request-id'], route: 'apps.list', status: 403 });
                expect(lines[0].requestId).to.not.equal(lines[1].requestId);
                expect(instance.logs.join('')).to.not.include(key.token);
                expect(instance.logs.join('')).to.not.include(user.accessToken);
            }
            finally {
                await instance.stop();
            }
        });
    });

    describe('an unreachable database', { skip: !postgresUrl }, () => {

        it('fails /readyz while PostgreSQL cannot be reached, and passes again when it can', async () => {
            // The server reaches PostgreSQL through a relay on 127.0.0.1 that the test cuts and restores.
            const db = await testDatabase({ postgres: true });
            const target = new URL(postgresUrl!);
            const sockets = new Set<Net.Socket>();
            const relay = Net.createServer((client) => {
                const upstream = Net.connect(Number(target.port || 5432), target.hostname);
                for (const socket of [client, upstream]) {
                    sockets.add(socket);
                    socket.on('close', () => sockets.delete(socket)).on('error', () => undefined);
                }

                client.pipe(upstream).pipe(client);
            });
            await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
            const port = (relay.address() as Net.AddressInfo).port;
            const viaRelay = new URL((db.database as { connectionString: string }).connectionString);
            viaRelay.hostname = '127.0.0.1';
            viaRelay.port = String(port);

            const instance = await testServer({ database: { ...db.database as { connectionString: string }, client: 'postgres', connectionString: viaRelay.toString() } });
            const call = caller(() => instance.server);
            try {
                expect((await call('GET', '/readyz')).statusCode).to.equal(200);

                await new Promise<void>((resolve) => {
                    relay.close(() => resolve());
                    for (const socket of sockets) {
                        socket.destroy();
                    }
                });
                const down = await call('GET', '/readyz');
                expect(down.statusCode).to.equal(503);
                expect(down.result.message).to.equal('The database is unreachable');
                expect((await call('GET', '/livez')).statusCode).to.equal(200);

                await new Promise<void>((resolve) => relay.listen(port, '127.0.0.1', resolve));
                await eventually(async () => (await call('GET', '/readyz')).statusCode, (status) => status === 200, 'readiness to come back');
                // knex's word on the pooled connection the database ended (said when the pool next hands it out) is a
                // line of the server's log, not console output.
                const said = instance.logs.map((line) => JSON.parse(line) as Record<string, unknown>).filter((line) => line.source === 'database');
                expect(said.length).to.be.above(0);
                expect(said[0].level).to.equal('warn');
                expect(said[0].message).to.equal('Connection Error: Connection ended unexpectedly');
            }
            finally {
                await instance.stop();
                relay.close();
                for (const socket of sockets) {
                    socket.destroy();
                }

                await db.stop();
            }
        });
    });

    describe('SIGTERM', () => {

        // The child transpiles the whole server as it loads (scripts/ts-register.js): tens of seconds on a busy machine.
        it('stops accepting, finishes the request and the job in flight, and exits 0', { timeout: 240_000 }, async () => {
            const first = await testServer({ runtime: { driver: 'records', recordsStepDelayMs: 200 } });
            const owner = await register(first.server, 'sigterm');
            const app = await createApp(first.server, owner);
            const config = { ...first.config, jobs: { mode: 'all' as const, concurrency: 2 }, runtime: { driver: 'records' as const, recordsStepDelayMs: 200 } };
            await first.server.stop();                                      // its database stays; the child serves it

            const child = ChildProcess.fork(Path.join(__dirname, '..', 'fixtures', 'api-server.ts'), [JSON.stringify(config)], {
                execArgv: ['-r', Path.join(__dirname, '..', '..', 'scripts', 'ts-register.js')], stdio: ['ignore', 'pipe', 'inherit', 'ipc']
            });
            let output = '';
            child.stdout!.on('data', (chunk: Buffer) => {
                output += chunk.toString();
            });
            let deploymentId = '';
            const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
            try {
                const { port } = await new Promise<{ port: number }>((resolve, reject) => {
                    child.once('message', (message) => resolve(message as { port: number }));
                    child.once('exit', (code) => reject(new Error(`the server exited with ${code}`)));
                });
                const headers = { authorization: owner.session, 'content-type': 'application/json' };

                // A deployment whose job is running when the signal comes.
                const base = `http://127.0.0.1:${port}/v1/apps/${app.name}`;
                const created = await (await fetch(`${base}/deployments/new`, { method: 'POST', headers, body: '{}' })).json() as { id: string };
                deploymentId = created.id;
                await eventually(async () => await (await fetch(`${base}/deployments/${created.id}`, { headers })).json() as { status: string },
                    (deployment) => deployment.status === 'building', 'the build to start');

                // A request in flight: its headers read by the server (100 Continue), its body half sent.
                const body = JSON.stringify({ name: 'Made while stopping' });
                const request = Http.request({
                    host: '127.0.0.1', port, method: 'POST', path: '/v1/projects', agent: false,
                    headers: { ...headers, 'content-length': Buffer.byteLength(body), expect: '100-continue' }
                });
                const answered = new Promise<{ status: number; body: string }>((resolve, reject) => {
                    request.on('response', (res) => {
                        let text = '';
                        res.on('data', (chunk: Buffer) => {
                            text += chunk.toString();
                        }).on('end', () => resolve({ status: res.statusCode!, body: text }));
                    }).on('error', reject);
                });
                await new Promise<void>((resolve) => request.once('continue', resolve));
                request.write(body.slice(0, 10));

                child.kill('SIGTERM');
                await eventually(async () => output, (text) => text.includes('SIGTERM: stopping'), 'the server to begin stopping');
                // New connections are refused while the request in flight goes on.
                await eventually(() => fetch(`http://127.0.0.1:${port}/livez`).then(() => 'accepted', (err: Error & { cause?: { code?: string } }) => err.cause?.code ?? err.message),
                    (result) => result === 'ECONNREFUSED', 'new connections to be refused');

                request.end(body.slice(10));
                const answer = await answered;
                expect(answer.status).to.equal(201);
                expect(JSON.parse(answer.body)).to.include({ name: 'Made while stopping' });

                expect(await exited).to.equal(0);
                expect(output).to.contain('Stopped');
            }
            finally {
                if (child.exitCode === null && child.signalCode === null) {
                    child.kill('SIGKILL');
                    await exited;
                }
            }

            // What the stopped process left: the project made, and the deployment job finished, not abandoned.
            const after = await deployment({ config: { ...config, jobs: { mode: 'api', concurrency: 2 } }, log: () => undefined });
            try {
                const knex = after.app.knex;
                expect(await knex('projects').where({ name: 'Made while stopping' })).to.have.length(1);
                expect(await knex('jobs').where({ idempotency_key: `deployment:${deploymentId}` }).first()).to.include({ status: 'succeeded', attempts: 1 });
                expect((await knex('deployments').where({ id: deploymentId }).first()).status).to.equal('live');
            }
            finally {
                await after.stop();
                await first.stop();
            }
        });
    });
});
