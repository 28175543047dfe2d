import * as Boom from '@hapi/boom';
import type { Knex } from 'knex';

import type { PriceList } from '../plans';
import type { VmCatalogue } from '../vm/catalogue';
import { Credit } from './credit';
import { Invoices } from './invoices';
import type { OutboxOf } from './messages';
import { Meter, SETTLE_MS } from './meter';
import { exponentOf } from './money';
import { Payments } from './payments';
import { priceBody, PriceVersions } from './prices';
import { PaystackProcessor, StripeProcessor, type ProcessorSettings } from './processors';
import { dayStart, nextDay, priceUsage, type ProjectUsage } from './usage';

// Billing, composed: versioned prices, the hourly meter, invoices, payments, credit (docs/billing.md).
export const MAX_RANGE_DAYS = 366;

export interface BillingOptions {
    knex: Knex;
    prices: PriceList;
    catalogue: VmCatalogue;
    sealKey: Buffer;
    publicUrl: string;
    clock: () => Date;
    stripe: Omit<ProcessorSettings, 'allowlist'> | null;
    paystack: Omit<ProcessorSettings, 'allowlist'> | null;
    allowlist: readonly string[];
    outbox?: OutboxOf;                                          // the notifications outbox, when mounted: billing's messages go through it
}

export interface Breakdown {
    startDate: string;
    endDate: string;
    currency: string;
    total: number;
    projects: ProjectUsage[];
}

export class Billing {
    readonly prices: PriceVersions;
    readonly meter: Meter;
    readonly invoices: Invoices;
    readonly payments: Payments;
    readonly credit: Credit;

    constructor(private readonly options: BillingOptions) {
        this.prices = new PriceVersions(options.knex);
        this.meter = new Meter(options.knex, this.prices);
        this.invoices = new Invoices(options.knex, this.meter, this.prices, options.clock, options.outbox);
        this.credit = new Credit(options.knex, options.clock);
        this.payments = new Payments({
            knex: options.knex, sealKey: options.sealKey, clock: options.clock, publicUrl: options.publicUrl, ...(options.outbox ? { outbox: options.outbox } : {}),
            stripe: options.stripe ? new StripeProcessor({ ...options.stripe, allowlist: options.allowlist }) : null,
            paystack: options.paystack ? new PaystackProcessor({ ...options.paystack, allowlist: options.allowlist }) : null
        });
    }

    /** Adopts the configured prices as the current version (a new version only when they changed); answers what an operator should know. */
    async start(): Promise<string[]> {
        await this.prices.adopt(priceBody(this.options.prices, this.options.catalogue), this.options.clock().toISOString());
        const { prices, catalogue } = this.options;
        return catalogue.currency === prices.currency ? [] : [
            `The VM catalogue prices in ${catalogue.currency} and the price list in ${prices.currency}: virtual machines are not billed until both use one currency`
        ];
    }

    get currency(): string {
        return this.options.prices.currency;
    }

    /** Currencies invoices can be issued in: the price list's (one price list, one currency). */
    currencies(): Array<{ code: string; exponent: number }> {
        return [{ code: this.currency, exponent: exponentOf(this.currency) }];
    }

    /** Usage of the projects between two dates (inclusive), metered up to the last whole hour first. */
    async breakdown(projectIds: readonly string[], startDate: string, endDate: string, types?: readonly string[]): Promise<Breakdown> {
        const from = dayStart(startDate);
        const last = dayStart(endDate);
        if (!from) {
            throw Boom.badRequest('"startDate" must be a real date in the form YYYY-MM-DD');
        }

        if (!last) {
            throw Boom.badRequest('"endDate" must be a real date in the form YYYY-MM-DD');
        }

        if (last < from) {
            throw Boom.badRequest('"endDate" must be on or after "startDate"');
        }

        const days = (Date.parse(last) - Date.parse(from)) / 86_400_000 + 1;
        if (days > MAX_RANGE_DAYS) {
            throw Boom.badRequest(`"endDate" must be within ${MAX_RANGE_DAYS} days of "startDate" (the range covers ${days})`);
        }

        await this.meter.meterUntil(new Date(this.options.clock().getTime() - SETTLE_MS));
        const projects = await priceUsage(this.options.knex, await this.prices.all(), projectIds, from, nextDay(last), types);
        return { startDate, endDate, currency: this.currency, total: projects.reduce((sum, project) => sum + project.total, 0), projects };
    }

    /** The daily job: meter, invoice the last closed cycle, forget webhook records older than seven days. */
    async daily(): Promise<void> {
        await this.meter.meterUntil(new Date(this.options.clock().getTime() - SETTLE_MS));
        await this.invoices.closeCycle();
        await this.payments.prune();
    }
}
