import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { caller, register, type TestUser } from '../../helpers/api';
import { eventually } from '../../helpers/apps';
import { manualClock, type ManualClock } from '../../helpers/clock';
import { postgresUrl, serversSharingPostgres, testServer, type TestServer } from '../../helpers/server';

// The scheduler with a clock the tests move (nothing here sleeps until a due time): each due time produces exactly
// one run however many ticks race for it, a paused job never fires, and after a restart the due times missed while
// no scheduler ran produce one catch-up run per job. On PostgreSQL, two servers on one database claim every due
// time once between them.
const { describe, it, before, after } = exports.lab = Lab.script();
const { expect } = Code;

const scheduler = (instance: TestServer) => instance.server.plugins['hostless-resources'].services.scheduler;
const ticks = async (...instances: TestServer[]) => (await Promise.all(instances.map((instance) => scheduler(instance).tick()))).reduce((sum, count) => sum + count, 0);
const unique = () => `job-${Math.random().toString(36).slice(2, 10)}`;

describe('the scheduler', () => {

    let instance: TestServer;
    let clock: ManualClock;
    let owner: TestUser;
    const call = caller(() => instance.server);
    const create = async (body: Record<string, unknown>) => {
        const res = await call('POST', '/v1/cron-jobs', owner.session, { name: unique(), startCommand: 'node report.js', ...body });
        expect(res.statusCode, res.payload).to.equal(201);
        return res.result;
    };

    const runs = async (name: string) => (await call('GET', `/v1/cron-jobs/${name}/runs?limit=100`, owner.session)).result as any[];

    before(async () => {
        clock = manualClock('2026-01-05T09:58:30.000Z');
        instance = await testServer({}, { clock });
        owner = await register(instance.server, 'scheduler');
    });

    after(async () => {
        await instance?.stop();
    });

    it('claims exactly one run per due time, however many ticks race for it, and runs each through the driver', async () => {
        clock.set('2026-01-05T09:58:30.000Z');
        const job = await create({ schedule: '*/15 * * * *' });
        expect(job).to.include({ timeZone: 'UTC', paused: false, nextRunAt: '2026-01-05T10:00:00.000Z', lastRunAt: null });

        expect(await ticks(instance)).to.equal(0);
        clock.set('2026-01-05T09:59:59.999Z');
        expect(await ticks(instance, instance, instance)).to.equal(0);

        for (const due of ['10:00', '10:15', '10:30', '10:45']) {
            clock.set(`2026-01-05T${due}:00.000Z`);
            expect(await ticks(instance, instance, instance, instance), due).to.equal(1);
            expect(await ticks(instance), due).to.equal(0);
        }

        const claimed = await runs(job.name);
        expect(claimed.map((run) => run.scheduledFor)).to.equal(['45', '30', '15', '00'].map((minute) => `2026-01-05T10:${minute}:00.000Z`));
        expect(claimed.every((run) => run.trigger === 'schedule' && run.status === 'queued' && run.driver === 'records')).to.be.true();
        expect((await call('GET', `/v1/cron-jobs/${job.name}`, owner.session)).result.nextRunAt).to.equal('2026-01-05T11:00:00.000Z');

        // The queue runs them: the records driver executes nothing, so each ends `recorded` with no exit code.
        clock.set('2026-01-05T10:50:00.000Z');
        const { queue } = instance.server.plugins['hostless-jobs'];
        queue.start();
        try {
            const done = await eventually(() => runs(job.name), (list) => list.every((run) => run.status === 'recorded'), 'the runs to be recorded');
            for (const run of done) {
                expect(run).to.include({ exitCode: null, startedAt: '2026-01-05T10:50:00.000Z', finishedAt: '2026-01-05T10:50:00.000Z', durationMs: 0 });
            }

            const logs = await call('GET', `/v1/cron-jobs/${job.name}/runs/${done[0].id}/logs`, owner.session);
            expect(logs.result.map((line: any) => line.message)).to.equal([
                `Run of \`node report.js\` for ${job.name} recorded`, 'The records driver runs no user code: nothing was executed, so there is no exit code'
            ]);
            expect((await call('GET', `/v1/cron-jobs/${job.name}`, owner.session)).result.lastRunAt).to.equal('2026-01-05T10:50:00.000Z');
        }
        finally {
            await queue.stop();
        }
    });

    it('never fires a paused job, and resumes from now without catching up on the paused time', async () => {
        clock.set('2026-01-05T09:58:30.000Z');
        const job = await create({ schedule: '0 * * * *', timeZone: 'Europe/Berlin' });
        expect(job.nextRunAt).to.equal('2026-01-05T10:00:00.000Z');

        const paused = await call('POST', `/v1/cron-jobs/${job.name}/pause`, owner.session);
        expect(paused.result).to.include({ paused: true, nextRunAt: null });
        const again = await call('POST', `/v1/cron-jobs/${job.name}/pause`, owner.session);
        expect(again.statusCode).to.equal(409);
        expect(again.result.message).to.equal(`Cron job ${job.name} is paused: only an active cron job can be paused`);

        for (let hour = 0; hour < 6; ++hour) {
            clock.advance(3600_000);
            await ticks(instance);
        }

        expect(await runs(job.name)).to.equal([]);

        clock.set('2026-01-05T15:58:30.000Z');
        const resumed = await call('POST', `/v1/cron-jobs/${job.name}/resume`, owner.session);
        expect(resumed.result).to.include({ paused: false, nextRunAt: '2026-01-05T16:00:00.000Z' });
        const twice = await call('POST', `/v1/cron-jobs/${job.name}/resume`, owner.session);
        expect(twice.statusCode).to.equal(409);
        expect(twice.result.message).to.equal(`Cron job ${job.name} is active: only a paused cron job can be resumed`);

        expect(await runs(job.name)).to.equal([]);
        clock.set('2026-01-05T16:00:00.000Z');
        await ticks(instance);
        expect((await runs(job.name)).map((run) => [run.scheduledFor, run.trigger])).to.equal([['2026-01-05T16:00:00.000Z', 'schedule']]);
    });

    it('reads a schedule in its time zone, across a daylight saving change', async () => {
        clock.set('2026-03-28T12:00:00.000Z');
        const job = await create({ schedule: '30 2 * * *', timeZone: 'europe/berlin' });
        expect(job).to.include({ timeZone: 'Europe/Berlin', nextRunAt: '2026-03-29T01:30:00.000Z' });     // 02:30 does not exist on the 29th: 03:30 CEST
        clock.set('2026-03-29T01:30:00.000Z');
        await ticks(instance);
        expect((await call('GET', `/v1/cron-jobs/${job.name}`, owner.session)).result.nextRunAt).to.equal('2026-03-30T00:30:00.000Z');
    });

    it('makes a second claim of a due time already run fail on the unique key, and moves the job on', async () => {
        clock.set('2026-01-05T09:58:30.000Z');
        const job = await create({ schedule: '*/5 * * * *' });
        clock.set('2026-01-05T10:00:00.000Z');
        expect(await ticks(instance)).to.equal(1);

        // A process whose clock lags sets the due time already run again: its claim fails, and the job moves on.
        const knex = instance.server.app.knex;
        await knex('cron_jobs').where({ name: job.name }).update({ next_run_at: '2026-01-05T10:00:00.000Z' });
        clock.set('2026-01-05T10:01:00.000Z');
        expect(await ticks(instance)).to.equal(0);
        expect((await runs(job.name)).map((run) => run.scheduledFor)).to.equal(['2026-01-05T10:00:00.000Z']);
        expect((await knex('cron_jobs').where({ name: job.name }).first()).next_run_at).to.equal('2026-01-05T10:05:00.000Z');
    });

    it('fires the apps\' cron jobs on the same scheduler, in UTC', async () => {
        clock.set('2026-01-05T09:58:30.000Z');
        const app = (await call('POST', '/v1/apps', owner.session, { name: unique() })).result;
        const cron = (await call('POST', `/v1/apps/${app.name}/cron-jobs`, owner.session, { name: 'nightly', schedule: '0 10 * * *', command: 'node n.js' })).result;
        expect(cron.nextRunAt).to.equal('2026-01-05T10:00:00.000Z');
        clock.set('2026-01-05T10:00:00.000Z');
        expect(await ticks(instance, instance)).to.be.at.least(1);
        const listed = (await call('GET', `/v1/apps/${app.name}/cron-jobs/${cron.id}/runs`, owner.session)).result;
        expect(listed.map((run: any) => [run.scheduledFor, run.trigger])).to.equal([['2026-01-05T10:00:00.000Z', 'schedule']]);
    });
});

describe('the scheduler after a restart', () => {

    let first: TestServer;
    let second: TestServer | null = null;
    let owner: TestUser;

    before(async () => {
        first = await testServer({}, { clock: manualClock('2026-01-05T10:01:00.000Z') });
        owner = await register(first.server, 'restart');
    });

    after(async () => {
        await second?.stop();
        await first?.stop();
    });

    it('runs once for the due times missed while no scheduler ran (the most recent), then on schedule', async () => {
        const made = await caller(() => first.server)('POST', '/v1/cron-jobs', owner.session, { name: unique(), schedule: '*/10 * * * *', startCommand: 'node sync.js' });
        const job = made.result;
        expect(job.nextRunAt).to.equal('2026-01-05T10:10:00.000Z');

        // The first server never ticks again; three hours later a new one starts on the same database.
        const clock = manualClock('2026-01-05T13:05:00.000Z');
        second = await testServer({ database: first.config.database, sessionSecret: first.config.sessionSecret, encryptionKey: first.config.encryptionKey }, { clock });
        const call = caller(() => second!.server);
        expect(await ticks(second, second)).to.equal(1);
        expect(await ticks(second)).to.equal(0);

        const [catchUp] = (await call('GET', `/v1/cron-jobs/${job.name}/runs`, owner.session)).result;
        expect(catchUp).to.include({ trigger: 'catch-up', scheduledFor: '2026-01-05T13:00:00.000Z', status: 'queued' });
        const logs = (await call('GET', `/v1/cron-jobs/${job.name}/runs/${catchUp.id}/logs`, owner.session)).result;
        expect(logs.map((line: any) => line.message)).to.equal([
            'Catch-up run for 2026-01-05T13:00:00.000Z (*/10 * * * *, UTC): 17 earlier due time(s) from 2026-01-05T10:10:00.000Z on passed while no scheduler ran and were skipped; only the latest runs'
        ]);
        expect((await call('GET', `/v1/cron-jobs/${job.name}`, owner.session)).result.nextRunAt).to.equal('2026-01-05T13:10:00.000Z');

        // A short stop that spans one due time runs it late, as itself.
        clock.set('2026-01-05T13:14:00.000Z');
        expect(await ticks(second)).to.equal(1);
        const latest = (await call('GET', `/v1/cron-jobs/${job.name}/runs`, owner.session)).result;
        expect(latest.map((run: any) => [run.scheduledFor, run.trigger])).to.equal([
            ['2026-01-05T13:10:00.000Z', 'schedule'], ['2026-01-05T13:00:00.000Z', 'catch-up']
        ]);
    });
});

describe('the scheduler of a server that runs background work (JOBS_MODE=all)', () => {

    let instance: TestServer;
    const clock = manualClock('2026-01-05T09:59:59.000Z');

    before(async () => {
        instance = await testServer({ jobs: { mode: 'all', concurrency: 2 } }, { clock, start: true });
    });

    after(async () => {
        await instance?.stop();
    });

    it('ticks by itself from the start: it wakes for a new job, runs it when its time comes, and stops with the server', async () => {
        const owner = await register(instance.server, 'ticking');
        const call = caller(() => instance.server);
        const job = (await call('POST', '/v1/cron-jobs', owner.session, { name: unique(), schedule: '0 10 * * *', startCommand: 'node daily.js' })).result;
        expect(job.nextRunAt).to.equal('2026-01-05T10:00:00.000Z');
        clock.set('2026-01-05T10:00:00.000Z');
        const [run] = await eventually(async () => (await call('GET', `/v1/cron-jobs/${job.name}/runs`, owner.session)).result,
            (list: any[]) => list.length === 1 && list[0].status === 'recorded', 'the run, claimed and executed without a test calling tick');
        expect(run).to.include({ trigger: 'schedule', scheduledFor: '2026-01-05T10:00:00.000Z' });

        expect(scheduler(instance).started).to.be.true();
        await instance.server.stop();
        expect(scheduler(instance).started).to.be.false();
    });
});

describe('the scheduler on PostgreSQL, in two servers on one database', { skip: !postgresUrl }, () => {

    const clock = manualClock('2026-01-05T10:00:30.000Z');
    const pair = serversSharingPostgres({ before, after }, clock);

    it('claims every due time of every job once between them', async () => {
        const [a, b] = pair.servers;
        const owner = await register(a.server, 'two-servers');
        const call = caller(() => a.server);
        const jobs: string[] = [];
        for (let i = 0; i < 6; ++i) {
            const res = await call('POST', '/v1/cron-jobs', owner.session, { name: unique(), schedule: '* * * * *', startCommand: 'node tick.js' });
            expect(res.statusCode).to.equal(201);
            jobs.push(res.result.id);
        }

        const app = (await call('POST', '/v1/apps', owner.session, { name: unique() })).result;
        for (const name of ['one', 'two']) {
            const res = await call('POST', `/v1/apps/${app.name}/cron-jobs`, owner.session, { name, schedule: '* * * * *', command: 'node x.js' });
            jobs.push(res.result.id);
        }

        const claimed: number[] = [];
        for (let minute = 1; minute <= 10; ++minute) {
            clock.set(`2026-01-05T10:${String(minute).padStart(2, '0')}:00.000Z`);
            claimed.push(await ticks(a, b, a, b, b, a));
        }

        expect(claimed).to.equal(Array(10).fill(jobs.length));
        const rows = await pair.db.knex('cron_runs').whereIn('job_id', jobs).select('job_id', 'scheduled_for');
        expect(rows).to.have.length(10 * jobs.length);
        const pairs = new Set(rows.map((row) => `${row.job_id} ${row.scheduled_for}`));
        expect(pairs.size).to.equal(rows.length);
        for (const job of jobs) {
            expect(rows.filter((row) => row.job_id === job).map((row) => row.scheduled_for).sort()).to.equal(
                Array.from({ length: 10 }, (_, i) => `2026-01-05T10:${String(i + 1).padStart(2, '0')}:00.000Z`));
        }
    });
});
