import * as Fs from 'node:fs';
import * as Path from 'node:path';

import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { deriveKey, encryptSecret } from '../../lib/crypto';
import { CREDENTIALS_KEY_PURPOSE } from '../../lib/provisioner/driver';
import { caller, register, type TestUser } from '../helpers/api';
import { createApp, deploymentSettled, eventually } from '../helpers/apps';
import { leftovers, processRuntime, serverSource, testRepository, type TestRepository } from '../helpers/runtime';
import { testServer, type TestServer } from '../helpers/server';
import { edgeRequest } from '../helpers/sites';

const { describe, it, before, after } = exports.lab = Lab.script();
const { expect } = Code;

// The process driver for real: a Git repository on the local disk holding a Node.js HTTP server, deployed through
// the API, served by the edge over real HTTP, measured, restarted, scaled, replaced without a failed request.
describe('the process runtime', () => {

    let instance: TestServer;
    let owner: TestUser;
    let repo: TestRepository;
    let port: number;
    const groups = new Set<number>();
    const call = caller(() => instance.server);
    const runtime = () => instance.server.plugins['hostless-runtime']!;
    const track = () => runtime().driver.children.pids().forEach((pid) => groups.add(pid));
    const seenOf = new Map<string, Set<number>>();
    const groupsOf = (appId: string) => {
        const seen = seenOf.get(appId) ?? new Set<number>();
        runtime().driver.supervisor.of(appId).forEach((entry) => seen.add(entry.group!.pid));
        seenOf.set(appId, seen);
        return seen;
    };
    const fetchApp = async (name: string, path = '/', headers: Record<string, string> = {}) => {
        const res = await edgeRequest(port, `${name}.localhost`, path, { headers });
        return { status: res.status, body: res.headers['content-type']?.includes('json') ? JSON.parse(res.body.toString()) : res.body.toString() };
    };

    const deploy = async (name: string, body: object = {}) => {
        const created = await call('POST', `/v1/apps/${name}/deployments/new`, owner.session, body);
        expect(created.statusCode).to.equal(201);
        const settled = await deploymentSettled(instance.server, owner, name, created.result.id);
        track();
        return settled;
    };

    before(async () => {
        repo = testRepository({ 'server.js': serverSource('v1') });
        instance = await testServer({ runtime: processRuntime() }, { start: true });
        port = instance.server.info.port as number;
        instance.server.plugins['hostless-jobs'].queue.start();
        owner = await register(instance.server, 'runner');
    });

    after(async () => {
        await instance?.stop();
        Fs.rmSync(`${instance.config.dataDir}-runtime`, { recursive: true, force: true });
        repo?.remove();
        const left = await leftovers(groups);
        expect(left.map((pid) => `${pid} ${Fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8')}`)).to.equal([]);
    });

    it('builds an app from a Git repository, serves it through the edge by host name, and measures it', async () => {
        const app = await createApp(instance.server, owner, {
            repository: { provider: 'git', repo: repo.url, branch: 'main' }, buildCommand: 'echo building && ls', startCommand: 'node server.js',
            environmentVariables: { GREETING: 'hello', READ_ME: 'x' }
        });
        const deployment = await deploy(app.name);
        expect(deployment.status, deployment.error).to.equal('live');
        expect(deployment.driver).to.equal('process');

        const build = await call('GET', `/v1/apps/${app.name}/deployments/${deployment.id}/logs`, owner.session);
        const buildLines = build.result.map((line: { message: string }) => line.message);
        expect(buildLines).to.include(['building', 'server.js']);
        expect(buildLines.some((line: string) => line.startsWith('Fetched commit '))).to.be.true();

        const parent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
        const page = await fetchApp(app.name, '/hello', { traceparent: parent });
        expect(page.status).to.equal(200);
        expect(page.body).to.include({ version: 'v1', greeting: 'hello' });
        expect(page.body.env).to.equal(['GREETING', 'HOME', 'PATH', 'PORT', 'PWD', 'READ_ME']);        // PWD: set by the shell
        expect(page.body.uid as number).to.be.within(23000, 23999);            // its own uid, not root
        expect(page.body.traceparent).to.match(/^00-0af7651916cd43dd8448eb211c80319c-[0-9a-f]{16}-01$/);
        expect(page.body.traceparent).to.not.include('b7ad6b7169203331');

        // The control plane's files are out of its reach.
        const secrets = await fetchApp(app.name, `/read?file=${encodeURIComponent(Path.join(instance.config.dataDir, 'hostless.sqlite'))}`);
        expect(secrets.body).to.equal('EACCES');

        await instance.server.plugins['hostless-edge'].meter.flush();
        await runtime().proxy.flush();
        await runtime().driver.supervisor.flush();
        await runtime().driver.sampler.sample();
        await new Promise((resolve) => setTimeout(resolve, 1100));
        await runtime().driver.sampler.sample();

        const requests = await call('GET', `/v1/apps/${app.name}/metrics/request-count`, owner.session);
        expect(requests.result.source).to.equal('measured');
        expect(requests.result.series.reduce((sum: number, point: { value: number }) => sum + point.value, 0)).to.equal(2);
        const traces = await call('GET', `/v1/traces/${app.name}`, owner.session);
        const span = traces.result.find((entry: any) => entry.name === 'GET /hello');
        expect(span).to.include({ traceId: '0af7651916cd43dd8448eb211c80319c', parentSpanId: 'b7ad6b7169203331' });
        expect(page.body.traceparent).to.include(span.spanId);
        const started = traces.result.find((entry: any) => entry.name === 'GET /read');     // no traceparent: the edge starts one
        expect(started.traceId).to.match(/^[0-9a-f]{32}$/);
        expect(parseInt(started.traceId.slice(0, 12), 16)).to.be.within(Date.parse(started.startTime) - 1000, Date.parse(started.startTime) + 1000);
        const logs = await call('GET', `/v1/apps/${app.name}/logs?q=from%20the%20app`, owner.session);
        expect(logs.result.map((line: { message: string }) => line.message)).to.include('GET /hello from the app');
        for (const metric of ['cpu-usage', 'memory-usage']) {
            const series = await call('GET', `/v1/apps/${app.name}/metrics/${metric}`, owner.session);
            expect(series.result.source).to.equal('measured');
            expect(series.result.series.length > 0, metric).to.be.true();
        }
    });

    it('switches to a new release without a failed request, then stops the old process group', async () => {
        const app = await createApp(instance.server, owner, { repository: { provider: 'git', repo: repo.url, branch: 'main' }, startCommand: 'node server.js' });
        const first = await deploy(app.name);
        const before = (await fetchApp(app.name)).body;
        expect(before.version).to.equal('v1');

        const v1 = repo.head();
        repo.commit({ 'server.js': serverSource('v2') }, 'v2');
        let running = true;
        let failed = 0;
        let served = 0;
        const clients = Array.from({ length: 10 }, async () => {
            while (running) {
                const res = await fetchApp(app.name).catch(() => ({ status: 0, body: null }));
                served += 1;
                failed += res.status === 200 ? 0 : 1;
            }
        });
        const slow = fetchApp(app.name, '/slow?ms=1500');       // in flight on the old release when the switch comes
        const second = await deploy(app.name);
        running = false;
        await Promise.all(clients);
        expect(JSON.parse((await slow).body), 'the old release finished its in-flight request').to.equal({ version: 'v1', slow: true });
        expect(second.status, second.error).to.equal('live');
        expect(served > 20).to.be.true();
        expect(failed).to.equal(0);

        for (let i = 0; i < 5; i++) {
            expect((await fetchApp(app.name)).body.version).to.equal('v2');
        }

        expect(await leftovers([before.pid])).to.equal([]);
        const releases = `${instance.config.dataDir}-runtime`;
        expect(Fs.existsSync(Path.join(releases, first.id)), 'the replaced release\'s folder is removed').to.be.false();
        expect(Fs.statSync(Path.join(releases, second.id)).mode & 0o777).to.equal(0o700);

        // A deployment of a named commit fetches that commit.
        const pinned = await deploy(app.name, { commitSha: v1 });
        expect(pinned.status, pinned.error).to.equal('live');
        expect((await fetchApp(app.name)).body.version).to.equal('v1');
    });

    it('fails a release whose start command crashes or never answers, and the live one keeps serving', async () => {
        const app = await createApp(instance.server, owner, { repository: { provider: 'git', repo: repo.url, branch: 'main' }, startCommand: 'node server.js' });
        await deploy(app.name);
        const serving = (await fetchApp(app.name)).body;

        await call('PATCH', `/v1/apps/${app.name}`, owner.session, { startCommand: 'node -e "console.error(\'boom\'); process.exit(4)"' });
        const crashed = await deploy(app.name);
        expect(crashed.status).to.equal('failed');
        expect(Fs.existsSync(Path.join(`${instance.config.dataDir}-runtime`, crashed.id)), 'a failed release leaves no folder').to.be.false();
        expect(crashed.error).to.include('exit code 4').and.to.include('boom');
        expect((await fetchApp(app.name)).body.pid).to.equal(serving.pid);

        await call('PATCH', `/v1/apps/${app.name}`, owner.session, { startCommand: 'sleep 30' });
        const silent = await deploy(app.name);
        expect(silent.status).to.equal('failed');
        expect(silent.error).to.include('did not answer GET /');
        expect((await fetchApp(app.name)).body.pid).to.equal(serving.pid);
    });

    it('scales to two serving instances, restarts them, and brings a killed one back', async () => {
        const app = await createApp(instance.server, owner, { repository: { provider: 'git', repo: repo.url, branch: 'main' }, startCommand: 'node server.js', plan: 'standard' });
        await deploy(app.name);
        const up = await call('POST', `/v1/apps/${app.name}/scale/up`, owner.session, {});
        expect(up.statusCode).to.equal(200);
        track();
        const seen = new Set<string>();
        for (let i = 0; i < 6; i++) {
            seen.add((await fetchApp(app.name)).body.port);
        }

        expect(seen.size).to.equal(2);
        const pids = new Set<number>();
        for (let i = 0; i < 4; i++) {
            pids.add((await fetchApp(app.name)).body.pid);
        }

        const restarted = await call('POST', `/v1/apps/${app.name}/restart`, owner.session);
        expect(restarted.statusCode).to.equal(200);
        track();
        const after = new Set<number>();
        for (let i = 0; i < 4; i++) {
            after.add((await fetchApp(app.name)).body.pid);
        }

        expect([...after].filter((pid) => pids.has(pid))).to.equal([]);
        expect(await leftovers(pids)).to.equal([]);

        const victim = [...after][0];
        process.kill(victim, 'SIGKILL');
        await eventually(async () => {
            const pidsNow = new Set<number>();
            for (let i = 0; i < 4; i++) {
                const res = await fetchApp(app.name);
                if (res.status === 200) {
                    pidsNow.add(res.body.pid);
                }
            }

            return pidsNow;
        }, (now) => now.size === 2 && !now.has(victim), 'the killed instance to come back', 15_000);
        track();
        await runtime().driver.supervisor.flush();
        groupsOf(app.id);                                       // both groups, before one goes
        const down = await call('POST', `/v1/apps/${app.name}/scale/down`, owner.session, {});
        expect(down.result.instances).to.equal(1);
        const remaining = runtime().driver.supervisor.of(app.id).map((entry) => entry.group!.pid);
        expect(remaining.length).to.equal(1);
        expect(await leftovers(new Set([...groupsOf(app.id)].filter((pid) => !remaining.includes(pid))))).to.equal([]);

        const logs = await call('GET', `/v1/apps/${app.name}/logs?limit=500`, owner.session);
        const messages = logs.result.map((line: { message: string }) => line.message);
        expect(messages.some((line: string) => /exited \(exit code 137\); restarting it in 1000 ms \(restart 1\)$/.test(line))).to.be.true();
        expect(messages.some((line: string) => / started again \(pid \d+\)$/.test(line))).to.be.true();
    });

    it('runs a cron job as one process and records its exit code and output', async () => {
        const created = await call('POST', '/v1/cron-jobs', owner.session, { name: 'nightly-report', schedule: '0 3 * * *', startCommand: 'echo report-start; echo oops >&2; exit 3' });
        expect(created.statusCode, created.payload).to.equal(201);
        const run = await call('POST', '/v1/cron-jobs/nightly-report/runs', owner.session);
        expect(run.statusCode).to.equal(201);
        const done = await eventually(async () => (await call('GET', `/v1/cron-jobs/nightly-report/runs/${run.result.id}`, owner.session)).result,
            (value: any) => ['succeeded', 'failed'].includes(value.status), 'the run');
        expect(done).to.include({ status: 'failed', exitCode: 3 });
        const logs = await call('GET', `/v1/cron-jobs/nightly-report/runs/${run.result.id}/logs`, owner.session);
        const lines = logs.result.map((line: { message: string; level: string }) => `${line.level} ${line.message}`);
        expect(lines).to.include(['info report-start', 'error oops']);
        expect(lines.some((line: string) => /^error Exited with code 3 after \d+ ms$/.test(line))).to.be.true();
    });

    it('gives an app the URL of each database it links, read as the database is when its processes start', async () => {
        // The records provisioner makes no database: these rows get the sealed credentials a real provisioner would
        // leave (test/plugins/databases/postgres.ts makes them for real), sealed with the server's own key.
        const sealed = (database: string) => encryptSecret(JSON.stringify({ host: '127.0.0.1', port: 5432, database, username: `u_${database}`, password: 'p@ss/word' }), deriveKey(instance.config.encryptionKey, CREDENTIALS_KEY_PURPOSE));
        for (const name of ['orders-db', 'ledger']) {
            expect((await call('POST', '/v1/databases', owner.session, { name, tier: 'standard' })).statusCode).to.equal(201);
            await eventually(async () => (await call('GET', `/v1/databases/${name}/details`, owner.session)).result.status, (status) => status === 'available', name);
            await instance.server.app.knex('databases').where({ name }).update({ credentials: sealed(name.replace('-', '_')) });
        }

        const app = await createApp(instance.server, owner, { repository: { provider: 'git', repo: repo.url, branch: 'main' }, startCommand: 'node server.js' });
        expect((await call('PATCH', `/v1/apps/${app.name}`, owner.session, { databases: ['orders-db'] })).statusCode).to.equal(200);
        expect((await deploy(app.name)).status).to.equal('live');
        const orders = 'postgresql://u_orders_db:p%40ss%2Fword@127.0.0.1:5432/orders_db';
        expect((await fetchApp(app.name, '/databases')).body).to.equal({ DATABASE_URL: orders, DATABASE_URL_ORDERS_DB: orders });

        // Two linked: each by its name, no DATABASE_URL to guess from; the app's own variable of that name wins.
        await call('PATCH', `/v1/apps/${app.name}`, owner.session, { databases: ['orders-db', 'ledger'], environmentVariables: { DATABASE_URL_LEDGER: 'mine' } });
        expect((await deploy(app.name)).status).to.equal('live');
        expect((await fetchApp(app.name, '/databases')).body).to.equal({ DATABASE_URL_LEDGER: 'mine', DATABASE_URL_ORDERS_DB: orders });
        const details = await call('GET', '/v1/databases/orders-db/details', owner.session);
        expect(details.result.connection.connectionString).to.equal(orders);
        expect((await call('DELETE', `/v1/apps/${app.name}`, owner.session)).statusCode).to.be.within(200, 204);
    });

    it('refuses a deployment without source with what to connect', async () => {
        const app = await createApp(instance.server, owner, { startCommand: 'node server.js' });
        const failed = await deploy(app.name);
        expect(failed.status).to.equal('failed');
        expect(failed.error).to.include('has no source: set a Git repository');
    });
});
