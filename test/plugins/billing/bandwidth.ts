import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { caller, login, register, type TestUser } from '../../helpers/api';
import { eventually } from '../../helpers/apps';
import { manualClock } from '../../helpers/clock';
import { testServer, type TestServer } from '../../helpers/server';
import { edgeRequest, siteLive } from '../../helpers/sites';
import { DEFAULT_PRICE_LIST } from '../../../lib/plans';

// Bandwidth the edge measured while serving a site is billed with the hour it was served in, at the price list's
// `bandwidthPerGiB`: a line of its own, rounded once like every line.
const { describe, it, before, after } = exports.lab = Lab.script();
const { expect } = Code;

describe('billing the bandwidth the edge measured', () => {

    const clock = manualClock(new Date());
    let instance: TestServer;
    let owner: TestUser;
    const call = caller(() => instance.server);

    before(async () => {
        instance = await testServer({ prices: { ...DEFAULT_PRICE_LIST, bandwidthPerGiB: 1_000_000 } }, { start: true, clock });
        instance.server.plugins['hostless-jobs'].queue.start();
        owner = await register(instance.server, 'served');
    });

    after(async () => {
        await instance?.stop();
    });

    it('meters the bytes served into the hour and prices them per GiB', async () => {
        const name = `bw-${Date.now().toString(36)}`;
        const created = await call('POST', '/v1/sites/from-visual-builder', owner.session, { name, document: { title: 'Bytes', pages: [{ path: '/', title: 'Home', blocks: [{ type: 'heading', text: 'Hello' }] }] } });
        expect(created.statusCode, created.payload).to.equal(201);
        await siteLive(instance.server, owner, name, created.result.deployment.id);
        const port = instance.server.info.port as number;
        for (let i = 0; i < 5; ++i) {
            expect((await edgeRequest(port, `${name}.localhost`, '/')).status).to.equal(200);
        }

        const knex = instance.server.app.knex;
        const site = (await call('GET', `/v1/sites/${name}`, owner.session)).result;
        // The edge writes what it measured every flush (50 ms here), possibly in more than one batch: wait until it holds still.
        const served = async () => Number((await knex('metric_points').where({ resource_id: site.id, metric: 'bandwidth' }).sum({ bytes: 'value' }).first())!.bytes ?? 0);
        let measured = 0;
        await eventually(async () => {
            const before = await served();
            await new Promise((resolve) => setTimeout(resolve, 300));
            measured = await served();
            return before === measured ? measured : 0;
        }, (bytes) => bytes > 0, 'the edge to write everything it measured');

        clock.advance(2 * 3_600_000);
        owner.session = (await login(instance.server, owner)).session;
        const day = new Date(Date.now()).toISOString().slice(0, 10);
        const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
        const breakdown = await call('GET', `/v1/billing/breakdown?startDate=${day}&endDate=${tomorrow}`, owner.session);
        expect(breakdown.statusCode, breakdown.payload).to.equal(200);
        const rows = await knex('usage_hours').where({ resource_id: site.id }).sum({ bytes: 'bandwidth_bytes' }).first();
        expect(Number(rows!.bytes)).to.equal(measured);
        const line = breakdown.result.projects[0].lines.find((entry: { metric: string; resourceName: string }) => entry.metric === 'bandwidth-gib' && entry.resourceName === name);
        expect(line.amount).to.equal(Math.floor(100_000_000 * measured / 1024 ** 3 + 0.5));
    });
});
