import type { MetricPoint, Metrics, TrafficDay } from '../resources/metrics';
import type { EdgeResource } from './edge';

// The edge's per-request measurement hook: every answered request of a resource (status, duration, bytes, path,
// visitor) is added to in-memory sums per resource and minute, and the sums are written every `flushMs` (and when
// the server stops) through lib/resources/metrics.ts: metric points for request-count, response-duration (a sum
// over `samples` requests) and bandwidth, distinct visitors per day as salted hashes, and requests per path per day.
// A visitor's address lives in memory until the next flush only; what is written is its hash.
export interface Measurement {
    resource: EdgeResource;
    status: number;
    durationMs: number;
    bytes: number;
    path: string;
    visitor: { address: string; userAgent: string };
    at: number;                                                 // epoch ms when the request arrived
}

interface Minute {
    resource: EdgeResource;
    at: number;
    requests: number;
    durationMs: number;
    bytes: number;
}

interface Day {
    resource: EdgeResource;
    day: string;
    visitors: Map<string, { address: string; userAgent: string; at: number }>;
    paths: Map<string, { requests: number; bytes: number }>;
}

const MINUTE = 60_000;
const MAX_PATHS = 2000;                                         // distinct paths kept per resource and day between flushes

/** The path a top-paths entry counts: the path itself when it was served, its status when it was not. */
export function pathKey(path: string, status: number): string {
    return status < 400 ? path.slice(0, 512) : `(${status})`;
}

export class EdgeMeter {
    private minutes = new Map<string, Minute>();
    private days = new Map<string, Day>();
    private timer: NodeJS.Timeout | null = null;
    private flushing: Promise<void> = Promise.resolve();

    constructor(private readonly metrics: Metrics, private readonly options: { flushMs: number; onError(err: Error): void }) { }

    readonly record = (m: Measurement): void => {
        const at = Math.floor(m.at / MINUTE) * MINUTE;
        const minuteKey = `${m.resource.id}:${at}`;
        const minute = this.minutes.get(minuteKey) ?? { resource: m.resource, at, requests: 0, durationMs: 0, bytes: 0 };
        minute.requests += 1;
        minute.durationMs += m.durationMs;
        minute.bytes += m.bytes;
        this.minutes.set(minuteKey, minute);

        const day = new Date(m.at).toISOString().slice(0, 10);
        const dayKey = `${m.resource.id}:${day}`;
        const entry: Day = this.days.get(dayKey) ?? { resource: m.resource, day, visitors: new Map(), paths: new Map() };
        entry.visitors.set(`${m.visitor.address}\n${m.visitor.userAgent}`, { ...m.visitor, at: m.at });
        const key = pathKey(m.path, m.status);
        const path: { requests: number; bytes: number } | null = entry.paths.get(key) ?? (entry.paths.size < MAX_PATHS ? { requests: 0, bytes: 0 } : null);
        if (path) {
            path.requests += 1;
            path.bytes += m.bytes;
            entry.paths.set(key, path);
        }

        this.days.set(dayKey, entry);
        this.timer ??= setTimeout(() => {
            this.timer = null;
            void this.flush().catch((err: Error) => this.options.onError(err));
        }, this.options.flushMs);
    };

    /** Writes what was measured since the last flush. */
    flush(): Promise<void> {
        this.flushing = this.flushing.then(() => this.write());
        return this.flushing;
    }

    async stop(): Promise<void> {
        if (this.timer) {
            clearTimeout(this.timer);
            this.timer = null;
        }

        await this.flush();
    }

    private async write(): Promise<void> {
        const minutes = [...this.minutes.values()];
        const days = [...this.days.values()];
        this.minutes = new Map();
        this.days = new Map();
        if (!minutes.length && !days.length) {
            return;
        }

        const points: MetricPoint[] = minutes.flatMap((minute) => {
            const base = { resourceType: minute.resource.type, resourceId: minute.resource.id, at: minute.at, samples: minute.requests };
            return [
                { ...base, metric: 'request-count' as const, value: minute.requests },
                { ...base, metric: 'response-duration' as const, value: minute.durationMs },
                { ...base, metric: 'bandwidth' as const, value: minute.bytes }
            ];
        });
        const traffic: TrafficDay[] = [];
        for (const day of days) {
            const visitors: string[] = [];
            for (const visitor of day.visitors.values()) {
                visitors.push(await this.metrics.visitor(day.resource.id, visitor.address, visitor.userAgent, visitor.at));
            }

            traffic.push({
                resourceType: day.resource.type, resourceId: day.resource.id, day: day.day, visitors: [...new Set(visitors)],
                paths: [...day.paths].map(([path, count]) => ({ path, ...count }))
            });
        }

        await this.metrics.record(points);
        await this.metrics.recordTraffic(traffic);
    }
}
