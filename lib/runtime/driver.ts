import type { MetricName } from '../resources/metrics';

// A runtime driver performs what the control plane decides: builds and releases deployments, restarts, scales and
// stops resources, runs commands, and says which metrics it observes. `records` keeps state and runs no user code;
// `process` (its own issue) runs apps for real. Routes and services never know which one they talk to.
export type { MetricName };
export type LogStream = 'build' | 'release' | 'runtime' | 'run' | 'event' | 'import';   // event, import: resources without processes (databases)
export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

export interface DriverTarget {
    resourceType: string;                                       // the kind: app, site, worker, cron-job
    resourceId: string;
    name: string;
    instances: number;
    plan: string;
    buildCommand: string | null;
    startCommand: string | null;
    repository: { provider: string; repo: string; branch: string } | null;
}

export interface DriverContext {
    log(stream: LogStream, level: LogLevel, message: string): Promise<void>;
    signal: AbortSignal;
}

/** A failure of the user's deployment (a failed build), as opposed to an error of the platform. */
export class DeploymentFailure extends Error { }

export interface RuntimeDriver {
    readonly name: string;
    build(target: DriverTarget, deploymentId: string, context: DriverContext): Promise<void>;
    release(target: DriverTarget, deploymentId: string, context: DriverContext): Promise<void>;
    restart(target: DriverTarget, context: DriverContext): Promise<void>;
    scale(target: DriverTarget, instances: number, context: DriverContext): Promise<void>;
    stop(target: DriverTarget, context: DriverContext): Promise<void>;
    /** Runs a command once; `exitCode` is null when the driver executed nothing (it never reports what it did not observe). */
    run(target: DriverTarget, command: string, context: DriverContext): Promise<{ exitCode: number | null }>;
    observes(metric: MetricName): boolean;
}
