import * as ChildProcess from 'node:child_process';
import * as Fs from 'node:fs';
import * as Os from 'node:os';
import * as Path from 'node:path';

import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import type { Config } from '../../manifest/config';
import { uniqueEmail, PASSWORD } from '../helpers/api';
import { eventually } from '../helpers/apps';
import { INITIALIZE, post } from '../helpers/mcp';
import { postgresUrl, testConfig, testDatabase, type TestDatabase } from '../helpers/server';

const { describe, it, before, after } = exports.lab = Lab.script();
const { expect } = Code;

// Several processes of one deployment on one PostgreSQL database: two API processes (each running job workers and
// the scheduler) and one MCP server reaching the first over HTTP, each a process of its own (test/fixtures/api-server.ts).
// Nothing about a credential is cached, so what one process changes the others enforce at the next request; jobs and
// cron due times are claimed once between the processes.
// It needs TEST_POSTGRES_URL (CI sets it for both passes, as for the queue's two-process drain), and runs on a fresh
// PostgreSQL schema whichever database the rest of the pass uses.
describe('several processes on one PostgreSQL database', { skip: !postgresUrl }, () => {

    let db: TestDatabase;
    let dataDir: string;
    const children: ChildProcess.ChildProcess[] = [];
    let apis: [string, string];
    let mcpUrl: string;

    const spawn = (config: Config, mode: 'api' | 'mcp') => {
        const child = ChildProcess.fork(Path.join(__dirname, '..', 'fixtures', 'api-server.ts'), [JSON.stringify(config), ...(mode === 'mcp' ? ['mcp'] : [])], {
            execArgv: ['-r', Path.join(__dirname, '..', '..', 'scripts', 'ts-register.js')], stdio: ['ignore', 'ignore', 'inherit', 'ipc']
        });
        children.push(child);
        return new Promise<string>((resolve, reject) => {
            child.once('message', (message: { port?: number; error?: string }) => message.port ? resolve(`http://127.0.0.1:${message.port}`) : reject(new Error(`a ${mode} process did not boot: ${message.error}`)));
            child.once('exit', (code) => reject(new Error(`a ${mode} process exited with ${code} before it listened`)));
        });
    };

    // The child processes transpile the whole server as they load: tens of seconds on a busy machine.
    before({ timeout: 300_000 }, async () => {
        db = await testDatabase({ postgres: true });
        dataDir = Fs.mkdtempSync(Path.join(Os.tmpdir(), 'hostless-processes-'));
        const config = testConfig(dataDir, {
            database: db.database, sessionSecret: 's'.repeat(64), encryptionKey: 'e'.repeat(64), jobs: { mode: 'all', concurrency: 2 },
            runtime: { driver: 'records', recordsStepDelayMs: 50 }
        });
        apis = await Promise.all<[Promise<string>, Promise<string>]>([spawn(config, 'api'), spawn(config, 'api')]);
        mcpUrl = `${await spawn({ ...config, apiBaseUrl: apis[0] }, 'mcp')}/mcp`;
    });

    after({ timeout: 60_000 }, async () => {
        await Promise.all(children.map((child) => new Promise<void>((resolve) => {
            if (child.exitCode !== null || child.signalCode !== null) {
                return resolve();
            }

            const kill = setTimeout(() => child.kill('SIGKILL'), 20_000);
            child.once('exit', () => {
                clearTimeout(kill);
                resolve();
            });
            child.kill('SIGTERM');
        })));
        await db?.stop();
        Fs.rmSync(dataDir, { recursive: true, force: true });
    });

    const call = async (api: number, method: string, path: string, authorization?: string, body?: object) => {
        const res = await fetch(`${apis[api]}${path}`, {
            method, headers: { ...authorization ? { authorization } : {}, ...body ? { 'content-type': 'application/json' } : {} }, ...body ? { body: JSON.stringify(body) } : {}
        });
        const text = await res.text();
        return { status: res.status, body: text ? JSON.parse(text) : null };
    };

    // A job's row settles after its handler returns: read its jobs once none is still running.
    const jobsSettled = async (idempotencyKey: string) => {
        const read = async () => (await db.knex('jobs').where({ idempotency_key: idempotencyKey }).select('status', 'attempts'))
            .map((job) => ({ status: job.status as string, attempts: Number(job.attempts) }));
        return await eventually(read, (jobs) => jobs.length > 0 && jobs.every((job) => job.status !== 'running'), `the job ${idempotencyKey}`, 20_000);
    };

    const signUp = async () => {
        const email = uniqueEmail('processes');
        const registered = await call(0, 'POST', '/v1/auth/register', undefined, { email, password: PASSWORD });
        expect(registered.status).to.equal(201);
        return { email, session: `Bearer ${registered.body.accessToken as string}` };
    };

    it('refuses a key revoked through one process at the next request to the other and to the MCP server', async () => {
        const user = await signUp();
        const created = await call(0, 'POST', '/v1/users/me/api-keys', user.session, { name: 'shared', scopes: ['projects:read'] });
        expect(created.status).to.equal(201);
        const key = `Bearer ${created.body.token as string}`;
        expect((await call(1, 'GET', '/v1/projects', key)).status).to.equal(200);
        expect((await post(mcpUrl, INITIALIZE, { authorization: key })).status).to.equal(200);

        expect((await call(0, 'DELETE', `/v1/users/me/api-keys/${created.body.apiKey.id as string}`, user.session)).status).to.equal(200);
        const refused = await call(1, 'GET', '/v1/projects', key);
        expect(refused.status).to.equal(401);
        expect((await post(mcpUrl, INITIALIZE, { authorization: key })).status).to.equal(401);
    });

    it('refuses a session logged out on one process at the next request to the other', async () => {
        const user = await signUp();
        const signedIn = await call(1, 'POST', '/v1/auth/login', undefined, { email: user.email, password: PASSWORD });
        const session = `Bearer ${signedIn.body.accessToken as string}`;
        expect((await call(0, 'GET', '/v1/users/me', session)).status).to.equal(200);
        expect((await call(1, 'POST', '/v1/auth/logout', session)).status).to.equal(204);
        expect((await call(0, 'GET', '/v1/users/me', session)).status).to.equal(401);
    });

    it('runs a deployment and a scheduled cron run exactly once while both processes run workers', { timeout: 150_000 }, async () => {
        const user = await signUp();
        // Due at the next minute: both processes' schedulers see it, one claims it.
        const cron = await call(1, 'POST', '/v1/cron-jobs', user.session, { name: 'every-minute', schedule: '* * * * *', startCommand: 'echo tick' });
        expect(cron.status).to.equal(201);

        const app = await call(0, 'POST', '/v1/apps', user.session, { name: 'one-app' });
        expect(app.status).to.equal(201);
        const deployment = await call(0, 'POST', '/v1/apps/one-app/deployments/new', user.session, {});
        expect(deployment.status).to.equal(201);
        const settled = await eventually(async () => (await call(1, 'GET', `/v1/apps/one-app/deployments/${deployment.body.id as string}`, user.session)).body,
            (value: { status: string }) => ['live', 'failed'].includes(value.status), 'the deployment', 60_000);
        expect(settled.status).to.equal('live');
        expect(await jobsSettled(`deployment:${deployment.body.id as string}`)).to.equal([{ status: 'succeeded', attempts: 1 }]);

        // The records driver runs nothing: a run it has performed is `recorded`.
        const finished = (run: { status: string }) => ['recorded', 'succeeded', 'failed'].includes(run.status);
        const runs = await eventually(async () => (await call(0, 'GET', '/v1/cron-jobs/every-minute/runs', user.session)).body as Array<{ id: string; status: string; trigger: string }>,
            (value) => value.some(finished), 'the scheduled run', 100_000);
        const run = runs.find(finished)!;
        expect(run).to.include({ status: 'recorded', trigger: 'schedule' });
        const [scheduled] = await db.knex('cron_runs').where({ id: run.id }).select('scheduled_for');
        expect(await db.knex('cron_runs').where({ scheduled_for: scheduled.scheduled_for }).count({ n: '*' }).first(), 'one run for the due time').to.equal({ n: '1' });
        expect(await jobsSettled(`cron-run:${run.id}`)).to.equal([{ status: 'succeeded', attempts: 1 }]);
    });
});
