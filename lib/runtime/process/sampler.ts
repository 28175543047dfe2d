import * as Fs from 'node:fs/promises';

import type { Knex } from 'knex';

import type { MetricPoint, Metrics } from '../../resources/metrics';
import type { RuntimeClock } from './clock';
import type { Instance, Supervisor } from './instances';

// CPU and memory of each instance, read from the operating system: every process in the instance's process group
// (and its descendants), from /proc/<pid>/stat (user and system ticks, resident pages). A sample writes one
// `cpu-usage` point (percent of one core, over the time since the previous sample) and one `memory-usage` point
// (bytes) per resource, summed over its instances; an instance over its memory limit is killed (its whole group)
// and restarted like any instance that exits. Samples older than the retention are deleted.
const TICKS = 100;                                              // USER_HZ on Linux
const PAGE = 4096;

interface Proc {
    pid: number;
    ppid: number;
    pgrp: number;
    state: string;                                              // R, S, D, Z (a zombie: exited, not yet reaped)...
    ticks: number;
    rss: number;                                                // bytes
}

export interface SamplerOptions {
    supervisor: Supervisor;
    metrics: Metrics;
    knex: Knex;
    clock: RuntimeClock;
    retentionDays: number;
    onError: (err: unknown) => void;
}

export class Sampler {
    private readonly previous = new Map<string, { ticks: number; at: number }>();
    private controller: AbortController | null = null;
    private prunedAt = 0;

    constructor(private readonly options: SamplerOptions) { }

    /** Samples every `periodMs` until stopped, running `each` after every sample (heartbeats, take-overs). */
    start(periodMs: number, each: () => Promise<void>): void {
        if (this.controller) {
            return;
        }

        const controller = new AbortController();
        this.controller = controller;
        void (async () => {
            while (!controller.signal.aborted) {
                try {
                    await this.options.clock.sleep(periodMs, controller.signal);
                }
                catch {
                    return;
                }

                await this.sample().catch(this.options.onError);
                await each().catch(this.options.onError);
            }
        })();
    }

    stop(): void {
        this.controller?.abort();
        this.controller = null;
    }

    /** One sample of every running instance; returns the points written. */
    async sample(): Promise<MetricPoint[]> {
        const table = await processTable();
        const now = this.options.clock.now();
        const sums = new Map<string, { type: string; cpu: number; memory: number; cpuKnown: boolean }>();
        for (const instance of this.options.supervisor.instances.values()) {
            const leader = instance.group?.running ? instance.group.pid : 0;
            if (!leader || instance.state === 'stopped') {
                continue;
            }

            const tree = treeOf(table, leader);
            const ticks = tree.reduce((sum, proc) => sum + proc.ticks, 0);
            const rss = tree.reduce((sum, proc) => sum + proc.rss, 0);
            const before = this.previous.get(instance.id);
            this.previous.set(instance.id, { ticks, at: now });
            const key = instance.spec.resource.id;
            const sum = sums.get(key) ?? { type: instance.spec.resource.type, cpu: 0, memory: 0, cpuKnown: false };
            sum.memory += rss;
            if (before && now > before.at && ticks >= before.ticks) {
                sum.cpu += ((ticks - before.ticks) / TICKS) / ((now - before.at) / 1000) * 100;
                sum.cpuKnown = true;
            }

            sums.set(key, sum);
            this.enforce(instance, rss);
        }

        for (const id of this.previous.keys()) {
            if (!this.options.supervisor.instances.has(id)) {
                this.previous.delete(id);
            }
        }

        const points: MetricPoint[] = [...sums].flatMap(([resourceId, sum]) => [
            { resourceType: sum.type, resourceId, metric: 'memory-usage' as const, at: now, value: sum.memory },
            ...sum.cpuKnown ? [{ resourceType: sum.type, resourceId, metric: 'cpu-usage' as const, at: now, value: Math.round(sum.cpu * 100) / 100 }] : []
        ]);
        await this.options.metrics.record(points);
        await this.prune(now);
        return points;
    }

    private enforce(instance: Instance, rss: number): void {
        if (rss > instance.spec.memoryLimitBytes && instance.state === 'serving') {
            this.options.supervisor.kill(instance, `its processes used ${Math.round(rss / 1024 / 1024)} MiB, over its ${Math.round(instance.spec.memoryLimitBytes / 1024 / 1024)} MiB memory limit`);
        }
    }

    private async prune(now: number): Promise<void> {
        if (now - this.prunedAt < 3600_000) {
            return;
        }

        this.prunedAt = now;
        await this.options.knex('metric_points').whereIn('metric', ['cpu-usage', 'memory-usage']).where('at', '<', now - this.options.retentionDays * 86_400_000).delete();
    }
}

/** Every process of the system, as /proc shows it now (processes that vanish while it is read are skipped). */
export async function processTable(): Promise<Proc[]> {
    const entries = await Fs.readdir('/proc');
    const procs = await Promise.all(entries.filter((entry) => /^\d+$/.test(entry)).map(async (entry) => {
        const stat = await Fs.readFile(`/proc/${entry}/stat`, 'utf8').catch(() => null);
        if (!stat) {
            return null;
        }

        const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        return { pid: Number(entry), state: fields[0], ppid: Number(fields[1]), pgrp: Number(fields[2]), ticks: Number(fields[11]) + Number(fields[12]), rss: Number(fields[21]) * PAGE };
    }));
    return procs.filter((proc): proc is Proc => proc !== null);
}

/** The processes of a group leader's group and all their descendants. */
export function treeOf(table: readonly Proc[], leader: number): Proc[] {
    const members = new Set(table.filter((proc) => proc.pid === leader || proc.pgrp === leader).map((proc) => proc.pid));
    let grew = true;
    while (grew) {
        grew = false;
        for (const proc of table) {
            if (!members.has(proc.pid) && members.has(proc.ppid)) {
                members.add(proc.pid);
                grew = true;
            }
        }
    }

    return table.filter((proc) => members.has(proc.pid));
}
