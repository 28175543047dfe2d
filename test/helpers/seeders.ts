import type { Server } from '@hapi/hapi';
import * as Jose from 'jose';

import { cycleOf } from '../../lib/billing/invoices';
import { newId } from '../../lib/ids';
import { login, type TestUser } from './api';

// Fixtures no route makes (lib/route-table.ts `seed`): an invoice needs a closed cycle with usage, a campaign is made
// with the CLI. Each is made through the billing services; only the usage is written straight into the allocation
// history, back in a closed cycle, since no request can happen in the past.
export type Seeder = (server: Server, owner: TestUser) => Promise<string>;

/** Ten hours of one starter instance in the cycle `monthsBack` months ago, for a project, invoiced; answers the invoice id. */
export async function seedInvoice(server: Server, projectId: string, monthsBack: number): Promise<string> {
    const { billing } = server.plugins['hostless-billing'];
    const knex = server.app.knex;
    const now = new Date();
    const cycle = cycleOf(new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - monthsBack, 1)));
    const existing = await knex<{ id: string; project_id: string; period_start: string }>('invoices').where({ project_id: projectId, period_start: cycle.start }).first('id');
    if (existing) {
        return existing.id;
    }

    const start = Date.parse(cycle.from) + 3_600_000;
    const event = { resource_type: 'app', resource_id: newId('app'), project_id: projectId, plan: 'starter', storage_gib: 0 };
    await knex('allocation_events').insert([
        { ...event, reason: 'started', running: true, instances: 1, at: new Date(start).toISOString() },
        { ...event, reason: 'deleted', running: false, instances: 0, at: new Date(start + 10 * 3_600_000).toISOString() }
    ]);
    await knex('usage_meter').delete();                         // meter again from the start: the new history is in the past
    await billing.invoices.close(new Date(cycle.from));
    const made = await knex<{ id: string; project_id: string; period_start: string }>('invoices').where({ project_id: projectId, period_start: cycle.start }).first('id');
    return made!.id;
}

export const SEEDERS: Readonly<Record<string, Seeder>> = {
    // Another sign-in of the owner: the session id is the access token's `sid`.
    session: async (server, owner) => {
        const { accessToken } = await login(server, owner);
        return (Jose.decodeJwt(accessToken) as { sid: string }).sid;
    },
    invoice: async (server, owner) => {
        await server.plugins['hostless-billing'].billing.payments.saveCard(owner.id, 'stripe', 'cus_seeded', 'pm_card_visa', 'visa ending 4242');
        return seedInvoice(server, owner.projectId, 1);
    },
    paidInvoice: async (server, owner) => {
        const id = await seedInvoice(server, owner.projectId, 2);
        await server.app.knex('invoices').where({ id }).update({ status: 'paid', paid_at: new Date().toISOString(), payment_provider: 'stripe', payment_reference: 'pi_seeded' });
        return id;
    },
    // One campaign per server, whose code the route example names: a code is nobody's resource.
    campaign: async (server) => {
        const code = 'SUITE-WELCOME';
        if (await server.app.knex('campaigns').where({ code }).first()) {
            return code;
        }

        const campaign = await server.plugins['hostless-billing'].billing.credit.createCampaign({
            code, amount: 500, currency: 'USD',
            startsAt: new Date(Date.now() - 86_400_000).toISOString(), endsAt: new Date(Date.now() + 86_400_000).toISOString()
        });
        return campaign.code;
    }
};
