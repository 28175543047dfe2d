import type { DriverContext, DriverTarget, MetricName, RuntimeDriver } from './driver';

// The driver of kinds whose deployments are stored files served by the edge (sites): nothing is built or started.
// A deployment's files are checked and stored when they arrive (an upload, a publish, a redeploy), and it goes live
// when the edge's pointer moves to it, in the transaction that marks it live. The edge measures requests, duration
// and bandwidth; there is no process, so CPU and memory are never observed.
const EDGE_METRICS: ReadonlySet<MetricName> = new Set(['request-count', 'response-duration', 'bandwidth']);

export class StaticDriver implements RuntimeDriver {
    readonly name = 'static';

    async build(target: DriverTarget, deploymentId: string, context: DriverContext): Promise<void> {
        await context.log('build', 'info', `${deploymentId} holds static files: nothing to build`);
    }

    async release(target: DriverTarget, deploymentId: string, context: DriverContext): Promise<void> {
        await context.log('release', 'info', `Switching ${target.name}'s edge to ${deploymentId}`);
    }

    async restart(target: DriverTarget, context: DriverContext): Promise<void> {
        await context.log('runtime', 'info', `Restart of ${target.name}: its files are served by the edge of every API process, so nothing runs to restart`);
    }

    async scale(target: DriverTarget, instances: number, context: DriverContext): Promise<void> {
        await context.log('runtime', 'info', `Scaled ${target.name} from ${target.instances} to ${instances} instance(s) (recorded for billing: the edge of every API process serves its files)`);
    }

    async stop(target: DriverTarget, context: DriverContext): Promise<void> {
        await context.log('runtime', 'info', `Stopped serving ${target.name}`);
    }

    async run(target: DriverTarget, command: string, context: DriverContext): Promise<{ exitCode: null }> {
        await context.log('run', 'info', `${target.name} serves static files: \`${command}\` was not run`);
        return { exitCode: null };
    }

    observes(metric: MetricName): boolean {
        return EDGE_METRICS.has(metric);
    }
}
