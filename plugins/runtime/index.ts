import type { NamedPlugin } from '@hapi/hapi';

import { ProcessDriver } from '../../lib/runtime/process/driver';
import { UpstreamProxy } from '../../lib/runtime/process/proxy';

// The process runtime's place in the server (lib/runtime/process, docs/runtime.md). Under the `process` driver it
// binds the driver to the runtime services, serves apps on the edge (`upstream` targets: their serving instances,
// read from `runtime_instances`, so every server process routes to every process's instances), passes WebSocket
// upgrades through, samples CPU and memory and beats the instances' heartbeat every `sampleMs`, starts again the
// live deployments nothing serves (at start, and those whose owner stopped beating), and stops every process it
// started when the server stops. Under `records` it does nothing.
export interface RuntimePluginOptions {
    flushMs: number;                                            // how often spans are written
    sampleMs?: number;                                          // default 15 s
    reconcile?: boolean;                                        // start live deployments again when the server starts (default true)
}

export const runtimePlugin: NamedPlugin<RuntimePluginOptions> = {
    name: 'hostless-runtime',
    dependencies: ['hostless-auth', 'hostless-resources', 'hostless-edge'],
    register(server, options) {
        const { services } = server.plugins['hostless-resources'];
        const { driver } = services;
        if (!(driver instanceof ProcessDriver)) {
            return;
        }

        const { edge } = server.plugins['hostless-edge'];
        const { reader } = server.plugins['hostless-auth'];
        const onError = (err: unknown) => server.log(['error', 'runtime'], err as Error);
        const proxy = new UpstreamProxy({ traces: services.traces, flushMs: options.flushMs, onError });
        driver.attach({
            knex: services.knex, logs: services.logs, metrics: services.metrics, envVars: services.envVars, links: services.links, git: services.git,
            inflight: proxy.inflight, context: (owner, signal) => services.deployments.context(owner, signal), onError
        });

        edge.serve('upstream', proxy.handle);
        edge.serveRaw('upstream', proxy.handleRaw);
        edge.provide('app', async ({ resourceId, review }) => {
            if (review !== null) {
                return null;
            }

            const rows = await reader.all<{ id: string; host: string; port: number; deployment_id: string; project_id: string; name: string }>(
                'SELECT i.id, i.host, i.port, i.deployment_id, a.project_id, a.name FROM runtime_instances i JOIN apps a ON a.id = i.resource_id WHERE i.resource_id = ? AND i.state = \'serving\' AND i.process = \'web\' ORDER BY i.slot, i.id',
                [resourceId]);
            const first = rows[0];
            return first
                ? { kind: 'upstream', resource: { type: 'app', id: resourceId, projectId: first.project_id, name: first.name }, deploymentId: first.deployment_id, upstreams: rows.map((row) => ({ id: row.id, host: row.host, port: Number(row.port) })) }
                : null;
        });
        server.listener.on('upgrade', proxy.upgrade(edge));

        const sampleMs = options.sampleMs ?? 15_000;
        const staleMs = sampleMs * 3;
        // Started with the server, or by a job worker process (which runs deployments but does not listen).
        const start = async () => {
            if (options.reconcile !== false) {
                await driver.reconcile(staleMs).catch(onError);
            }

            driver.sampler.start(sampleMs, async () => {
                await driver.supervisor.beat();
                await driver.reconcile(staleMs);
            });
        };
        server.ext('onPostStart', start);
        server.ext('onPreStop', async () => {
            await proxy.stop();
            await driver.shutdown();
        });
        server.expose('start', start);
        server.expose('driver', driver);
        server.expose('proxy', proxy);
    }
};
