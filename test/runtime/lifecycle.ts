import * as Fs from 'node:fs';
import * as Net from 'node:net';
import * as Os from 'node:os';
import * as Path from 'node:path';
import { setTimeout } from 'node:timers/promises';

import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { caller, register, type TestUser } from '../helpers/api';
import { createApp, deploymentSettled, eventually } from '../helpers/apps';
import type { RuntimeClock } from '../../lib/runtime/process/clock';
import { ProcessDriver } from '../../lib/runtime/process/driver';
import { leftovers, processRuntime, serverSource, testRepository, workerSource, type TestRepository } from '../helpers/runtime';
import { testServer, type TestServer } from '../helpers/server';
import { edgeRequest } from '../helpers/sites';

const { describe, it, before, after } = exports.lab = Lab.script();
const { expect } = Code;

// The process runtime around a deployment: workers, WebSocket upgrades through the edge, the memory limit over an
// instance's process tree, and a server restart that starts every live deployment again.
describe('the process runtime\'s lifecycle', () => {

    let instance: TestServer;
    let owner: TestUser;
    let repo: TestRepository;
    const groups = new Set<number>();
    const call = caller(() => instance.server);
    const runtime = () => instance.server.plugins['hostless-runtime']!;
    const track = () => runtime().driver.children.pids().forEach((pid) => groups.add(pid));
    const settle = async (path: string, id: string) => {
        const done = await eventually(async () => (await call('GET', `${path}/deployments/${id}`, owner.session)).result,
            (value: any) => ['live', 'failed'].includes(value.status), `deployment ${id}`);
        track();
        return done;
    };

    before(async () => {
        repo = testRepository({ 'server.js': serverSource('v1'), 'worker.js': workerSource(), Procfile: 'web: node server.js\nworker: node worker.js\n' });
        instance = await testServer({ runtime: processRuntime({ memoryLimitMiB: 200 }) }, { start: true });
        instance.server.plugins['hostless-jobs'].queue.start();
        owner = await register(instance.server, 'operator');
    });

    after(async () => {
        await instance?.stop();
        Fs.rmSync(`${instance.config.dataDir}-runtime`, { recursive: true, force: true });
        repo?.remove();
        expect(await leftovers(groups)).to.equal([]);
    });

    it('runs a worker as a process without a port, with its output as logs, and stops it when deleted', async () => {
        const created = await call('POST', '/v1/workers', owner.session, { name: 'ticker', repository: { provider: 'git', repo: repo.url, branch: 'main' }, environmentVariables: { WORKER_GREETING: 'hi' } });
        expect(created.statusCode, created.payload).to.equal(201);
        const deployment = await call('POST', '/v1/workers/ticker/deployments/new', owner.session, {});
        const live = await settle('/v1/workers/ticker', deployment.result.id);
        expect(live.status, live.error).to.equal('live');
        const [worker] = runtime().driver.supervisor.of(created.result.id);
        expect(worker.port).to.be.null();
        expect(worker.spec.command).to.equal('node worker.js');                 // the Procfile's worker line

        await eventually(async () => {
            await runtime().driver.supervisor.flush();
            return (await call('GET', '/v1/workers/ticker/logs?q=tick', owner.session)).result;
        }, (lines: any[]) => lines.some((line) => line.message === 'tick 3 hi'), 'the worker\'s output');

        const pid = worker.group!.pid;
        expect((await call('DELETE', '/v1/workers/ticker', owner.session)).statusCode).to.equal(204);
        expect(await leftovers([pid])).to.equal([]);
        expect(runtime().driver.supervisor.of(created.result.id)).to.equal([]);
    });

    it('runs an app\'s worker processes beside its web process, and replaces both with the next release', async () => {
        const app = await createApp(instance.server, owner, { repository: { provider: 'git', repo: repo.url, branch: 'main' }, environmentVariables: { WORKER_GREETING: 'from-app' } });
        const added = await call('POST', `/v1/apps/${app.name}/worker-processes`, owner.session, { name: 'queue', command: 'node worker.js', instances: 2 });
        expect(added.statusCode, added.payload).to.equal(201);
        const first = await call('POST', `/v1/apps/${app.name}/deployments/new`, owner.session, {});
        expect((await settle(`/v1/apps/${app.name}`, first.result.id)).status).to.equal('live');
        const running = runtime().driver.supervisor.of(app.id);
        expect(running.map((entry) => `${entry.spec.process}:${entry.spec.command}`).sort()).to.equal(['web:node server.js', 'worker:node worker.js', 'worker:node worker.js']);
        await eventually(async () => {
            await runtime().driver.supervisor.flush();
            return (await call('GET', `/v1/apps/${app.name}/logs?q=from-app`, owner.session)).result;
        }, (lines: any[]) => lines.length >= 2, 'the worker processes\' output');

        const second = await call('POST', `/v1/apps/${app.name}/deployments/new`, owner.session, {});
        expect((await settle(`/v1/apps/${app.name}`, second.result.id)).status).to.equal('live');
        const replaced = runtime().driver.supervisor.of(app.id);
        expect(replaced.length).to.equal(3);
        expect(replaced.every((entry) => entry.spec.deploymentId === second.result.id)).to.be.true();
        expect(await leftovers(running.map((entry) => entry.group!.pid))).to.equal([]);
    });

    it('passes WebSocket upgrades through the edge to the app', async () => {
        const app = await createApp(instance.server, owner, { repository: { provider: 'git', repo: repo.url, branch: 'main' } });
        const deployment = await call('POST', `/v1/apps/${app.name}/deployments/new`, owner.session, {});
        expect((await settle(`/v1/apps/${app.name}`, deployment.result.id)).status).to.equal('live');

        const port = instance.server.info.port as number;
        const socket = Net.connect(port, '127.0.0.1');
        const received: Buffer[] = [];
        socket.on('data', (chunk) => received.push(chunk));
        socket.write(`GET /socket HTTP/1.1\r\nhost: ${app.name}.localhost:${port}\r\nupgrade: websocket\r\nconnection: Upgrade\r\nsec-websocket-key: dGhlIHNhbXBsZSBub25jZQ==\r\nsec-websocket-version: 13\r\n\r\n`);
        await eventually(async () => Buffer.concat(received).toString(), (text) => text.includes('\r\n\r\n'), 'the 101');
        expect(Buffer.concat(received).toString()).to.match(/^HTTP\/1\.1 101 Switching Protocols\r\n/).and.to.include('x-version: v1');
        received.length = 0;
        socket.write('echo me');
        await eventually(async () => Buffer.concat(received).toString(), (text) => text === 'echo me', 'the echo');
        socket.destroy();

        const unknown = await edgeRequest(port, 'nobody-here.localhost', '/');
        expect(unknown.status).to.equal(404);
    });

    it('kills an instance whose process tree goes over its memory limit, logs why, and starts it again', async () => {
        const app = await createApp(instance.server, owner, { repository: { provider: 'git', repo: repo.url, branch: 'main' } });
        const deployment = await call('POST', `/v1/apps/${app.name}/deployments/new`, owner.session, {});
        expect((await settle(`/v1/apps/${app.name}`, deployment.result.id)).status).to.equal('live');
        const port = instance.server.info.port as number;
        const first = JSON.parse((await edgeRequest(port, `${app.name}.localhost`, '/')).body.toString());
        await edgeRequest(port, `${app.name}.localhost`, '/grow?mib=300');
        await runtime().driver.sampler.sample();
        await eventually(async () => {
            const res = await edgeRequest(port, `${app.name}.localhost`, '/');
            return res.status === 200 ? JSON.parse(res.body.toString()).pid : null;
        }, (pid) => pid !== null && pid !== first.pid, 'the instance to be started again', 15_000);
        track();
        await runtime().driver.supervisor.flush();
        const logs = (await call('GET', `/v1/apps/${app.name}/logs?limit=200`, owner.session)).result.map((line: { message: string }) => line.message);
        expect(logs.some((line: string) => /killed: its processes used \d+ MiB, over its 200 MiB memory limit$/.test(line))).to.be.true();
        expect(logs.some((line: string) => /exited \(.+\); restarting it in 1000 ms/.test(line))).to.be.true();
    });

    it('routes every server process\'s edge from the instances table, and takes over instances whose owner stopped beating', async () => {
        const app = await createApp(instance.server, owner, { repository: { provider: 'git', repo: repo.url, branch: 'main' } });
        const deployment = await call('POST', `/v1/apps/${app.name}/deployments/new`, owner.session, {});
        expect((await settle(`/v1/apps/${app.name}`, deployment.result.id)).status).to.equal('live');
        const { config } = instance;
        const other = await testServer({ database: config.database, encryptionKey: config.encryptionKey, sessionSecret: config.sessionSecret, runtime: processRuntime({ dir: `${config.dataDir}-runtime` }) }, { start: true });
        try {
            const driver = other.server.plugins['hostless-runtime']!.driver;
            const first = await edgeRequest(other.server.info.port as number, `${app.name}.localhost`, '/');
            expect(first.status, 'the second process serves the first one\'s instance').to.equal(200);
            expect(driver.supervisor.of(app.id)).to.equal([]);

            // The first process stops beating (as if it hung): after the stale time the second starts the app itself.
            await instance.server.app.knex('runtime_instances').where({ resource_id: app.id }).update({ heartbeat_at: 0 });
            await driver.reconcile(45_000);
            driver.children.pids().forEach((pid) => groups.add(pid));
            const [taken] = driver.supervisor.of(app.id);
            expect(taken.state).to.equal('serving');
            const rows = await instance.server.app.knex('runtime_instances').where({ resource_id: app.id });
            expect(rows.map((row: { owner: string }) => row.owner)).to.equal([driver.owner]);
            const [orphan] = runtime().driver.supervisor.of(app.id);
            const served = JSON.parse((await edgeRequest(instance.server.info.port as number, `${app.name}.localhost`, '/')).body.toString());
            expect(served.pid).to.not.equal(orphan.group!.pid);

            // At its next beat the first process finds its row taken and stops its own copy.
            await runtime().driver.supervisor.beat();
            expect(runtime().driver.supervisor.of(app.id)).to.equal([]);
            expect(await leftovers([orphan.group!.pid])).to.equal([]);
        }
        finally {
            await other.server.stop();
            Fs.rmSync(other.config.dataDir, { recursive: true, force: true });
        }
    });

    it('starts every live deployment again after a server restart', async () => {
        const app = await createApp(instance.server, owner, { repository: { provider: 'git', repo: repo.url, branch: 'main' } });
        const deployment = await call('POST', `/v1/apps/${app.name}/deployments/new`, owner.session, {});
        expect((await settle(`/v1/apps/${app.name}`, deployment.result.id)).status).to.equal('live');
        const before = runtime().driver.supervisor.of(app.id).map((entry) => entry.group!.pid);

        // A new server process on the same database and release folders: the old one stopped with its processes, once
        // the request in flight through its edge was answered.
        const slow = edgeRequest(instance.server.info.port as number, `${app.name}.localhost`, '/slow?ms=700');
        await eventually(async () => runtime().driver.supervisor.of(app.id).reduce((sum, entry) => sum + runtime().proxy.inflight(entry.id), 0), (count) => count === 1, 'the request in flight');
        await instance.server.stop();
        const answered = await slow;
        expect(answered.status, 'the request in flight was answered before the instances stopped').to.equal(200);
        expect(JSON.parse(answered.body.toString())).to.equal({ version: 'v1', slow: true });
        expect(await leftovers(before)).to.equal([]);
        const { config } = instance;
        const next = await testServer({ database: config.database, encryptionKey: config.encryptionKey, sessionSecret: config.sessionSecret, runtime: processRuntime({ dir: `${config.dataDir}-runtime` }) }, { start: true });
        try {
            const port = next.server.info.port as number;
            const res = await edgeRequest(port, `${app.name}.localhost`, '/');
            expect(res.status).to.equal(200);
            expect(JSON.parse(res.body.toString()).version).to.equal('v1');
            next.server.plugins['hostless-runtime']!.driver.children.pids().forEach((pid) => groups.add(pid));
        }
        finally {
            await next.server.stop();
            Fs.rmSync(next.config.dataDir, { recursive: true, force: true });
            Fs.rmSync(config.dataDir, { recursive: true, force: true });
            Fs.rmSync(`${config.dataDir}-runtime`, { recursive: true, force: true });
            await instance.stop();                              // the first server's folders and, on PostgreSQL, its database
            instance = await testServer({ runtime: processRuntime() }, { start: true });      // for after()
        }
    });
});

describe('the process runtime\'s clock', () => {

    it('is injected: restart backoff doubles (1 s, 2 s, 4 s) on the test\'s clock, without waiting for it', async () => {
        const repo = testRepository({ 'server.js': serverSource('v1') });
        const asked: number[] = [];
        let offset = 0;
        const clock: RuntimeClock = {
            now: () => Date.now() + offset,
            sleep: async (ms, signal) => {
                if (ms >= 10_000) {                             // the sampler's period, a grace or a time limit: not in this test
                    await new Promise((resolve, reject) => signal?.addEventListener('abort', () => reject(new Error('aborted'))));
                }

                asked.push(ms);
                offset += ms;                                   // time moves by what was asked; the test waits 5 ms (a build's limit: 300 ms)
                await setTimeout(ms === 5000 ? 300 : 5, undefined, signal ? { signal } : {});
            }
        };
        const dir = Fs.mkdtempSync(Path.join(Os.tmpdir(), 'hostless-clock-'));
        const driver = new ProcessDriver({ dir, uidRange: [23000, 23999], healthPath: '/', healthTimeoutMs: 30_000, buildTimeoutMs: 5000, buildOutputBytes: 8192, allowFileGit: true, sameUser: false, path: process.env.PATH!, clock });
        const instance = await testServer({ runtime: processRuntime({ dir }) }, { start: true, driver });
        const groups = new Set<number>();
        try {
            instance.server.plugins['hostless-jobs'].queue.start();
            const user = await register(instance.server, 'clock');
            const app = await createApp(instance.server, user, { repository: { provider: 'git', repo: repo.url, branch: 'main' }, startCommand: 'node server.js' });
            const created = await caller(() => instance.server)('POST', `/v1/apps/${app.name}/deployments/new`, user.session, {});
            const settled = await deploymentSettled(instance.server, user, app.name, created.result.id);
            expect(settled.status, settled.error).to.equal('live');
            const port = instance.server.info.port as number;
            for (let kill = 0; kill < 3; kill++) {
                const before = JSON.parse((await edgeRequest(port, `${app.name}.localhost`, '/')).body.toString()).pid as number;
                process.kill(before, 'SIGKILL');
                await eventually(async () => {
                    const res = await edgeRequest(port, `${app.name}.localhost`, '/');
                    return res.status === 200 ? JSON.parse(res.body.toString()).pid as number : null;
                }, (pid) => pid !== null && pid !== before, 'the instance to come back');
                driver.children.pids().forEach((pid) => groups.add(pid));
            }

            expect(asked.filter((ms) => [1000, 2000, 4000, 8000].includes(ms))).to.equal([1000, 2000, 4000]);

            // A build past its time limit (5 s on this clock) and a build past its output limit (8 KiB) are stopped.
            const call = caller(() => instance.server);
            await call('PATCH', `/v1/apps/${app.name}`, user.session, { buildCommand: 'sleep 30' });
            const slow = await call('POST', `/v1/apps/${app.name}/deployments/new`, user.session, {});
            const slowDone = await deploymentSettled(instance.server, user, app.name, slow.result.id);
            expect(slowDone.status).to.equal('failed');
            expect(slowDone.error).to.equal('The build did not finish within 5 s and was stopped');
            await call('PATCH', `/v1/apps/${app.name}`, user.session, { buildCommand: 'yes building | head -n 5000' });
            const noisy = await call('POST', `/v1/apps/${app.name}/deployments/new`, user.session, {});
            const noisyDone = await deploymentSettled(instance.server, user, app.name, noisy.result.id);
            expect(noisyDone.status).to.equal('failed');
            expect(noisyDone.error).to.equal('The build wrote more than 8 KiB of output and was stopped');
            driver.children.pids().forEach((pid) => groups.add(pid));
        }
        finally {
            await instance.stop();
            Fs.rmSync(dir, { recursive: true, force: true });
            repo.remove();
        }

        expect(await leftovers(groups)).to.equal([]);
    });
});
