import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { caller, login, register, type TestUser } from '../../helpers/api';
import { eventually } from '../../helpers/apps';
import { manualClock } from '../../helpers/clock';
import { testServer, type TestServer } from '../../helpers/server';

// An app's worker processes are metered while the app has a live deployment, on the app's plan as of its latest
// live deployment; its cron jobs while active; both end with the app.
const { describe, it, before, after } = exports.lab = Lab.script();
const { expect } = Code;

describe('billing an app\'s worker processes and cron jobs', () => {

    const clock = manualClock('2026-09-01T00:00:00.000Z');
    let instance: TestServer;
    let owner: TestUser;
    const call = caller(() => instance.server);

    before(async () => {
        instance = await testServer({}, { clock });
        instance.server.plugins['hostless-jobs'].queue.start();
        owner = await register(instance.server, 'children');
    });

    after(async () => {
        await instance?.stop();
    });

    const deploy = async () => {
        const deployment = await call('POST', '/v1/apps/parent/deployments/new', owner.session, {});
        expect(deployment.statusCode, deployment.payload).to.equal(201);
        await eventually(async () => (await call('GET', `/v1/apps/parent/deployments/${deployment.result.id}`, owner.session)).result.status, (status) => status === 'live', 'live');
    };

    it('follows the app: waiting for its first live deployment, its plan, pauses, and its deletion', async () => {
        expect((await call('POST', '/v1/apps', owner.session, { name: 'parent', plan: 'standard' })).statusCode).to.equal(201);
        expect((await call('POST', '/v1/apps/parent/worker-processes', owner.session, { name: 'queue', command: 'q', instances: 2 })).statusCode).to.equal(201);
        const job = await call('POST', '/v1/apps/parent/cron-jobs', owner.session, { name: 'nightly', schedule: '0 3 * * *', command: 'n' });
        expect(job.statusCode).to.equal(201);

        clock.set('2026-09-01T02:00:00.000Z');                     // two hours before the app runs: the process waits
        owner.session = (await login(instance.server, owner)).session;
        await deploy();
        clock.set('2026-09-01T05:00:00.000Z');                     // three hours on standard
        owner.session = (await login(instance.server, owner)).session;
        expect((await call('PATCH', '/v1/apps/parent/upgrade', owner.session, { plan: 'pro' })).statusCode).to.equal(200);
        await deploy();
        expect((await call('PATCH', `/v1/apps/parent/cron-jobs/${job.result.id}`, owner.session, { status: 'paused' })).statusCode).to.equal(200);
        clock.set('2026-09-01T09:00:00.000Z');                     // four hours on pro, the cron job paused
        owner.session = (await login(instance.server, owner)).session;
        expect((await call('DELETE', '/v1/apps/parent', owner.session)).statusCode).to.be.within(200, 204);

        clock.set('2026-09-02T00:10:00.000Z');
        owner.session = (await login(instance.server, owner)).session;
        const breakdown = await call('GET', '/v1/billing/breakdown?startDate=2026-09-01&endDate=2026-09-01', owner.session);
        expect(breakdown.statusCode, breakdown.payload).to.equal(200);
        const lines = breakdown.result.projects[0].lines.map((line: { resourceType: string; plan: string | null; quantity: number }) => [line.resourceType, line.plan, line.quantity]);
        expect(lines).to.contain([['app-process', 'standard', 6], ['app-process', 'pro', 8], ['app-cron-job', null, 5]]);
    });
});
