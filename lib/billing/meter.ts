import type { Knex } from 'knex';

import { PriceVersions, unitPrices, type PriceVersion } from './prices';

// Hourly usage rows from the allocation events lib/resources records (docs/runtime-kinds.md): each resource's
// allocation holds from one event to the next, so the usage of an hour is the sum over the pieces of those intervals
// that fall in it: instances x milliseconds while running, and GiB x milliseconds provisioned (beyond what the plan
// includes) until deleted. Rows are keyed by (resource, project, hour, plan) and inserted once: metering the same
// hours twice, or from two processes, writes nothing new.
export const HOUR_MS = 3_600_000;
/** An hour is metered once it ended this long ago: the edge writes what it measured at most every five minutes. */
export const SETTLE_MS = 6 * 60_000;
const CHUNK_HOURS = 24 * 7;

const TABLES: Readonly<Record<string, string>> = {
    app: 'apps', site: 'sites', worker: 'workers', 'cron-job': 'cron_jobs', database: 'databases', vm: 'virtual_machines',
    'app-process': 'app_processes', 'app-cron-job': 'app_cron_jobs'
};

interface EventRow {
    seq: number;
    resource_type: string;
    resource_id: string;
    project_id: string;
    reason: string;
    running: number | boolean;
    instances: number;
    plan: string | null;
    storage_gib: number;
    at: string;
}

interface UsageRow {
    project_id: string;
    resource_type: string;
    resource_id: string;
    resource_name: string;
    hour: string;
    plan: string;
    instance_ms: number;
    storage_gib_ms: number;
    bandwidth_bytes: number;
    price_version: number;
}

export const floorHour = (ms: number) => Math.floor(ms / HOUR_MS) * HOUR_MS;
const iso = (ms: number) => new Date(ms).toISOString();

export class Meter {
    constructor(private readonly knex: Knex, private readonly prices: PriceVersions) { }

    /** The instant before which every hour is metered (null before the first metering). */
    async meteredUntil(): Promise<string | null> {
        const row = await this.knex<{ id: string; metered_until: string }>('usage_meter').where({ id: 'hourly' }).first();
        return row?.metered_until ?? null;
    }

    /** Meters every whole hour before `until` not metered yet; answers the new mark. */
    async meterUntil(until: Date): Promise<string> {
        const end = floorHour(until.getTime());
        const mark = await this.meteredUntil();
        let from: number;
        if (mark) {
            from = Date.parse(mark);
        }
        else {
            const first = await this.knex('allocation_events').min({ at: 'at' }).first();
            from = first?.at ? floorHour(Date.parse(first.at as string)) : end;
        }

        const versions = await this.prices.all();
        while (from < end) {
            const to = Math.min(end, from + CHUNK_HOURS * HOUR_MS);
            await this.meterRange(from, to, versions);
            from = to;
        }

        return mark && Date.parse(mark) > end ? mark : iso(end);
    }

    private async meterRange(from: number, to: number, versions: readonly PriceVersion[]): Promise<void> {
        const fromIso = iso(from);
        const toIso = iso(to);
        // Each resource's state when the range begins (its last earlier event), then its events within the range.
        const before = await this.knex<EventRow>('allocation_events')
            .whereIn('seq', this.knex('allocation_events').max('seq').where('at', '<', fromIso).groupBy('resource_id'));
        const within = await this.knex<EventRow>('allocation_events').where('at', '>=', fromIso).andWhere('at', '<', toIso).orderBy('seq');

        const timelines = new Map<string, EventRow[]>();
        for (const event of [...before.filter((row) => row.reason !== 'deleted'), ...within]) {
            const list = timelines.get(event.resource_id) ?? [];
            list.push(event);
            timelines.set(event.resource_id, list);
        }

        const usage = new Map<string, UsageRow>();
        for (const events of timelines.values()) {
            events.forEach((event, index) => {
                const start = Math.max(from, Date.parse(event.at));
                const stop = index + 1 < events.length ? Math.max(start, Date.parse(events[index + 1].at)) : to;
                this.spread(usage, event, start, Math.min(stop, to), versions);
            });
        }

        await this.bandwidth(usage, timelines, from, to, versions);
        const rows = [...usage.values()].filter((row) => row.instance_ms > 0 || row.storage_gib_ms > 0 || row.bandwidth_bytes > 0);
        await this.name(rows);
        await this.knex.transaction(async (trx) => {
            for (let i = 0; i < rows.length; i += 200) {
                await trx('usage_hours').insert(rows.slice(i, i + 200)).onConflict(['resource_id', 'project_id', 'hour', 'plan']).ignore();
            }

            const updated = await trx('usage_meter').where({ id: 'hourly' }).andWhere('metered_until', '<', toIso).update({ metered_until: toIso });
            if (!updated) {
                await trx('usage_meter').insert({ id: 'hourly', metered_until: toIso }).onConflict('id').ignore();
            }
        });
    }

    /** Adds an interval of one state to the hours it covers. */
    private spread(usage: Map<string, UsageRow>, event: EventRow, start: number, stop: number, versions: readonly PriceVersion[]): void {
        if (event.reason === 'deleted' || stop <= start) {
            return;
        }

        const running = !!event.running;
        const plan = event.plan ?? '';
        for (let hour = floorHour(start); hour < stop; hour += HOUR_MS) {
            const piece = Math.min(stop, hour + HOUR_MS) - Math.max(start, hour);
            const version = PriceVersions.at(versions, iso(hour));
            const extraGiB = Math.max(0, Number(event.storage_gib) - unitPrices(version.body, event.resource_type, plan).includedGiB);
            const key = `${event.resource_id}|${event.project_id}|${hour}|${plan}`;
            const row = usage.get(key) ?? {
                project_id: event.project_id, resource_type: event.resource_type, resource_id: event.resource_id, resource_name: event.resource_id,
                hour: iso(hour), plan, instance_ms: 0, storage_gib_ms: 0, bandwidth_bytes: 0, price_version: version.version
            };
            row.instance_ms += running ? Number(event.instances) * piece : 0;
            row.storage_gib_ms += Math.round(extraGiB * piece);
            usage.set(key, row);
        }
    }

    /**
     * Adds the bytes the edge measured (metric points `bandwidth`, by minute) to each hour, for the project and plan the
     * resource had at the end of that hour.
     */
    private async bandwidth(usage: Map<string, UsageRow>, timelines: Map<string, EventRow[]>, from: number, to: number, versions: readonly PriceVersion[]): Promise<void> {
        const query = this.knex('metric_points').where({ metric: 'bandwidth' }).andWhere('at', '>=', from).andWhere('at', '<', to)
            .select('resource_id', this.knex.raw(`(at / ${HOUR_MS}) as h`)).sum({ bytes: 'value' })
            .groupBy('resource_id', this.knex.raw(`(at / ${HOUR_MS})`));
        const served = await query as unknown as Array<{ resource_id: string; h: number | string; bytes: number | string }>;
        for (const point of served) {
            const hour = Number(point.h) * HOUR_MS;
            const events = timelines.get(point.resource_id);
            const state = events?.filter((event) => Date.parse(event.at) < hour + HOUR_MS).at(-1) ?? events?.[0];
            if (!state || !(Number(point.bytes) > 0)) {
                continue;                                       // nothing says whose it is: no allocation history
            }

            const plan = state.plan ?? '';
            const key = `${state.resource_id}|${state.project_id}|${hour}|${plan}`;
            const row = usage.get(key) ?? {
                project_id: state.project_id, resource_type: state.resource_type, resource_id: state.resource_id, resource_name: state.resource_id,
                hour: iso(hour), plan, instance_ms: 0, storage_gib_ms: 0, bandwidth_bytes: 0, price_version: PriceVersions.at(versions, iso(hour)).version
            };
            row.bandwidth_bytes += Math.round(Number(point.bytes));
            usage.set(key, row);
        }
    }

    /** Names each row by its resource's current name, or the name an earlier row recorded once it is gone. */
    private async name(rows: UsageRow[]): Promise<void> {
        const byType = new Map<string, Set<string>>();
        for (const row of rows) {
            byType.set(row.resource_type, (byType.get(row.resource_type) ?? new Set()).add(row.resource_id));
        }

        const names = new Map<string, string>();
        for (const [type, ids] of byType) {
            const table = TABLES[type];
            const list = [...ids];
            for (let i = 0; i < list.length; i += 500) {
                const slice = list.slice(i, i + 500);
                const found: Array<{ id: string; name: string }> = table ? await this.knex<{ id: string; name: string }>(table).whereIn('id', slice).select('id', 'name') : [];
                const earlier = await this.knex<{ resource_id: string; resource_name: string }>('usage_hours').whereIn('resource_id', slice).distinct('resource_id', 'resource_name');
                for (const row of [...earlier.map((e) => ({ id: e.resource_id, name: e.resource_name })), ...found]) {
                    names.set(row.id, row.name);
                }
            }
        }

        for (const row of rows) {
            row.resource_name = names.get(row.resource_id) ?? row.resource_id;
        }
    }
}
