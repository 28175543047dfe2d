import * as Boom from '@hapi/boom';
import type { Knex } from 'knex';

import { isUniqueViolation } from '../db/errors';
import { newId } from '../ids';

// Account credit, a ledger of signed entries in minor units (granted by campaigns, applied to invoices), and
// campaigns: promotional codes an operator creates with the CLI, each redeemable once per account between its dates.
export interface CreditEntry {
    id: string;
    amount: number;
    currency: string;
    reason: string;
    reference: string | null;
    createdAt: string;
}

export interface Campaign {
    id: string;
    code: string;
    amount: number;
    currency: string;
    startsAt: string;
    endsAt: string;
    createdAt: string;
}

const toCampaign = (row: Record<string, unknown>): Campaign => ({
    id: row.id as string, code: row.code as string, amount: Number(row.amount), currency: row.currency as string,
    startsAt: row.starts_at as string, endsAt: row.ends_at as string, createdAt: row.created_at as string
});

export class Credit {
    constructor(private readonly knex: Knex, private readonly clock: () => Date) { }

    /** The balance per currency and the latest entries, newest first. */
    async of(userId: string, limit = 50): Promise<{ balances: Array<{ currency: string; balance: number }>; history: CreditEntry[] }> {
        const balances = await this.knex('credit_entries').where({ user_id: userId }).groupBy('currency').select('currency').sum({ balance: 'amount' }).orderBy('currency') as unknown as Array<{ currency: string; balance: number | string }>;
        const rows = await this.knex('credit_entries').where({ user_id: userId }).orderBy([{ column: 'created_at', order: 'desc' }, { column: 'id', order: 'desc' }]).limit(limit);
        return {
            balances: balances.map((row) => ({ currency: row.currency, balance: Number(row.balance) })),
            history: rows.map((row: Record<string, unknown>) => ({
                id: row.id as string, amount: Number(row.amount), currency: row.currency as string, reason: row.reason as string,
                reference: (row.reference as string | null) ?? null, createdAt: row.created_at as string
            }))
        };
    }

    async createCampaign(input: { code: string; amount: number; currency: string; startsAt: string; endsAt: string }): Promise<Campaign> {
        if (!Number.isInteger(input.amount) || input.amount <= 0) {
            throw Boom.badRequest('"amount" must be a positive whole number of minor units (500 is 5.00 USD)');
        }

        if (!(Date.parse(input.startsAt) < Date.parse(input.endsAt))) {
            throw Boom.badRequest('"endsAt" must be after "startsAt"');
        }

        const row = {
            id: newId('cmp'), code: input.code.toUpperCase(), amount: input.amount, currency: input.currency, starts_at: new Date(input.startsAt).toISOString(),
            ends_at: new Date(input.endsAt).toISOString(), created_at: this.clock().toISOString()
        };
        try {
            await this.knex('campaigns').insert(row);
        }
        catch (err) {
            throw isUniqueViolation(err) ? Boom.conflict(`A campaign with the code ${row.code} exists`) : err;
        }

        return toCampaign(row);
    }

    /** Redeems a code once for an account within its dates: the credit is granted in the same transaction. */
    async redeem(userId: string, code: string): Promise<{ campaign: Campaign; entry: CreditEntry }> {
        const now = this.clock().toISOString();
        const row = await this.knex<Record<string, string>>('campaigns').where({ code: code.toUpperCase() }).first();
        if (!row || row.starts_at > now || row.ends_at <= now) {
            throw Boom.notFound('No campaign with this code is running');
        }

        const campaign = toCampaign(row);
        const entry = { id: newId('crd'), user_id: userId, amount: campaign.amount, currency: campaign.currency, reason: 'campaign', reference: campaign.id, created_at: now };
        try {
            await this.knex.transaction(async (trx) => {
                await trx('campaign_redemptions').insert({ campaign_id: campaign.id, user_id: userId, redeemed_at: now });
                await trx('credit_entries').insert(entry);
            });
        }
        catch (err) {
            throw isUniqueViolation(err) ? Boom.conflict('This code has already been redeemed by your account') : err;
        }

        return { campaign, entry: { id: entry.id, amount: entry.amount, currency: entry.currency, reason: entry.reason, reference: entry.reference, createdAt: now } };
    }
}
