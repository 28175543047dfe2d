import * as Http from 'node:http';

import type { Knex } from 'knex';

import { freePort } from '../../free-port';
import { newId } from '../../ids';
import type { LogEntry, LogStore } from '../../resources/logs';
import type { LogStream } from '../driver';
import type { Children, Exit, Group } from './children';
import type { RuntimeClock } from './clock';
import type { RunAs } from './users';

// The instances of this server process: each is one process group of a release (a web process on its own port, or
// a worker), recorded in `runtime_instances` with this process as its owner. A web instance is routed to only once
// its row says `serving`; the switch of a release is one transaction (new rows serving, the old ones draining), after
// which the old instances finish their in-flight requests and are stopped. An instance that exits while serving is
// started again after a backoff (1 s, doubling, at most 30 s), each time logged.
export interface LaunchSpec {
    resource: { type: string; id: string; projectId: string; name: string };
    deploymentId: string;
    process: 'web' | 'worker';
    command: string;
    cwd: string;
    env: Record<string, string>;                                // the resource's variables, PATH and HOME; PORT is added per instance
    user: RunAs | null;
    memoryLimitBytes: number;
    count?: number;                                             // an app's worker process: how many instances it runs
}

export interface Instance {
    id: string;
    spec: LaunchSpec;
    slot: number;
    port: number | null;
    group: Group | null;
    state: 'starting' | 'serving' | 'draining' | 'stopped';
    restarts: number;
    tail: string[];                                             // its last output lines, for a failure's message
}

export interface SupervisorOptions {
    knex: Knex;
    logs: LogStore;
    children: Children;
    clock: RuntimeClock;
    owner: string;
    healthPath: string;
    graceMs: number;
    drainMs: number;
    inflight: (instanceId: string) => number;
    onError: (err: unknown) => void;
}

const MAX_BACKOFF_MS = 30_000;

export class Supervisor {
    readonly instances = new Map<string, Instance>();
    private pending: LogEntry[] = [];
    private flushTimer: NodeJS.Timeout | null = null;
    private stopping = false;

    constructor(private readonly options: SupervisorOptions) { }

    of(resourceId: string, states: ReadonlyArray<Instance['state']> = ['starting', 'serving']): Instance[] {
        return [...this.instances.values()].filter((instance) => instance.spec.resource.id === resourceId && states.includes(instance.state));
    }

    /** Starts one instance of a release (state `starting`: not routed to yet). */
    async start(spec: LaunchSpec, slot: number): Promise<Instance> {
        const instance: Instance = { id: newId('ins'), spec, slot, port: spec.process === 'web' ? await freePort() : null, group: null, state: 'starting', restarts: 0, tail: [] };
        this.instances.set(instance.id, instance);
        await this.options.knex('runtime_instances').insert({
            id: instance.id, resource_type: spec.resource.type, resource_id: spec.resource.id, project_id: spec.resource.projectId, deployment_id: spec.deploymentId,
            process: spec.process, slot, state: 'starting', pid: null, host: '127.0.0.1', port: instance.port, owner: this.options.owner,
            heartbeat_at: this.options.clock.now(), restarts: 0, started_at: new Date(this.options.clock.now()).toISOString()
        });
        await this.spawn(instance);
        return instance;
    }

    /** Waits until the instance answers its health check (a status below 500) or the deadline; null when healthy, else why not. */
    async healthy(instance: Instance, timeoutMs: number): Promise<string | null> {
        const deadline = this.options.clock.now() + timeoutMs;
        while (this.options.clock.now() < deadline) {
            if (!instance.group?.running) {
                const exit = await instance.group?.exited;
                return `The start command exited (${describe(exit)}) before answering its health check${lastLines(instance)}`;
            }

            if (instance.port && await probe(instance.port, this.options.healthPath)) {
                return null;
            }

            await this.options.clock.sleep(100);
        }

        return `The start command did not answer GET ${this.options.healthPath} below 500 within ${timeoutMs} ms${lastLines(instance)}`;
    }

    /** The switch: these instances serve, every other serving instance of the resource drains. Returns the drained ones. */
    async serve(resourceId: string, fresh: readonly Instance[]): Promise<Instance[]> {
        const ids = fresh.map((instance) => instance.id);
        const old = this.of(resourceId, ['serving']).filter((instance) => !ids.includes(instance.id));
        await this.options.knex.transaction(async (trx) => {
            await trx('runtime_instances').whereIn('id', ids).update({ state: 'serving' });
            await trx('runtime_instances').where({ resource_id: resourceId, state: 'serving' }).whereNotIn('id', ids).update({ state: 'draining' });
        });
        for (const instance of fresh) {
            instance.state = 'serving';
        }

        for (const instance of old) {
            instance.state = 'draining';
        }

        return old;
    }

    /** Lets instances finish their in-flight requests, then stops their groups (SIGTERM, then SIGKILL) and forgets them. */
    async retire(instances: readonly Instance[], reason: string): Promise<void> {
        if (!instances.length) {
            return;
        }

        await this.options.clock.sleep(this.options.drainMs);
        const deadline = this.options.clock.now() + this.options.graceMs;
        while (instances.some((instance) => this.options.inflight(instance.id) > 0) && this.options.clock.now() < deadline) {
            await this.options.clock.sleep(50);
        }

        await Promise.all(instances.map(async (instance) => {
            instance.state = 'stopped';
            const exit = await instance.group?.stop(this.options.clock, this.options.graceMs);
            this.instances.delete(instance.id);
            await this.options.knex('runtime_instances').where({ id: instance.id }).delete();
            this.log(instance, 'info', `Instance ${instance.id} stopped (${reason}${exit ? `; ${describe(exit)}` : ''})`);
        }));
    }

    /** Kills an instance's whole group now (its memory limit): it is then restarted like any instance that exits. */
    kill(instance: Instance, why: string): void {
        this.log(instance, 'error', `Instance ${instance.id} killed: ${why}`);
        instance.group?.signal('SIGKILL');
    }

    /** The heartbeat of this process's rows; an instance whose row another process took over (this one was thought
     * dead) is stopped, so one release never runs twice. */
    async beat(): Promise<void> {
        const { knex, owner } = this.options;
        await knex('runtime_instances').where({ owner }).update({ heartbeat_at: this.options.clock.now() });
        const rows = new Set((await knex('runtime_instances').where({ owner }).select<Array<{ id: string }>>('id')).map((row) => row.id));
        const orphans = [...this.instances.values()].filter((instance) => instance.state === 'serving' && !rows.has(instance.id));
        for (const instance of orphans) {
            instance.state = 'draining';
        }

        await this.retire(orphans, 'taken over by another server process');
    }

    /** The server is stopping: every instance stops, nothing is restarted, rows are left for another process to take over. */
    async stopAll(): Promise<void> {
        this.stopping = true;
        const all = [...this.instances.values()];
        await Promise.all(all.map(async (instance) => {
            instance.state = 'stopped';
            await instance.group?.stop(this.options.clock, this.options.graceMs);
        }));
        await this.options.knex('runtime_instances').where({ owner: this.options.owner }).delete().catch(this.options.onError);
        await this.flush();
    }

    /** An output line or an event of an instance, as a runtime log line of its resource. */
    log(instance: Instance, level: LogEntry['level'], message: string, stream: LogStream = 'runtime'): void {
        const { resource, deploymentId } = instance.spec;
        this.pending.push({ resourceType: resource.type, resourceId: resource.id, projectId: resource.projectId, deploymentId, stream, level, message, timestamp: new Date().toISOString() });
        if (this.pending.length >= 200) {
            void this.flush();
        }

        this.flushTimer ??= setTimeout(() => void this.flush(), 200);
    }

    async flush(): Promise<void> {
        if (this.flushTimer) {
            clearTimeout(this.flushTimer);
            this.flushTimer = null;
        }

        const batch = this.pending;
        this.pending = [];
        await this.options.logs.writeMany(this.options.knex, batch).catch(this.options.onError);
    }

    private async spawn(instance: Instance): Promise<void> {
        const { spec } = instance;
        instance.group = this.options.children.spawn({
            command: spec.command, cwd: spec.cwd, user: spec.user, limits: { nproc: 512 },
            env: { ...spec.env, ...(instance.port ? { PORT: String(instance.port) } : {}) },
            onLine: (stream, line) => {
                instance.tail = [...instance.tail.slice(-9), line];
                this.log(instance, stream === 'stderr' ? 'error' : 'info', line);
            }
        });
        const group = instance.group;
        await this.options.knex('runtime_instances').where({ id: instance.id }).update({ pid: group.pid, restarts: instance.restarts });
        void group.exited.then((exit) => this.exited(instance, group, exit)).catch(this.options.onError);
    }

    private async exited(instance: Instance, group: Group, exit: Exit): Promise<void> {
        if (this.stopping || instance.group !== group || instance.state !== 'serving') {
            return;
        }

        const backoff = Math.min(1000 * 2 ** instance.restarts, MAX_BACKOFF_MS);
        instance.restarts += 1;
        this.log(instance, 'warn', `Instance ${instance.id} exited (${describe(exit)}); restarting it in ${backoff} ms (restart ${instance.restarts})`);
        await this.options.clock.sleep(backoff);
        if (!this.stopping && instance.state === 'serving' && this.instances.has(instance.id)) {
            await this.spawn(instance);
            this.log(instance, 'info', `Instance ${instance.id} started again (pid ${instance.group?.pid})`);
        }
    }
}

export function describe(exit: Exit | undefined): string {
    return !exit ? 'not started' : exit.signal ? `killed by ${exit.signal}` : `exit code ${exit.code}`;
}

function lastLines(instance: Instance): string {
    return instance.tail.length ? `. Its last output: ${instance.tail.slice(-3).join(' | ').slice(0, 500)}` : '';
}


function probe(port: number, path: string): Promise<boolean> {
    return new Promise((resolve) => {
        const request = Http.get({ host: '127.0.0.1', port, path, timeout: 2000, agent: false, headers: { 'user-agent': 'hostless-health-check' } }, (response) => {
            response.resume();
            resolve((response.statusCode ?? 500) < 500);
        });
        request.once('timeout', () => request.destroy());
        request.once('error', () => resolve(false));
    });
}
