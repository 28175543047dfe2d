import type { Knex } from 'knex';

import { roundHalfUp } from './money';
import { HOUR_MS } from './meter';
import { PriceVersions, unitPrices, type PriceVersion } from './prices';

// Prices the hourly usage rows of a period into lines, one per project, resource, plan and metric. A month's price
// covers its calendar month: a piece of usage costs unit x (its milliseconds / the month's milliseconds), summed
// exactly over the period's hours and months, and each line is rounded once, half up, to a minor unit; a total is
// the sum of its lines. An invoice is the breakdown of its cycle, so the two agree to the minor unit.
export type Metric = 'instance-hours' | 'storage-gib-hours' | 'bandwidth-gib';
const GIB = 1024 ** 3;

export interface UsageLine {
    resourceType: string;
    resourceId: string;
    resourceName: string;
    plan: string | null;
    metric: Metric;
    quantity: number;                                           // instance-hours or GiB-hours, to 4 decimal places
    amount: number;                                             // minor units
}

export interface ProjectUsage {
    projectId: string;
    currency: string;
    total: number;
    lines: UsageLine[];
}

interface Grouped {
    project_id: string;
    resource_type: string;
    resource_id: string;
    resource_name: string;
    plan: string;
    price_version: number;
    month: string;
    instance_ms: number | string;
    storage_gib_ms: number | string;
    bandwidth_bytes: number | string;
}

const monthMs = (month: string) => {
    const [year, mon] = month.split('-').map(Number) as [number, number];
    return Date.UTC(year, mon, 1) - Date.UTC(year, mon - 1, 1);
};

/** Usage of the given projects in [from, to) (hour-aligned ISO instants), priced; projects without usage are left out. */
export async function priceUsage(knex: Knex, versions: readonly PriceVersion[], projectIds: readonly string[], from: string, to: string,
    types?: readonly string[]): Promise<ProjectUsage[]> {
    if (!projectIds.length) {
        return [];
    }

    const rows: Grouped[] = [];
    for (let i = 0; i < projectIds.length; i += 500) {
        const query = knex('usage_hours')
            .whereIn('project_id', projectIds.slice(i, i + 500)).andWhere('hour', '>=', from).andWhere('hour', '<', to)
            .select('project_id', 'resource_type', 'resource_id', 'plan', 'price_version', knex.raw('substr(hour, 1, 7) as month'))
            .max({ resource_name: 'resource_name' }).sum({ instance_ms: 'instance_ms', storage_gib_ms: 'storage_gib_ms', bandwidth_bytes: 'bandwidth_bytes' })
            .groupBy('project_id', 'resource_type', 'resource_id', 'plan', 'price_version', knex.raw('substr(hour, 1, 7)'));
        if (types) {
            query.whereIn('resource_type', types);
        }

        rows.push(...await query as Grouped[]);
    }

    const current = versions.at(-1)!;
    const byVersion = new Map(versions.map((version) => [version.version, version]));
    const lines = new Map<string, UsageLine & { projectId: string; exact: number; used: number }>();
    // `used` is milliseconds for the monthly metrics (priced by their share of the month), bytes for bandwidth.
    const add = (row: Grouped, metric: Metric, used: number, unit: number) => {
        if (used <= 0) {
            return;
        }

        const key = `${row.project_id}|${row.resource_id}|${row.plan}|${metric}`;
        const line = lines.get(key) ?? {
            projectId: row.project_id, resourceType: row.resource_type, resourceId: row.resource_id, resourceName: row.resource_name,
            plan: row.plan || null, metric, quantity: 0, amount: 0, exact: 0, used: 0
        };
        line.used += used;
        line.exact += metric === 'bandwidth-gib' ? unit * used / GIB : unit * used / monthMs(row.month);
        lines.set(key, line);
    };

    for (const row of rows) {
        const version = byVersion.get(Number(row.price_version)) ?? PriceVersions.at(versions, `${row.month}-01T00:00:00.000Z`);
        if (version.currency !== current.currency) {
            continue;                                           // usage priced in another currency is not this list's to bill
        }

        const unit = unitPrices(version.body, row.resource_type, row.plan);
        add(row, 'instance-hours', Number(row.instance_ms), unit.instanceMonthly);
        add(row, 'storage-gib-hours', Number(row.storage_gib_ms), unit.storageGiBMonthly);
        add(row, 'bandwidth-gib', Number(row.bandwidth_bytes), unit.bandwidthGiB);
    }

    const projects = new Map<string, ProjectUsage>();
    for (const { exact, used, projectId, ...line } of [...lines.values()].sort((a, b) => a.resourceName.localeCompare(b.resourceName) || a.metric.localeCompare(b.metric))) {
        const project = projects.get(projectId) ?? { projectId, currency: current.currency, total: 0, lines: [] };
        const quantity = line.metric === 'bandwidth-gib' ? used / GIB : used / HOUR_MS;
        const priced = { ...line, quantity: Math.round(quantity * 10_000) / 10_000, amount: roundHalfUp(exact) };
        project.lines.push(priced);
        project.total += priced.amount;
        projects.set(projectId, project);
    }

    return [...projects.values()];
}

/** `YYYY-MM-DD` to the instant its day begins; null for an impossible date (2026-02-30). */
export function dayStart(date: string): string | null {
    const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(date);
    if (!match) {
        return null;
    }

    const ms = Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3]));
    const value = new Date(ms).toISOString();
    return value.slice(0, 10) === date ? value : null;
}

export const nextDay = (instant: string) => new Date(Date.parse(instant) + 24 * HOUR_MS).toISOString();
