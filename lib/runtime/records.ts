import { setTimeout as sleep } from 'node:timers/promises';

import type { DriverContext, DriverTarget, MetricName, RuntimeDriver } from './driver';

// The `records` driver: it runs no user code and measures nothing. It writes each state transition as a log line,
// so a deployment's logs say plainly what happened, and it observes no metric, so series are empty and marked
// `unavailable` rather than invented. `stepDelayMs` paces its transitions (0 by default).
export class RecordsDriver implements RuntimeDriver {
    readonly name = 'records';

    constructor(private readonly options: { stepDelayMs?: number } = {}) { }

    async build(target: DriverTarget, deploymentId: string, context: DriverContext): Promise<void> {
        await context.log('build', 'info', `Build of ${deploymentId} started for ${target.name}${target.repository ? ` (${target.repository.repo}@${target.repository.branch})` : ''}`);
        await this.pace(context);
        await context.log('build', 'info', `Build command: ${target.buildCommand ?? '(none)'}`);
        await context.log('build', 'info', 'The records driver keeps state only: no code was fetched or built');
        await this.pace(context);
        await context.log('build', 'info', `Build of ${deploymentId} finished`);
    }

    async release(target: DriverTarget, deploymentId: string, context: DriverContext): Promise<void> {
        await context.log('release', 'info', `Releasing ${deploymentId} to ${target.instances} instance(s) on the ${target.plan} plan`);
        await this.pace(context);
        await context.log('release', 'info', `Start command: ${target.startCommand ?? '(none)'}`);
        await context.log('release', 'info', `${deploymentId} is live (records driver: no process was started)`);
    }

    async restart(target: DriverTarget, context: DriverContext): Promise<void> {
        await context.log('runtime', 'info', `Restart of ${target.name} requested: ${target.instances} instance(s) recorded as restarted`);
    }

    async scale(target: DriverTarget, instances: number, context: DriverContext): Promise<void> {
        await context.log('runtime', 'info', `Scaled ${target.name} from ${target.instances} to ${instances} instance(s)`);
    }

    async stop(target: DriverTarget, context: DriverContext): Promise<void> {
        await context.log('runtime', 'info', `Stopped ${target.name}`);
    }

    async run(target: DriverTarget, command: string, context: DriverContext): Promise<{ exitCode: null }> {
        await context.log('run', 'info', `Run of \`${command}\` for ${target.name} recorded`);
        await this.pace(context);
        await context.log('run', 'info', 'The records driver runs no user code: nothing was executed, so there is no exit code');
        return { exitCode: null };
    }

    observes(_metric: MetricName): boolean {
        return false;
    }

    private async pace(context: DriverContext): Promise<void> {
        if (this.options.stepDelayMs) {
            await sleep(this.options.stepDelayMs, undefined, { signal: context.signal });
        }
    }
}
