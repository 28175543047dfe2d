import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { newId } from '../../../lib/ids';
import { caller, register } from '../../helpers/api';
import { manualClock } from '../../helpers/clock';
import { postgresUrl, serversSharingPostgres } from '../../helpers/server';

// Two servers on one PostgreSQL database close the same cycle at the same time, over and over: each project gets
// one invoice, each hour is metered once, and the owner's credit is spent once across their projects, never below zero.
const { describe, it, before, after } = exports.lab = Lab.script();
const { expect } = Code;

describe('invoicing on PostgreSQL, in two servers on one database', { skip: !postgresUrl }, () => {

    const clock = manualClock('2026-08-01T03:00:00.000Z');
    const pair = serversSharingPostgres({ before, after }, clock);

    it('makes one invoice per project and spends credit once', async () => {
        const [a, b] = pair.servers;
        const owner = await register(a.server, 'two-servers');
        const team = await caller(() => a.server)('POST', '/v1/projects', owner.session, { name: 'Team' });
        const projects = [owner.projectId, team.result.id as string];
        // July: a standard instance for 100 hours in each project (USD 25 x 100/744 = 3.36...).
        for (const projectId of projects) {
            const event = { resource_type: 'app', resource_id: newId('app'), project_id: projectId, plan: 'standard', storage_gib: 0 };
            await pair.db.knex('allocation_events').insert([
                { ...event, reason: 'started', running: true, instances: 1, at: '2026-07-10T00:00:00.000Z' },
                { ...event, reason: 'deleted', running: false, instances: 0, at: '2026-07-14T04:00:00.000Z' }
            ]);
        }

        await pair.db.knex('credit_entries').insert({ id: newId('crd'), user_id: owner.id, amount: 500, currency: 'USD', reason: 'adjustment', reference: null, created_at: '2026-07-01T00:00:00.000Z' });

        const billings = [a, b].map((server) => server.server.plugins['hostless-billing'].billing);
        await Promise.all([0, 1, 2, 3, 4, 5].map((i) => billings[i % 2].invoices.closeCycle()));

        const invoices = await pair.db.knex('invoices').where({ period_start: '2026-07-01' }).orderBy('project_id');
        expect(invoices.map((row: { project_id: string }) => row.project_id)).to.equal([...projects].sort());
        expect(invoices.map((row: { subtotal: string }) => Number(row.subtotal))).to.equal([336, 336]);
        const credited = invoices.reduce((sum: number, row: { credit_applied: string }) => sum + Number(row.credit_applied), 0);
        expect(credited).to.equal(500);
        const balance = await pair.db.knex('credit_entries').where({ user_id: owner.id }).sum({ total: 'amount' }).first();
        expect(Number(balance!.total)).to.equal(0);
        const hours = await pair.db.knex('usage_hours').count({ n: '*' }).first();
        expect(Number(hours!.n)).to.equal(200);
    });
});
