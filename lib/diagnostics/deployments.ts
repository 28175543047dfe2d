import { setTimeout as sleep } from 'node:timers/promises';

import type { Knex } from 'knex';

import { Deployment, TERMINAL, type ConfigSnapshot } from '../resources/deployments';
import { deploymentStats } from '../resources/handlers';
import type { LogStore } from '../resources/logs';
import { FAILURE_TAIL_BYTES, tail } from './limits';

// Deployment reads for the diagnostic tools: a view without environment values, a comparison of two recorded
// deployments, and a bounded wait for one to settle.

/** A deployment as the diagnostics show it: its configuration with variable names only. */
export function deploymentView(deployment: Deployment) {
    const { environment, ...config } = (deployment.config ?? {}) as Partial<ConfigSnapshot>;
    return {
        id: deployment.id,
        status: deployment.status,
        trigger: deployment.trigger,
        commitSha: deployment.commitSha,
        branch: deployment.branch,
        error: deployment.error,
        reviewAppId: deployment.reviewAppId,
        configuration: { ...config, environmentVariables: Array.isArray(environment) ? environment.map((variable) => variable.name) : null },
        timings: deploymentStats(deployment).durationsMs,
        createdAt: deployment.createdAt,
        finishedAt: deployment.finishedAt
    };
}

const SETTINGS = ['plan', 'region', 'instances', 'buildCommand', 'startCommand'] as const;

/** What differs between two recorded deployments: settings, source, linked databases and variable names (never values). */
export function compareDeployments(first: Deployment, second: Deployment) {
    const a = (first.config ?? {}) as Partial<ConfigSnapshot>;
    const b = (second.config ?? {}) as Partial<ConfigSnapshot>;
    const changed: Array<{ field: string; first: unknown; second: unknown }> = [];
    for (const field of SETTINGS) {
        if (JSON.stringify(a[field] ?? null) !== JSON.stringify(b[field] ?? null)) {
            changed.push({ field, first: a[field] ?? null, second: b[field] ?? null });
        }
    }

    for (const [field, x, y] of [['commitSha', first.commitSha, second.commitSha], ['branch', first.branch, second.branch], ['repository', a.repository ?? null, b.repository ?? null]] as const) {
        if (JSON.stringify(x) !== JSON.stringify(y)) {
            changed.push({ field, first: x, second: y });
        }
    }

    const names = (config: Partial<ConfigSnapshot>, key: 'databases' | 'processes') => (config[key] ?? []).map((item) => typeof item === 'string' ? item : item.name);
    const setDiff = (x: string[], y: string[]) => ({ added: y.filter((name) => !x.includes(name)), removed: x.filter((name) => !y.includes(name)) });
    const vars = (config: Partial<ConfigSnapshot>) => Array.isArray(config.environment) ? config.environment.map((variable) => variable.name) : null;
    const [va, vb] = [vars(a), vars(b)];
    return {
        outcome: 'ok',
        first: { id: first.id, status: first.status, createdAt: first.createdAt },
        second: { id: second.id, status: second.status, createdAt: second.createdAt },
        changed,
        databases: setDiff(names(a, 'databases'), names(b, 'databases')),
        processes: setDiff(names(a, 'processes'), names(b, 'processes')),
        environmentVariables: va && vb ? { outcome: 'ok', ...setDiff(va, vb) } : { outcome: 'unavailable', reason: 'a deployment recorded no environment' }
    };
}

export interface WatchOptions {
    knex: Knex;
    logs: LogStore;
    deploymentId: string;
    resourceId: string;
    waitMs: number;
    pollMs?: number;
    withLogs: boolean;                                          // the caller holds logs:read: a failed deployment comes with its log tail
    signal?: AbortSignal;
}

/** Waits until the deployment is terminal or the wait ends; answers its state either way (`settled` says which). */
export async function watchDeployment(options: WatchOptions) {
    const deadline = Date.now() + options.waitMs;
    let deployment = await Deployment.query(options.knex).findById(options.deploymentId) as Deployment;
    while (!TERMINAL.includes(deployment.status) && Date.now() < deadline && !options.signal?.aborted) {
        await sleep(Math.min(options.pollMs ?? 250, Math.max(1, deadline - Date.now())));
        deployment = await Deployment.query(options.knex).findById(options.deploymentId) as Deployment;
    }

    const settled = TERMINAL.includes(deployment.status);
    const answer: Record<string, unknown> = { outcome: 'ok', settled, status: deployment.status, deployment: deploymentView(deployment) };
    if (deployment.status === 'failed') {
        if (options.withLogs) {
            const lines = await options.logs.query({ resourceId: options.resourceId, deploymentId: deployment.id, streams: ['build', 'release'], order: 'newest' }, { limit: 200 });
            answer.logTail = tail(lines.reverse(), FAILURE_TAIL_BYTES);
        }
        else {
            answer.logTail = null;
            answer.logTailOmitted = 'the log tail needs logs:read';
        }
    }

    return answer;
}
