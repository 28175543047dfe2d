import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { register } from '../helpers/api';
import { createApp, deploymentSettled, eventually } from '../helpers/apps';
import { dropRedisKeys } from '../helpers/redis';
import { testServer, type TestServer } from '../helpers/server';

const { describe, it, before, after } = exports.lab = Lab.script();
const { expect } = Code;

// The whole server with REDIS_URL set: its jobs go through the outbox into BullMQ, none into the jobs table.
describe('the platform with its job queue on Redis', { skip: !process.env.TEST_REDIS_URL }, () => {

    let instance: TestServer;
    const prefix = `hostless-test-platform-${process.pid}-${Date.now().toString(36)}`;

    before(async () => {
        instance = await testServer({ redisUrl: process.env.TEST_REDIS_URL!, redisPrefix: prefix });
    });

    after(async () => {
        await instance?.stop();
        await dropRedisKeys(process.env.TEST_REDIS_URL!, prefix);
    });

    it('deploys an app through a job moved from the outbox into BullMQ', async () => {
        const { queue } = instance.server.plugins['hostless-jobs'];
        expect(queue.backend).to.equal('bullmq');
        queue.start();
        const owner = await register(instance.server, 'redis');
        const app = await createApp(instance.server, owner);
        const created = await instance.server.inject({ method: 'POST', url: `/v1/apps/${app.name}/deployments/new`, headers: { authorization: owner.session }, payload: {} });
        expect(created.statusCode).to.equal(201);
        const settled = await deploymentSettled(instance.server, owner, app.name, (created.result as { id: string }).id);
        expect(settled.status).to.equal('live');

        const knex = instance.server.app.knex;
        const count = async (table: string) => Number((await knex(table).count({ n: '*' }).first<{ n: number | string }>()).n);
        expect(await count('jobs'), 'the jobs table is unused').to.equal(0);
        // The outbox row is deleted once BullMQ holds the job, and BullMQ marks the job done after its handler returns:
        // both can come a moment after the deployment the job made live.
        await eventually(async () => ({ outbox: await count('job_outbox'), succeeded: (await queue.counts()).succeeded }),
            (seen) => seen.outbox === 0 && seen.succeeded >= 1, 'the outbox emptied and the job marked done');
        await queue.stop();
    });
});
