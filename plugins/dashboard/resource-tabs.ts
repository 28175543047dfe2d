import type { ResponseObject } from '@hapi/hapi';
import Joi from 'joi';

import { MAX_LOG_LIMIT } from '../../lib/resources/logs';
import { PERMISSIONS } from '../../lib/roles';
import { apiError, nextCursor, required, type Answer } from './api';
import { chart, metricTitle, type Series } from './charts';
import { allowed, metricRoute, type TabId } from './kinds';
import type { LogLine } from './live-tail';
import { text } from './forms';
import type { Page } from './page';
import type { Loaded } from './resource-page';

// The tabs of a resource page (deployments, logs, metrics, environment, domains, cron jobs, runs, worker processes,
// collaborators, linked apps, firewall, size), each read through the resource's API routes with the visitor's session.

export const params = Joi.object({ kind: Joi.string().max(32).required(), name: Joi.string().max(128).required() });

/** What a form of a tab needs of the page around it (routes/resources.ts makes it). */
export interface ResourceKit {
    loaded: (p: Page) => Promise<Loaded>;
    tabOf: (loaded: Loaded, id: string) => TabId;
    tabPage: (p: Page, loaded: Loaded, tab: TabId, extra?: Record<string, unknown>, status?: number) => Promise<ResponseObject>;
    answered: (p: Page, loaded: Loaded, tab: TabId | null, answer: Answer, ok: number[], notice: string, extra?: Record<string, unknown>) => Promise<ResponseObject>;
}

export interface FirewallRule {
    protocol: string;
    ports?: string | null;
    source: string;
    description?: string | null;
}

export interface Firewall {
    rules: FirewallRule[];
    updatedAt: string;
}

export const PROTOCOLS = ['tcp', 'udp', 'icmp'] as const;
export const LEVELS = ['debug', 'info', 'warn', 'error'] as const;
export const logQuery = Joi.object({
    q: text(200), level: Joi.string().valid('', ...LEVELS), since: text(40)
});
export const RANGES: Record<string, { label: string; ms: number; step: number }> = {
    '1h': { label: 'Last hour', ms: 3_600_000, step: 60 },
    '24h': { label: 'Last 24 hours', ms: 86_400_000, step: 1800 },
    '7d': { label: 'Last 7 days', ms: 7 * 86_400_000, step: 3 * 3600 }
};

export interface Deployment {
    id: string;
    status: string;
    trigger: string;
    driver: string;
    error: string | null;
    commitSha: string | null;
    branch: string | null;
    configuration: unknown;
    createdAt: string;
    buildingAt: string | null;
    deployingAt: string | null;
    finishedAt: string | null;
}

const seconds = (from: string | null, to: string | null) => from && to ? `${((Date.parse(to) - Date.parse(from)) / 1000).toFixed(1)} s` : '—';

export const timings = (deployment: Deployment) => ({
    queued: seconds(deployment.createdAt, deployment.buildingAt),
    build: seconds(deployment.buildingAt, deployment.deployingAt),
    deploy: seconds(deployment.deployingAt, deployment.finishedAt),
    total: seconds(deployment.createdAt, deployment.finishedAt)
});

/** The logs query string the API takes, from the page's filters. */
export function logFilters(query: { q?: string; level?: string; since?: string }): string {
    const search = new URLSearchParams();
    for (const key of ['q', 'level', 'since'] as const) {
        if (query[key]) {
            search.set(key, query[key]);
        }
    }

    return search.toString();
}

/** Lines on a page of the logs tab. */
export const LOG_PAGE = 200;
export const MAX_SKIP = MAX_LOG_LIMIT - LOG_PAGE;

/**
 * Where an "Older lines" page starts: at `until`, the time of the last line the previous page showed, skipping the
 * `skip` lines of that same time it already showed (lines come newest first, ties in the order they were written).
 */
function olderLines(query: { until?: string; skip?: number | string }): { until: string | null; skip: number } {
    const until = query.until && !Number.isNaN(Date.parse(query.until)) ? query.until : null;
    return { until, skip: until ? Number(query.skip ?? 0) : 0 };
}

/** The query of the page after this one; a page all of one time adds its lines to the skip it started with. */
function olderLinesQuery(filters: string, lines: readonly LogLine[], started: { until: string | null; skip: number }): string {
    const last = lines[lines.length - 1].timestamp;
    const search = new URLSearchParams(filters);
    const same = lines.filter((line) => line.timestamp === last).length;
    search.set('until', last);
    search.set('skip', String(Math.min(MAX_SKIP, same + (started.until === last ? started.skip : 0))));
    return search.toString();
}

/** What a tab shows, read through the resource's API routes with the visitor's session. */
export async function tabContext(p: Page, loaded: Loaded, tab: TabId): Promise<Record<string, unknown>> {
    const { base, kind, role } = loaded;
    const server = p.request.server;
    const query = p.request.query as Record<string, string | undefined>;
    switch (tab) {
        case 'deployments': {
            const cursor = query.cursor;
            const answer = await p.api.call<Deployment[]>('GET', `${base}/deployments?limit=20${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
            const list = required(answer);
            const next = nextCursor(answer);
            return {
                canUpload: kind.segment === 'sites' && allowed(server, 'sites.upload', role),
                deployments: list.map((deployment) => ({ ...deployment, timings: timings(deployment) })),
                olderHref: next ? `${loaded.href}/deployments?cursor=${encodeURIComponent(next)}` : null, newestHref: cursor ? `${loaded.href}/deployments` : null
            };
        }

        case 'logs': {
            const filters = logFilters(query);
            const older = olderLines(query);
            const lines = required(await p.api.call<LogLine[]>('GET', `${base}/logs?limit=${LOG_PAGE + older.skip}${filters ? `&${filters}` : ''}${older.until ? `&until=${encodeURIComponent(older.until)}` : ''}`)).slice(older.skip);
            return {
                lines, filters: { q: query.q ?? '', level: query.level ?? '', since: query.since ?? '' },
                levels: LEVELS, streamUrl: `${loaded.href}/logs/stream${filters ? `?${filters}` : ''}`,
                olderHref: lines.length === LOG_PAGE ? `${loaded.href}/logs?${olderLinesQuery(filters, lines, older)}` : null,
                newestHref: older.until ? `${loaded.href}/logs${filters ? `?${filters}` : ''}` : null, paged: Boolean(older.until)
            };
        }

        case 'metrics': {
            const range = RANGES[query.range ?? ''] ? query.range! : '1h';
            const until = new Date();
            const since = new Date(until.getTime() - RANGES[range].ms);
            const charts = [];
            for (const metric of kind.metrics.filter((name) => server.lookup(metricRoute(kind, name)))) {
                const answer = await p.api.call<Series>('GET', `${base}/metrics/${metric}?since=${since.toISOString()}&until=${until.toISOString()}&step=${RANGES[range].step}`);
                charts.push(answer.status === 200 ? chart(answer.body) : { title: metricTitle(metric), svg: '', summary: `Could not be read: ${apiError(answer).message}`, unavailable: true });
            }

            return { charts, ranges: Object.entries(RANGES).map(([id, value]) => ({ id, label: value.label, current: id === range })) };
        }

        case 'environment': {
            const variables = required(await p.api.call<Array<{ name: string; value: string | null; set: boolean; updatedAt: string }>>('GET', `${base}/environment-variables`));
            return { variables, canEdit: allowed(server, `${kind.family}.patch`, role) };
        }

        case 'domains': {
            const domains = required(await p.api.call<unknown[]>('GET', `${base}/custom-domains`));
            return { domains, canAddDomain: allowed(server, `${kind.family}.domains.add`, role), canRemoveDomain: allowed(server, `${kind.family}.domains.remove`, role) };
        }

        case 'cron-jobs': {
            const jobs = required(await p.api.call<Array<{ id: string }>>('GET', `${base}/cron-jobs`));
            const withRuns = [];
            for (const job of jobs.slice(0, 20)) {
                const runs = await p.api.call<unknown[]>('GET', `${base}/cron-jobs/${encodeURIComponent(job.id)}/runs?limit=5`);
                withRuns.push({ ...job, runs: runs.status === 200 ? runs.body : [] });
            }

            return {
                cronJobs: withRuns, canRunCronJob: allowed(server, 'apps.cronJobs.runNow', role), canPauseCronJob: allowed(server, 'apps.cronJobs.patch', role)
            };
        }

        case 'runs':
            return { runs: required(await p.api.call<unknown[]>('GET', `${base}/runs?limit=20`)) };
        case 'processes':
            return { processes: required(await p.api.call<unknown[]>('GET', `${base}/worker-processes`)), canScaleProcess: allowed(server, 'apps.processes.patch', role) };
        case 'linked-apps':
            return { linkedApps: required(await p.api.call<unknown[]>('GET', `${base}/linked-apps`)) };
        case 'firewall': {
            const firewall = required(await p.api.call<Firewall>('GET', `${base}/firewall`));
            return { firewall, rules: firewall.rules.map((rule, index) => ({ ...rule, index })), canEditFirewall: allowed(server, 'vms.firewall.put', role), protocols: PROTOCOLS };
        }

        case 'size': {
            const pricing = required(await p.api.call<{ currency: string; sizes: Array<{ slug: string; vcpus: number; memoryMiB: number; diskGiB: number; pricePerMonth: number }>; maxDiskGiB: number }>('GET', '/v1/virtual-machines/pricing'));
            const current = loaded.resource as { size?: string; diskGiB?: number; status?: string };
            return {
                sizes: pricing.sizes.map((size) => ({ ...size, current: size.slug === current.size })), currency: pricing.currency, maxDiskGiB: pricing.maxDiskGiB,
                diskGiB: current.diskGiB, stopped: current.status === 'stopped', canResize: allowed(server, 'vms.resources', role)
            };
        }

        case 'collaborators':
            return {
                collaborators: required(await p.api.call<unknown[]>('GET', `${base}/collaborators`)),
                canInvite: allowed(server, `${kind.family}.collaborators.upsert`, role), canRemove: allowed(server, `${kind.family}.collaborators.remove`, role), permissions: PERMISSIONS
            };
    }
}
