import type { NamedPlugin } from '@hapi/hapi';

import { Edge } from '../../lib/edge/edge';
import { filesHandler } from '../../lib/edge/files';
import { HostRules, type HostRulesOptions } from '../../lib/edge/hosts';
import { EdgeMeter } from '../../lib/edge/meter';
import { FileStore } from '../../lib/edge/store';

// The edge on the API server's port (lib/edge): every request whose Host is not the platform's is answered by the
// edge before routing, so a tenant's host owns every path (`/v1`, `/dashboard`, `/oauth` included). Kinds served on
// the edge register a provider (`edge.provide('site', ...)`); the `files` handler is built in, and the process
// runtime adds `edge.serve('upstream', ...)` and `edge.serveRaw('upstream', ...)`. The edge takes over the listener's
// `request` event (it looks a tenant's host up before hapi). The file store and the meter are built once here and shared.
const DRAIN_MS = 10_000;

export interface EdgePluginOptions {
    hosts: HostRulesOptions;
    dataDir: string;
    flushMs: number;                                            // how often measured requests are written
}

export const edgePlugin: NamedPlugin<EdgePluginOptions> = {
    name: 'hostless-edge',
    dependencies: ['hostless-auth', 'hostless-resources'],
    register(server, options) {
        const { services } = server.plugins['hostless-resources'];
        const { reader } = server.plugins['hostless-auth'];
        const store = new FileStore(options.dataDir, services.knex, reader);
        const meter = new EdgeMeter(services.metrics, { flushMs: options.flushMs, onError: (err) => server.log(['error', 'edge'], err) });
        const edge = new Edge({ hosts: new HostRules(options.hosts), reader, measure: meter.record });
        edge.serve('files', filesHandler(store));

        server.ext('onRequest', edge.onRequest, { before: ['hostless-auth'] });
        edge.attach(server.listener);
        server.ext('onPreStop', async () => {
            await edge.drained(DRAIN_MS);                       // proxied requests in flight end before the runtime stops their instances
            await meter.stop();
        });
        server.expose('edge', edge);
        server.expose('store', store);
        server.expose('meter', meter);
    }
};
