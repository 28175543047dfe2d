import { existsSync } from 'node:fs';
import * as Fs from 'node:fs/promises';
import * as Os from 'node:os';
import * as Path from 'node:path';
import * as Crypto from 'node:crypto';

import type { Knex } from 'knex';

import type { GitAccess } from '../../git/access';
import { DestinationPolicy } from '../../outside/destination';
import { PLANS } from '../../plans';
import { Deployment } from '../../resources/deployments';
import type { EnvVars } from '../../resources/env-vars';
import type { DatabaseLinks } from '../../resources/links';
import type { LogStore } from '../../resources/logs';
import type { MetricName, Metrics } from '../../resources/metrics';
import { DeploymentFailure, type DriverContext, type DriverTarget, type RuntimeDriver } from '../driver';
import { Children, type Group } from './children';
import { systemRuntimeClock, type RuntimeClock } from './clock';
import { describe, Supervisor, type Instance, type LaunchSpec } from './instances';
import { Sampler } from './sampler';
import { defaultCommand, fetchSource } from './source';
import { Users } from './users';

// The `process` driver: apps, workers and cron jobs run on this node as supervised process groups (docs/runtime.md).
// build: the source is fetched into a fresh release folder and the build command runs there (time and output
// limits; its output is the deployment's build log). release: the start command runs as `instances` web processes
// on free ports (and the app's worker processes), the edge switches to them once every web process answers its
// health check, and the previous release's groups are drained and stopped. restart and scale do the same with the
// live release; a cron run is one process whose exit code is returned.
export const TABLES: Readonly<Record<string, string>> = { app: 'apps', worker: 'workers', 'cron-job': 'cron_jobs' };
const OBSERVED: ReadonlySet<MetricName> = new Set(['request-count', 'response-duration', 'bandwidth', 'cpu-usage', 'memory-usage']);
const MiB = 1024 * 1024;

export interface ProcessDriverOptions {
    dir: string;                                                // release folders
    allowFileGit: boolean;
    sameUser: boolean;
    uidRange: [number, number];
    healthPath: string;
    healthTimeoutMs: number;
    buildTimeoutMs: number;
    buildOutputBytes?: number;                                  // default 10 MiB
    outboundAllowlist?: readonly string[];
    metricsRetentionDays?: number;
    sampleMs?: number;                                          // default 15 s
    graceMs?: number;                                           // SIGTERM to SIGKILL (default 10 s)
    drainMs?: number;                                           // after a switch, before the old release's in-flight count is read (default 250 ms)
    settleMs?: number;                                          // a worker must stay up this long to count as started (default 1 s)
    memoryLimitMiB?: number;                                    // instead of the plan's memory
    clock?: RuntimeClock;
    path: string;                                               // PATH of user code and git (the server's)
}

export interface ProcessServices {
    knex: Knex;
    logs: LogStore;
    metrics: Metrics;
    envVars: EnvVars;
    links: DatabaseLinks;
    git: GitAccess | null;
    inflight: (instanceId: string) => number;
    context: (owner: { resourceType: string; resourceId: string; projectId: string; id?: string }, signal: AbortSignal) => DriverContext;
    onError: (err: unknown) => void;
}

export class ProcessDriver implements RuntimeDriver {
    readonly name = 'process';
    readonly owner = `${Os.hostname()}:${process.pid}:${Crypto.randomBytes(4).toString('hex')}`;
    readonly clock: RuntimeClock;
    readonly children: Children;
    private attached: { services: ProcessServices; supervisor: Supervisor; users: Users; sampler: Sampler } | null = null;

    constructor(readonly options: ProcessDriverOptions, prlimit: string | null = existsSync('/usr/bin/prlimit') ? '/usr/bin/prlimit' : null) {
        this.clock = options.clock ?? systemRuntimeClock;
        this.children = new Children({ prlimit });
        if (process.getuid?.() !== 0 && !options.sameUser) {
            throw new Error('The process driver runs user code as the server\'s own user only in laptop mode or with RUNTIME_SAME_USER=true (tenants could then read DATA_DIR); run the server as root to give each resource its own uid');
        }
    }

    /** Binds the driver to the server's services (the runtime plugin does, once). */
    attach(services: ProcessServices): void {
        const supervisor = new Supervisor({
            knex: services.knex, logs: services.logs, children: this.children, clock: this.clock, owner: this.owner, healthPath: this.options.healthPath,
            graceMs: this.options.graceMs ?? 10_000, drainMs: this.options.drainMs ?? 250, inflight: services.inflight, onError: services.onError
        });
        const users = new Users(services.knex, { range: this.options.uidRange });
        const sampler = new Sampler({ supervisor, metrics: services.metrics, knex: services.knex, clock: this.clock, retentionDays: this.options.metricsRetentionDays ?? 14, onError: services.onError });
        this.attached = { services, supervisor, users, sampler };
    }

    get supervisor(): Supervisor {
        return this.use().supervisor;
    }

    get sampler(): Sampler {
        return this.use().sampler;
    }

    observes(metric: MetricName): boolean {
        return OBSERVED.has(metric);
    }

    async build(target: DriverTarget, deploymentId: string, context: DriverContext): Promise<void> {
        await this.removingOnFailure(deploymentId, () => this.fetchAndBuild(target, deploymentId, context));
    }

    private async fetchAndBuild(target: DriverTarget, deploymentId: string, context: DriverContext): Promise<void> {
        const { services, users } = this.use();
        const deployment = await this.deployment(deploymentId);
        if (deployment.reviewAppId) {
            throw new DeploymentFailure('Review apps are not run by the process driver yet: they stay with the records driver');
        }

        const repository = deployment.config.repository;
        if (!repository) {
            throw new DeploymentFailure(`${target.name} has no source: set a Git repository with PATCH {"repository": {"provider": "git", "repo": "https://...", "branch": "main"}}, or connect GitHub, GitLab or Bitbucket and name one of its repositories`);
        }

        const user = await users.of(target.resourceId);
        const release = await users.folder(this.options.dir, deploymentId, user);
        const app = Path.join(release, 'app');
        const source = { ...repository, branch: deployment.branch ?? repository.branch };                     // the branch the deployment asked for
        await fetchSource({ projectId: deployment.projectId, name: target.name, repository: source, commitSha: deployment.commitSha, dir: app }, {
            git: services.git, policy: new DestinationPolicy(this.options.outboundAllowlist ?? []), allowFileGit: this.options.allowFileGit,
            timeoutMs: this.options.buildTimeoutMs, tmpDir: this.options.dir, path: this.options.path
        }, (line) => context.log('build', 'info', line));
        await Fs.rm(Path.join(app, '.git'), { recursive: true, force: true });
        await users.own(release, user);
        if (!target.buildCommand) {
            await context.log('build', 'info', 'No build command: the source is used as fetched');
            return;
        }

        await context.log('build', 'info', `Running the build command: ${target.buildCommand}`);
        const env = await this.environment(deployment, release);
        const limit = this.options.buildOutputBytes ?? 10 * MiB;
        let bytes = 0;
        let overflow = false;
        let logged = Promise.resolve();
        const group = this.children.spawn({
            command: target.buildCommand, cwd: app, env, user, limits: { nproc: 512 },
            onLine: (stream, line) => {
                bytes += Buffer.byteLength(line) + 1;
                if (bytes > limit) {
                    overflow ||= (group.signal('SIGKILL'), true);
                    return;
                }

                logged = logged.then(() => context.log('build', stream === 'stderr' ? 'warn' : 'info', line));
            }
        });
        const exit = await this.bounded(group, this.options.buildTimeoutMs, context.signal);
        await logged;
        if (overflow) {
            throw new DeploymentFailure(`The build wrote more than ${limit >= MiB ? `${Math.round(limit / MiB)} MiB` : `${Math.round(limit / 1024)} KiB`} of output and was stopped`);
        }

        if (!exit) {
            throw new DeploymentFailure(`The build did not finish within ${Math.round(this.options.buildTimeoutMs / 1000)} s and was stopped`);
        }

        if (exit.code !== 0) {
            throw new DeploymentFailure(`The build command failed (${describe(exit)})`);
        }

        await context.log('build', 'info', 'The build command succeeded');
    }

    async release(target: DriverTarget, deploymentId: string, context: DriverContext): Promise<void> {
        await this.removingOnFailure(deploymentId, async () => {
            if (target.resourceType === 'cron-job') {
                await context.log('release', 'info', `${target.name} is built: each run executes its command in this release`);
                return;
            }

            const deployment = await this.deployment(deploymentId);
            const specs = await this.specs(target, deployment);
            await this.launch(target, specs, target.instances, context, `replaced by ${deploymentId}`);
        });
        await this.prune(target.resourceId, deploymentId);
    }

    async restart(target: DriverTarget, context: DriverContext): Promise<void> {
        const specs = await this.liveSpecs(target);
        await this.launch(target, specs, target.instances, context, 'restarted');
    }

    async scale(target: DriverTarget, instances: number, context: DriverContext): Promise<void> {
        const { supervisor } = this.use();
        const running = supervisor.of(target.resourceId, ['serving']).filter((instance) => instance.spec.process === 'web' || target.resourceType === 'worker');
        if (instances < running.length) {
            const extra = running.sort((a, b) => b.slot - a.slot).slice(0, running.length - instances);
            await this.retireNow(extra.map((instance) => instance.id), 'scaled down');
            await context.log('runtime', 'info', `Scaled ${target.name} down to ${instances} instance(s)`);
            return;
        }

        const [spec] = (await this.liveSpecs(target)).filter((candidate) => candidate.process === (target.resourceType === 'worker' ? 'worker' : 'web'));
        const fresh: Instance[] = [];
        for (let slot = running.length; slot < instances; slot++) {
            fresh.push(await supervisor.start(spec, slot));
        }

        await this.ready(fresh, context);
        await supervisor.serve(target.resourceId, [...running, ...fresh]);
        await context.log('runtime', 'info', `Scaled ${target.name} up to ${instances} instance(s)`);
    }

    async stop(target: DriverTarget, context: DriverContext): Promise<void> {
        const { supervisor } = this.use();
        await supervisor.retire(supervisor.of(target.resourceId, ['starting', 'serving', 'draining']), 'stopped');
        await this.prune(target.resourceId, null);
        await context.log('runtime', 'info', `Stopped ${target.name}`);
    }

    async run(target: DriverTarget, command: string, context: DriverContext): Promise<{ exitCode: number | null }> {
        const { services, users } = this.use();
        const user = await users.of(target.resourceId);
        const live = await this.liveDeployment(target).catch(() => null);
        const built = live && await Fs.stat(Path.join(this.options.dir, live.id, 'app')).then(() => true, () => false);
        const cwd = built ? Path.join(this.options.dir, live.id, 'app') : await users.folder(Path.join(this.options.dir, 'runs'), target.resourceId, user);
        const sealed = await services.envVars.sealed(services.knex, { type: target.resourceType, id: target.resourceId, projectId: '', name: target.name });
        const databases = live ? await services.links.environment(services.knex, live.projectId, live.config.databases ?? []) : {};
        const env = { ...databases, ...services.envVars.open(sealed), PATH: this.options.path, HOME: cwd };
        const started = this.clock.now();
        await context.log('run', 'info', `Running \`${command}\`${built ? ` in release ${live.id}` : ''}`);
        let logged = Promise.resolve();
        const group = this.children.spawn({
            command, cwd, env, user, limits: { nproc: 512 },
            onLine: (stream, line) => {
                logged = logged.then(() => context.log('run', stream === 'stderr' ? 'error' : 'info', line));
            }
        });
        const exit = await this.bounded(group, this.options.buildTimeoutMs, context.signal);
        await logged;
        const exitCode = !exit ? 124 : exit.code ?? 128 + (Os.constants.signals[exit.signal!] ?? 0);
        await context.log('run', exitCode === 0 ? 'info' : 'error', exit
            ? `Exited with code ${exitCode} after ${this.clock.now() - started} ms`
            : `Stopped after the ${Math.round(this.options.buildTimeoutMs / 1000)} s limit (exit code 124)`);
        return { exitCode };
    }

    /** After a server restart: every live deployment of this driver without a serving instance is started again. */
    async reconcile(staleMs: number): Promise<void> {
        const { services } = this.use();
        const { knex } = services;
        for (const [type, table] of [['app', 'apps'], ['worker', 'workers']] as const) {
            const rows = await knex(table).whereNotNull('live_deployment_id')
                .select<Array<{ id: string; project_id: string; name: string; instances: number; plan: string; build_command: string | null; start_command: string | null; live_deployment_id: string }>>(
                    'id', 'project_id', 'name', 'instances', 'plan', 'build_command', 'start_command', 'live_deployment_id');
            for (const row of rows) {
                const deployment = await knex('deployments').where({ id: row.live_deployment_id }).first<{ driver: string } | undefined>('driver');
                const alive = await knex('runtime_instances').where({ resource_id: row.id, state: 'serving' }).where('heartbeat_at', '>', this.clock.now() - staleMs).first<{ id: string } | undefined>('id');
                if (deployment?.driver !== 'process' || alive || this.supervisor.of(row.id).length) {
                    continue;
                }

                await knex('runtime_instances').where({ resource_id: row.id }).where('heartbeat_at', '<=', this.clock.now() - staleMs).delete();
                const target: DriverTarget = {
                    resourceType: type, resourceId: row.id, name: row.name, instances: row.instances, plan: row.plan,
                    buildCommand: row.build_command, startCommand: row.start_command, repository: null
                };
                const context = services.context({ resourceType: type, resourceId: row.id, projectId: row.project_id }, new AbortController().signal);
                await context.log('runtime', 'info', `Starting ${row.name} again (release ${row.live_deployment_id})`);
                try {
                    if (!await Fs.stat(Path.join(this.options.dir, row.live_deployment_id, 'app')).then(() => true, () => false)) {
                        await this.build({ ...target, buildCommand: (await this.deployment(row.live_deployment_id)).config.buildCommand }, row.live_deployment_id, context);
                    }

                    await this.restart(target, context);
                }
                catch (err) {
                    await context.log('runtime', 'error', `${row.name} could not be started again: ${(err as Error).message}`);
                }
            }
        }
    }

    /** Stops every process this driver started (the server is stopping). */
    async shutdown(): Promise<void> {
        this.attached?.sampler.stop();
        await this.attached?.supervisor.stopAll();
        await this.children.stopAll(this.clock, this.options.graceMs ?? 10_000);
    }

    /** A failed deployment's release folder is removed (a retried one is made afresh anyway). */
    private async removingOnFailure(deploymentId: string, work: () => Promise<void>): Promise<void> {
        try {
            await work();
        }
        catch (err) {
            if (err instanceof DeploymentFailure) {
                await Fs.rm(Path.join(this.options.dir, deploymentId), { recursive: true, force: true });
            }

            throw err;
        }
    }

    /** Removes the release folders of a resource's other deployments (all of them once it is stopped). */
    private async prune(resourceId: string, keep: string | null): Promise<void> {
        const rows = await this.use().services.knex('deployments').where({ resource_id: resourceId }).select<Array<{ id: string }>>('id');
        await Promise.all(rows.filter((row) => row.id !== keep).map((row) => Fs.rm(Path.join(this.options.dir, row.id), { recursive: true, force: true })));
    }

    /** Starts a release's instances, waits for their health, switches to them and retires the previous ones. */
    private async launch(target: DriverTarget, specs: LaunchSpec[], instances: number, context: DriverContext, reason: string): Promise<void> {
        const { supervisor } = this.use();
        const fresh: Instance[] = [];
        try {
            for (const spec of specs) {
                const count = spec.process === 'web' || target.resourceType === 'worker' ? instances : spec.count ?? 1;
                for (let slot = 0; slot < count; slot++) {
                    fresh.push(await supervisor.start(spec, slot));
                }
            }

            await this.ready(fresh, context);
        }
        catch (err) {
            await this.retireNow(fresh.map((instance) => instance.id), 'its release failed');
            throw err;
        }

        const old = await supervisor.serve(target.resourceId, fresh);
        await context.log('release', 'info', `${fresh.length} instance(s) of ${target.name} started (${fresh.map((instance) => `${instance.id}${instance.port ? ` on port ${instance.port}` : ''}`).join(', ')}); traffic switched`);
        await supervisor.retire(old, reason);
    }

    /** Web instances answer their health check; workers stay up for the settle time. */
    private async ready(fresh: readonly Instance[], context: DriverContext): Promise<void> {
        const { supervisor } = this.use();
        const problems = await Promise.all(fresh.map(async (instance) => {
            if (instance.spec.process === 'web') {
                return supervisor.healthy(instance, this.options.healthTimeoutMs);
            }

            await this.clock.sleep(this.options.settleMs ?? 1000);
            return instance.group?.running ? null : `The worker command exited (${describe(await instance.group?.exited)}) right after it started`;
        }));
        const problem = problems.find(Boolean);
        if (problem) {
            await context.log('release', 'error', problem);
            throw new DeploymentFailure(problem);
        }
    }

    private async retireNow(ids: readonly string[], reason: string): Promise<void> {
        const { supervisor, services } = this.use();
        const instances = ids.map((id) => supervisor.instances.get(id)).filter((instance): instance is Instance => !!instance);
        await services.knex('runtime_instances').whereIn('id', ids).update({ state: 'draining' });
        for (const instance of instances) {
            instance.state = 'draining';
        }

        await supervisor.retire(instances, reason);
    }

    /** What a release runs: its web process (apps) or its worker process, and an app's worker processes. */
    private async specs(target: DriverTarget, deployment: Deployment): Promise<LaunchSpec[]> {
        const { users } = this.use();
        const release = Path.join(this.options.dir, deployment.id);
        const cwd = Path.join(release, 'app');
        const processType = target.resourceType === 'worker' ? 'worker' : 'web';
        const command = deployment.config.startCommand ?? await defaultCommand(cwd, processType);
        if (!command) {
            throw new DeploymentFailure(`${target.name} has no start command: set startCommand, add a Procfile with a "${processType}:" line, or a package.json with a start script`);
        }

        const base = {
            resource: { type: target.resourceType, id: target.resourceId, projectId: deployment.projectId, name: target.name }, deploymentId: deployment.id, cwd,
            env: await this.environment(deployment, release), user: await users.of(target.resourceId),
            memoryLimitBytes: (this.options.memoryLimitMiB ?? PLANS[deployment.config.plan as keyof typeof PLANS]?.memoryMiB ?? 512) * MiB
        };
        const workers = target.resourceType === 'app' ? deployment.config.processes.filter((entry) => entry.instances > 0) : [];
        return [
            { ...base, process: processType, command },
            ...workers.map((entry) => ({ ...base, process: 'worker' as const, command: entry.command, count: entry.instances }))
        ];
    }

    private async liveSpecs(target: DriverTarget): Promise<LaunchSpec[]> {
        return this.specs(target, await this.liveDeployment(target));
    }

    private async liveDeployment(target: DriverTarget): Promise<Deployment> {
        const { knex } = this.use().services;
        const row = await knex(TABLES[target.resourceType] ?? 'apps').where({ id: target.resourceId }).first<{ live_deployment_id: string | null } | undefined>('live_deployment_id');
        if (!row?.live_deployment_id) {
            throw new DeploymentFailure(`${target.name} has no live deployment`);
        }

        return this.deployment(row.live_deployment_id);
    }

    private async deployment(id: string): Promise<Deployment> {
        return (await Deployment.query(this.use().services.knex).findById(id))!;
    }

    /** The environment user code gets: its linked databases' URLs, the resource's variables as deployed (which win over
     * those), PATH, and HOME (its release folder). */
    private async environment(deployment: Deployment, release: string): Promise<Record<string, string>> {
        const { envVars, links, knex } = this.use().services;
        const databases = await links.environment(knex, deployment.projectId, deployment.config.databases ?? []);
        return { ...databases, ...envVars.open(deployment.config.environment), PATH: this.options.path, HOME: release };
    }

    /** Waits for a group to exit within a time limit (null: it was stopped at the limit or by the signal). */
    private async bounded(group: Group, limitMs: number, signal: AbortSignal) {
        const timer = new AbortController();
        const abort = () => timer.abort();
        signal.addEventListener('abort', abort, { once: true });
        const exit = await Promise.race([group.exited, this.clock.sleep(limitMs, timer.signal).then(() => null, () => null)]);
        timer.abort();
        signal.removeEventListener('abort', abort);
        if (!exit) {
            await group.stop(this.clock, 2000);
        }

        return exit;
    }

    private use() {
        if (!this.attached) {
            throw new Error('The process driver is not attached to a server: register the runtime plugin');
        }

        return this.attached;
    }
}
