import * as Boom from '@hapi/boom';
import type { Knex } from 'knex';

import { isUniqueViolation } from '../db/errors';
import { newId } from '../ids';
import type { Lists } from '../lists';
import type { Page } from '../pagination';
import { sendInvoiceIssued, type OutboxOf } from './messages';
import { Meter, SETTLE_MS } from './meter';
import { PriceVersions } from './prices';
import { priceUsage, type UsageLine } from './usage';

// Invoices: one per project and closed cycle (a calendar month, UTC), made by an idempotent job. The unique key
// (project_id, period_start) makes a second run, or a second process on PostgreSQL, write nothing. The owner's
// credit is applied in the invoice's transaction, under a lock on the owner's billing account, never below zero.
export type InvoiceStatus = 'open' | 'paid' | 'payment_failed' | 'void';

export interface Invoice {
    id: string;
    projectId: string;
    accountId: string;
    status: InvoiceStatus;
    periodStart: string;
    periodEnd: string;
    currency: string;
    lines: UsageLine[];
    subtotal: number;
    creditApplied: number;
    total: number;
    test: boolean;
    failureReason: string | null;
    paymentProvider: string | null;
    paymentReference: string | null;
    paidAt: string | null;
    createdAt: string;
    updatedAt: string;
}

export interface Cycle {
    start: string;                                              // YYYY-MM-DD, inclusive
    end: string;                                                // YYYY-MM-DD, inclusive
    status: 'open' | 'closed';
}

type Row = Record<string, unknown>;

export function toInvoice(row: Row): Invoice {
    return {
        id: row.id as string, projectId: row.project_id as string, accountId: row.account_id as string, status: row.status as InvoiceStatus,
        periodStart: row.period_start as string, periodEnd: row.period_end as string, currency: row.currency as string,
        lines: JSON.parse(row.lines as string) as UsageLine[], subtotal: Number(row.subtotal), creditApplied: Number(row.credit_applied), total: Number(row.total),
        test: !!row.test, failureReason: (row.failure_reason as string | null) ?? null, paymentProvider: (row.payment_provider as string | null) ?? null,
        paymentReference: (row.payment_reference as string | null) ?? null, paidAt: (row.paid_at as string | null) ?? null,
        createdAt: row.created_at as string, updatedAt: row.updated_at as string
    };
}

/** The cycle (calendar month) an instant falls in. */
export function cycleOf(instant: Date): { start: string; end: string; from: string; to: string } {
    const from = new Date(Date.UTC(instant.getUTCFullYear(), instant.getUTCMonth(), 1));
    const to = new Date(Date.UTC(instant.getUTCFullYear(), instant.getUTCMonth() + 1, 1));
    return { start: from.toISOString().slice(0, 10), end: new Date(to.getTime() - 86_400_000).toISOString().slice(0, 10), from: from.toISOString(), to: to.toISOString() };
}

export class Invoices {
    constructor(private readonly knex: Knex, private readonly meter: Meter, private readonly prices: PriceVersions, private readonly clock: () => Date,
        private readonly outbox: OutboxOf = () => null) { }

    /** The current cycle and the eleven before it. */
    cycles(): Cycle[] {
        const now = this.clock();
        return Array.from({ length: 12 }, (_, back) => {
            const cycle = cycleOf(new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - back, 1)));
            return { start: cycle.start, end: cycle.end, status: back === 0 ? 'open' as const : 'closed' as const };
        });
    }

    /** Invoices every project with usage in the cycle before the current one; answers the invoices it made. */
    async closeCycle(): Promise<Invoice[]> {
        const now = this.clock();
        const cycle = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1, 1));
        if (Date.parse(cycleOf(cycle).to) + SETTLE_MS > now.getTime()) {
            return [];                                          // the last hour's measurements may still be arriving
        }

        return this.close(cycle);
    }

    /** Invoices every project with usage in the (closed) cycle an instant falls in, once. */
    async close(instant: Date): Promise<Invoice[]> {
        const cycle = cycleOf(instant);
        if (Date.parse(cycle.to) + SETTLE_MS > this.clock().getTime()) {
            throw new Error(`The cycle starting ${cycle.start} is not over`);
        }

        await this.meter.meterUntil(new Date(cycle.to));
        const projects = (await this.knex('usage_hours').where('hour', '>=', cycle.from).andWhere('hour', '<', cycle.to).distinct('project_id'))
            .map((row: { project_id: string }) => row.project_id);
        const existing = new Set((await this.knex('invoices').where({ period_start: cycle.start }).whereIn('project_id', projects).select('project_id'))
            .map((row: { project_id: string }) => row.project_id));
        const versions = await this.prices.all();
        const made: Invoice[] = [];
        for (const projectId of projects.filter((id) => !existing.has(id))) {
            const [usage] = await priceUsage(this.knex, versions, [projectId], cycle.from, cycle.to);
            const owner = await this.knex<{ user_id: string; project_id: string; role: string; created_at: string }>('memberships')
                .where({ project_id: projectId, role: 'owner' }).orderBy('created_at').first('user_id');
            if (!usage || !owner) {
                continue;                                       // a project gone since (its usage is billed with it gone)
            }

            try {
                made.push(await this.knex.transaction((trx) => this.issue(trx, projectId, owner.user_id, cycle, usage.currency, usage.lines, usage.total)));
            }
            catch (err) {
                if (!isUniqueViolation(err)) {
                    throw err;
                }                                               // another process invoiced it first
            }
        }

        return made;
    }

    private async issue(trx: Knex.Transaction, projectId: string, accountId: string, cycle: { start: string; end: string }, currency: string,
        lines: UsageLine[], subtotal: number): Promise<Invoice> {
        const now = this.clock().toISOString();
        const id = newId('inv');
        // The invoice first: its unique key decides a race before any credit moves.
        await trx('invoices').insert({
            id, project_id: projectId, account_id: accountId, period_start: cycle.start, period_end: cycle.end, currency, lines: JSON.stringify(lines),
            subtotal, credit_applied: 0, total: subtotal, status: 'open', test: false, created_at: now, updated_at: now
        });
        await trx('billing_accounts').insert({ user_id: accountId, updated_at: now }).onConflict('user_id').ignore();
        await trx('billing_accounts').where({ user_id: accountId }).forUpdate().first();
        const balance = Number((await trx('credit_entries').where({ user_id: accountId, currency }).sum({ total: 'amount' }).first())?.total ?? 0);
        const credit = Math.max(0, Math.min(balance, subtotal));
        if (credit > 0) {
            await trx('credit_entries').insert({ id: newId('crd'), user_id: accountId, amount: -credit, currency, reason: 'invoice', reference: id, created_at: now });
        }

        const total = subtotal - credit;
        await trx('invoices').where({ id }).update({
            credit_applied: credit, total, ...(total === 0 ? { status: 'paid', paid_at: now, payment_provider: credit > 0 ? 'credit' : null } : {})
        });
        const outbox = this.outbox();
        if (outbox) {
            await sendInvoiceIssued(outbox, trx, id, balance - credit);     // told in the invoice's transaction: once, or not at all
        }

        return toInvoice(await trx('invoices').where({ id }).first() as Row);
    }

    /**
     * Invoices of projects the user owns or administers (or one of them, within a pinned credential's projects), newest
     * first: one index walk per project, merged (lib/lists.ts), so a page costs the page.
     */
    async list(lists: Lists, who: { userId: string; projectId: string | null; pinnedProjects: readonly string[] | null }, page: { limit: number; cursor?: string }): Promise<Page<Invoice>> {
        const rows = await this.knex<{ project_id: string; user_id: string; role: string }>('memberships').where({ user_id: who.userId }).whereIn('role', ['owner', 'admin']).select('project_id');
        const projects = rows.map((row) => row.project_id)
            .filter((id) => (!who.projectId || id === who.projectId) && (!who.pinnedProjects || who.pinnedProjects.includes(id)));
        return lists.ofProjects({ kind: 'invoice', table: 'invoices', projectColumn: 'project_id' }, projects, page, toInvoice);
    }

    /** An invoice the pipeline resolved, seen only by its project's owners and admins (404 for anyone else, as if missing). */
    visible(row: Row, role: string | null): Invoice {
        if (role !== 'owner' && role !== 'admin') {
            throw Boom.notFound('Invoice not found');
        }

        return toInvoice(row);
    }
}
