import * as Crypto from 'node:crypto';

import type { Knex } from 'knex';

import type { PriceList } from '../plans';
import type { VmCatalogue } from '../vm/catalogue';
import { toMinor } from './money';

// The price list billing uses is versioned in the database: the configured list (PRICE_LIST_FILE, and the VM
// catalogue's prices) becomes a new version the first time a server starts with it, effective from then. Usage rows
// carry the version in force when their hour began, so a price change never reprices the past.
export interface PriceBody {
    list: PriceList;
    vms: { currency: string; sizes: Record<string, { perMonth: number; diskGiB: number }>; extraDiskPerGiBMonth: number };
}

export interface PriceVersion {
    version: number;
    currency: string;
    effectiveFrom: string;
    body: PriceBody;
}

/** What one unit of a resource costs per month, in exact minor units (rounded only on a line). */
export interface UnitPrices {
    instanceMonthly: number;                                    // one running instance of the plan for a whole month
    storageGiBMonthly: number;                                  // one GiB provisioned beyond what the plan includes
    includedGiB: number;
    bandwidthGiB: number;                                       // one GiB served by the edge (not per month)
}

export function priceBody(list: PriceList, catalogue: VmCatalogue): PriceBody {
    return {
        list,
        vms: {
            currency: catalogue.currency,
            sizes: Object.fromEntries(catalogue.sizes.map((size) => [size.slug, { perMonth: size.pricePerMonth, diskGiB: size.diskGiB }])),
            extraDiskPerGiBMonth: catalogue.extraDiskPerGiBMonth
        }
    };
}

/** The unit prices of a resource type and plan under a price version (VM prices count only in the list's currency). */
export function unitPrices(body: PriceBody, type: string, plan: string): UnitPrices {
    const { list } = body;
    const currency = list.currency;
    const byPlan = (prices: Readonly<Record<string, number>>) => toMinor(prices[plan] ?? 0, currency);
    const bandwidthGiB = toMinor(list.bandwidthPerGiB ?? 0, currency);
    switch (type) {
        case 'app':
        case 'worker':
        case 'site':
            return { instanceMonthly: byPlan(list.instancePerMonth), storageGiBMonthly: 0, includedGiB: 0, bandwidthGiB };
        case 'app-process':
            return { instanceMonthly: byPlan(list.instancePerMonth), storageGiBMonthly: 0, includedGiB: 0, bandwidthGiB };
        case 'cron-job':
        case 'app-cron-job':
            return { instanceMonthly: toMinor(list.cronJobPerMonth, currency), storageGiBMonthly: 0, includedGiB: 0, bandwidthGiB };
        case 'database':
            return { instanceMonthly: byPlan(list.databasePerMonth), storageGiBMonthly: toMinor(list.databaseStoragePerGiBMonth ?? 0, currency), includedGiB: 0, bandwidthGiB };
        case 'vm': {
            const size = body.vms.sizes[plan];
            if (!size || body.vms.currency !== currency) {
                return { instanceMonthly: 0, storageGiBMonthly: 0, includedGiB: 0, bandwidthGiB };
            }

            return { instanceMonthly: toMinor(size.perMonth, currency), storageGiBMonthly: toMinor(body.vms.extraDiskPerGiBMonth, currency), includedGiB: size.diskGiB, bandwidthGiB };
        }
        default:
            return { instanceMonthly: 0, storageGiBMonthly: 0, includedGiB: 0, bandwidthGiB };
    }
}

export class PriceVersions {
    private cache = new Map<number, PriceVersion>();

    constructor(private readonly knex: Knex) { }

    /** Records the configured prices as the newest version unless they already are; answers that version. */
    async adopt(body: PriceBody, now: string): Promise<PriceVersion> {
        const json = JSON.stringify(body);
        const digest = Crypto.createHash('sha256').update(json).digest('hex');
        const latest = await this.knex<{ digest: string }>('price_lists').orderBy('version', 'desc').first();
        if (!latest || latest.digest !== digest) {
            await this.knex('price_lists').insert({ digest, currency: body.list.currency, body: json, effective_from: now });
        }

        return (await this.all()).at(-1)!;
    }

    async all(): Promise<PriceVersion[]> {
        const rows = await this.knex('price_lists').orderBy('version');
        return rows.map((row: { version: number; currency: string; effective_from: string; body: string }) => {
            const version = Number(row.version);
            const cached = this.cache.get(version) ?? { version, currency: row.currency, effectiveFrom: row.effective_from, body: JSON.parse(row.body) as PriceBody };
            this.cache.set(version, cached);
            return cached;
        });
    }

    /** The version in force at an instant: the newest that took effect by then (the first, before any did). */
    static at(versions: readonly PriceVersion[], instant: string): PriceVersion {
        let found = versions[0];
        for (const version of versions) {
            if (version.effectiveFrom <= instant) {
                found = version;
            }
        }

        return found;
    }
}
