import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { HISTORY_PRUNE_JOB } from '../../lib/resources/retention';
import { caller, register, type TestUser } from '../helpers/api';
import { createApp, eventually } from '../helpers/apps';
import { testServer, type TestServer } from '../helpers/server';

const { describe, it, before, after } = exports.lab = Lab.script();
const { expect } = Code;

// LOG_RETENTION_DAYS: log lines and finished cron runs older than it are deleted by an hourly job, lines in the order
// they were written; what is newer, and a run still going, stays.
describe('history retention', () => {

    let instance: TestServer;
    let owner: TestUser;
    const call = caller(() => instance.server);
    const DAY = 86_400_000;
    const ago = (days: number) => new Date(Date.now() - days * DAY).toISOString();

    before(async () => {
        instance = await testServer({ logRetentionDays: 30 }, { start: true });
        owner = await register(instance.server, 'retention');
    });

    after(async () => {
        await instance?.stop();
    });

    const write = async (app: { id: string; projectId: string }, lines: Array<[string, string]>) => {
        for (const [message, timestamp] of lines) {     // one at a time: the write order is the test's
            await instance.server.plugins['hostless-resources'].services.logs.writeMany(instance.server.app.knex, [{
                resourceType: 'app', resourceId: app.id, projectId: app.projectId, stream: 'runtime', level: 'info', message, timestamp
            }]);
        }
    };
    const search = async (name: string, q?: string) => (await call('GET', `/v1/apps/${name}/logs?since=2000-01-01T00:00:00.000Z${q ? `&q=${q}` : ''}`, owner.session)).result.map((line: { message: string }) => line.message);

    it('deletes old lines batch by batch in write order, and stops at the first batch with a line to keep', async () => {
        const app = await createApp(instance.server, owner);
        await write(app, [['old-one', ago(40)], ['old-two', ago(39)], ['old-three', ago(38)], ['new-one', ago(1)], ['old-late', ago(50)], ['new-two', ago(0)]]);
        const { logs } = instance.server.plugins['hostless-resources'].services;
        expect(await logs.prune(ago(30), 2)).to.equal(3);
        expect((await search(app.name)).sort()).to.equal(['new-one', 'new-two', 'old-late']);
        expect(await search(app.name, 'old-t')).to.equal([]);                   // the search index forgot them too
        expect(await logs.prune(ago(30), 2)).to.equal(1);                       // once the lines before it went
        expect((await search(app.name)).sort()).to.equal(['new-one', 'new-two']);
    });

    it('runs every hour with the queue: old lines and finished runs go, a running one and newer ones stay', async () => {
        const app = await createApp(instance.server, owner);
        await write(app, [['stale line', ago(31)], ['fresh line', ago(29)]]);
        const job = await call('POST', '/v1/cron-jobs', owner.session, { name: 'nightly-retention', schedule: '0 3 * * *', startCommand: 'echo hi' });
        expect(job.statusCode, job.payload).to.equal(201);
        const runs: string[] = [];
        for (let i = 0; i < 3; ++i) {
            const run = await call('POST', '/v1/cron-jobs/nightly-retention/runs', owner.session);
            expect(run.statusCode).to.equal(201);
            runs.push(run.result.id);
        }

        const { knex } = instance.server.app;
        await knex('cron_runs').where({ id: runs[0] }).update({ created_at: ago(31), status: 'succeeded' });
        await knex('cron_runs').where({ id: runs[1] }).update({ created_at: ago(31), status: 'running' });
        await knex('cron_runs').where({ id: runs[2] }).update({ status: 'failed' });

        instance.server.plugins['hostless-jobs'].queue.start();
        await eventually(() => knex('jobs').where({ type: HISTORY_PRUNE_JOB, status: 'succeeded' }).first(), (row) => !!row, 'the prune job');
        expect(await search(app.name, 'line')).to.equal(['fresh line']);
        expect((await knex('cron_runs').where('job_id', job.result.id).orderBy('id').pluck('id')).sort()).to.equal([runs[1], runs[2]].sort());
        expect(Number((await knex('jobs').where({ type: HISTORY_PRUNE_JOB, status: 'queued' }).count({ n: '*' }).first())?.n)).to.equal(1);    // the next hour's
    });
});
