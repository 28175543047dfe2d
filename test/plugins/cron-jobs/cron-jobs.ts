import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { caller, createKey, register, type TestUser } from '../../helpers/api';
import { eventually } from '../../helpers/apps';
import { testServer, type TestServer } from '../../helpers/server';

// The standalone cron jobs' routes: validated schedules and time zones, the pause/resume state machine, runs by
// hand with their logs, deployments whose recorded command the runs execute, and a delete that leaves nothing behind.
const { describe, it, before, after } = exports.lab = Lab.script();
const { expect } = Code;

const unique = () => `cron-${Math.random().toString(36).slice(2, 10)}`;

describe('cron jobs', () => {

    let instance: TestServer;
    let owner: TestUser;
    const call = caller(() => instance.server);
    const create = async (body: Record<string, unknown> = {}) => {
        const res = await call('POST', '/v1/cron-jobs', owner.session, { name: unique(), schedule: '0 3 * * *', startCommand: 'node report.js', ...body });
        expect(res.statusCode, res.payload).to.equal(201);
        return res.result;
    };

    before(async () => {
        instance = await testServer();
        instance.server.plugins['hostless-jobs'].queue.start();
        owner = await register(instance.server, 'cron-owner');
    });

    after(async () => {
        await instance?.stop();
    });

    it('refuses a bad schedule, time zone or command with a 400 naming the field, and keeps nothing', async () => {
        const cases: Array<[Record<string, unknown>, string]> = [
            [{ schedule: 'every day' }, '"schedule" must have five fields: minute hour day-of-month month day-of-week'],
            [{ schedule: '61 * * * *' }, '"schedule" is not a valid cron expression'],
            [{ schedule: '0 3 * * * *' }, '"schedule" must have five fields: minute hour day-of-month month day-of-week'],
            [{ timeZone: 'Mars/Olympus_Mons' }, '"timeZone" must be an IANA time zone such as Europe/Berlin or UTC'],
            [{ timeZone: '+01:00' }, '"timeZone" must be an IANA time zone such as Europe/Berlin or UTC'],
            [{ startCommand: null }, '"startCommand" must be a string'],
            [{ schedule: undefined }, '"schedule" is required'],
            [{ startCommand: undefined }, '"startCommand" is required']
        ];
        for (const [body, message] of cases) {
            const res = await call('POST', '/v1/cron-jobs', owner.session, { name: unique(), schedule: '0 3 * * *', startCommand: 'x', ...body });
            expect(res.statusCode, message).to.equal(400);
            expect(res.result.message).to.include(message);
        }

        expect((await call('GET', '/v1/cron-jobs', owner.session)).result).to.equal([]);
        const job = await create();
        const patched = await call('PATCH', `/v1/cron-jobs/${job.name}`, owner.session, { timeZone: 'Nowhere' });
        expect(patched.statusCode).to.equal(400);
        expect((await call('PATCH', `/v1/cron-jobs/${job.name}`, owner.session, { startCommand: null })).statusCode).to.equal(400);
        expect((await call('GET', `/v1/cron-jobs/${job.name}`, owner.session)).result).to.equal(job);
    });

    it('creates, lists, gets and changes a cron job; a new schedule or time zone moves the next run', async () => {
        const team = (await call('POST', '/v1/projects', owner.session, { name: 'Reports' })).result;
        const job = await create({ projectId: team.id, timeZone: 'America/New_York', environmentVariables: { REPORT_TO: 'ops@example.com' } });
        expect(job).to.include({ projectId: team.id, status: 'created', schedule: '0 3 * * *', timeZone: 'America/New_York', paused: false, startCommand: 'node report.js', lastRunAt: null });
        expect([7, 8]).to.include(new Date(job.nextRunAt).getUTCHours());        // 03:00 in New York, in winter or in summer

        expect((await call('GET', `/v1/cron-jobs?projectId=${team.id}`, owner.session)).result).to.equal([job]);
        expect((await call('GET', `/v1/cron-jobs/${job.name}`, owner.session)).result).to.equal(job);
        expect((await call('POST', '/v1/cron-jobs', owner.session, { name: job.name, schedule: '* * * * *', startCommand: 'x' })).statusCode).to.equal(409);

        const moved = await call('PATCH', `/v1/cron-jobs/${job.name}`, owner.session, { schedule: '15 * * * *', timeZone: 'UTC' });
        expect(moved.result).to.include({ schedule: '15 * * * *', timeZone: 'UTC' });
        expect(new Date(moved.result.nextRunAt).getUTCMinutes()).to.equal(15);

        await call('POST', `/v1/cron-jobs/${job.name}/pause`, owner.session);
        const whilePaused = await call('PATCH', `/v1/cron-jobs/${job.name}`, owner.session, { schedule: '45 * * * *' });
        expect(whilePaused.result).to.include({ schedule: '45 * * * *', paused: true, nextRunAt: null });
        const resumed = await call('POST', `/v1/cron-jobs/${job.name}/resume`, owner.session);
        expect(new Date(resumed.result.nextRunAt).getUTCMinutes()).to.equal(45);

        const env = await call('GET', `/v1/cron-jobs/${job.name}/environment-variables`, owner.session);
        expect(env.result.map((variable: any) => [variable.name, variable.value])).to.equal([['REPORT_TO', 'ops@example.com']]);
        const reader = await createKey(instance.server, owner, ['cron-jobs:read']);
        expect((await call('GET', `/v1/cron-jobs/${job.name}/environment-variables`, reader.token)).result[0]).to.include({ value: null, set: true });
    });

    it('runs by hand (a paused job too), records the run and its logs, and shows them in the cron job\'s logs', async () => {
        const job = await create();
        await call('POST', `/v1/cron-jobs/${job.name}/pause`, owner.session);
        const started = await call('POST', `/v1/cron-jobs/${job.name}/runs`, owner.session);
        expect(started.statusCode).to.equal(201);
        expect(started.result).to.include({ cronJobId: job.id, trigger: 'manual', status: 'queued', scheduledFor: null, exitCode: null, driver: 'records' });

        const run = await eventually(async () => (await call('GET', `/v1/cron-jobs/${job.name}/runs/${started.result.id}`, owner.session)).result,
            (found: any) => found.status === 'recorded', 'the run');
        expect(run.exitCode).to.be.null();
        expect(run.startedAt).to.be.a.string();
        expect(run.durationMs).to.be.a.number();
        expect((await call('GET', `/v1/cron-jobs/${job.name}/runs`, owner.session)).result).to.equal([run]);

        const lines = (await call('GET', `/v1/cron-jobs/${job.name}/runs/${run.id}/logs?q=executed`, owner.session)).result;
        expect(lines.map((line: any) => [line.stream, line.runId, line.message])).to.equal([['run', run.id, 'The records driver runs no user code: nothing was executed, so there is no exit code']]);
        const all = (await call('GET', `/v1/cron-jobs/${job.name}/logs`, owner.session)).result;
        expect(all.map((line: any) => line.message)).to.include(`Run of \`node report.js\` for ${job.name} recorded`);
        expect((await call('GET', `/v1/cron-jobs/${job.name}`, owner.session)).result.lastRunAt).to.equal(run.finishedAt);

        // A run belongs to its own job: another job's path does not reach it.
        const other = await create();
        const elsewhere = await call('GET', `/v1/cron-jobs/${other.name}/runs/${run.id}`, owner.session);
        expect(elsewhere.statusCode).to.equal(404);
        expect(elsewhere.result.message).to.equal('Run not found');
    });

    it('runs the command its live deployment recorded, and the current one before anything is live', async () => {
        const job = await create({ startCommand: 'node v1.js' });
        const deployment = (await call('POST', `/v1/cron-jobs/${job.name}/deployments/new`, owner.session, {})).result;
        expect(deployment).to.include({ cronJobName: job.name, status: 'queued' });
        await eventually(async () => (await call('GET', `/v1/cron-jobs/${job.name}`, owner.session)).result, (found: any) => found.status === 'live', 'the deployment');
        await call('PATCH', `/v1/cron-jobs/${job.name}`, owner.session, { startCommand: 'node v2.js' });

        const run = (await call('POST', `/v1/cron-jobs/${job.name}/runs`, owner.session)).result;
        await eventually(async () => (await call('GET', `/v1/cron-jobs/${job.name}/runs/${run.id}`, owner.session)).result, (found: any) => found.status === 'recorded', 'the run');
        const lines = (await call('GET', `/v1/cron-jobs/${job.name}/runs/${run.id}/logs`, owner.session)).result;
        expect(lines[0].message).to.equal(`Run of \`node v1.js\` for ${job.name} recorded`);

        const build = (await call('GET', `/v1/cron-jobs/${job.name}/deployments/${deployment.id}/logs`, owner.session)).result;
        expect(build.map((line: any) => line.message)).to.include('Build command: (none)');
        const cpu = (await call('GET', `/v1/cron-jobs/${job.name}/metrics/cpu-usage`, owner.session)).result;
        expect(cpu).to.include({ source: 'unavailable', series: [] });
        const found = (await call('GET', `/v1/cron-jobs/${job.name}/search?q=v1.js`, owner.session)).result;
        expect(JSON.stringify(found)).to.include('node v1.js');
        expect((await call('GET', `/v1/cron-jobs/${job.name}/commits`, owner.session)).statusCode).to.equal(409);
    });

    it('deletes a cron job with its runs, deployments and logs, and fires it no more', async () => {
        const job = await create({ environmentVariables: { A: '1' } });
        const run = (await call('POST', `/v1/cron-jobs/${job.name}/runs`, owner.session)).result;
        await eventually(async () => (await call('GET', `/v1/cron-jobs/${job.name}/runs/${run.id}`, owner.session)).result, (found: any) => found.status === 'recorded', 'the run');
        await call('POST', `/v1/cron-jobs/${job.name}/deployments/new`, owner.session, {});
        await eventually(async () => (await call('GET', `/v1/cron-jobs/${job.name}`, owner.session)).result, (found: any) => found.status === 'live', 'the deployment');

        expect((await call('DELETE', `/v1/cron-jobs/${job.name}`, owner.session)).statusCode).to.equal(204);
        expect((await call('GET', `/v1/cron-jobs/${job.name}`, owner.session)).statusCode).to.equal(404);
        const knex = instance.server.app.knex;
        for (const [table, column] of [['cron_runs', 'job_id'], ['deployments', 'resource_id'], ['log_lines', 'resource_id'], ['env_vars', 'resource_id']] as const) {
            expect(await knex(table).where(column, job.id), table).to.equal([]);
        }

        await instance.server.plugins['hostless-resources'].services.scheduler.tick();
        expect(await knex('cron_runs').where('job_id', job.id)).to.equal([]);
    });
});
