import type { NamedPlugin } from '@hapi/hapi';
import type { Knex } from 'knex';

import { deriveKey } from '../../lib/crypto';
import type { GitHostsSettings } from '../../lib/git/hosts';
import { DnsProbe } from '../../lib/outside/dns-probe';
import { DEPLOY_JOB } from '../../lib/resources/deployments';
import { VERIFY_JOB } from '../../lib/resources/domains';
import { createRuntimeServices } from '../../lib/resources/services';
import type { RuntimeDriver } from '../../lib/runtime/driver';

// The runtime-resource mechanisms of this server (lib/resources): built once, their jobs handled once, and shared
// by every runtime family (apps, sites, workers, cron jobs), which reach them through server.plugins.
export interface ResourcesPluginOptions {
    knex: Knex;
    encryptionKey: string;
    driver: RuntimeDriver;
    git: GitHostsSettings;
    outboundAllowlist: readonly string[];
    dnsServers?: readonly string[];
}

export const resourcesPlugin: NamedPlugin<ResourcesPluginOptions> = {
    name: 'hostless-resources',
    dependencies: ['hostless-auth', 'hostless-jobs', 'hostless-events'],
    register(server, options) {
        const { queue } = server.plugins['hostless-jobs'];
        const services = createRuntimeServices({
            knex: options.knex,
            reader: server.plugins['hostless-auth'].reader,
            lists: server.plugins['hostless-auth'].lists,
            queue,
            driver: options.driver,
            sealKey: deriveKey(options.encryptionKey, 'secrets-at-rest'),
            dns: new DnsProbe({ ...(options.dnsServers ? { servers: options.dnsServers } : {}) }),
            git: options.git,
            outboundAllowlist: options.outboundAllowlist,
            events: server.plugins['hostless-events'].events
        });

        queue.handle(DEPLOY_JOB, (payload: { deploymentId: string }, context) => services.deployments.run(payload.deploymentId, context));
        queue.handle(VERIFY_JOB, (payload: { domainId: string }) => services.domains.verify(payload.domainId));
        server.expose('services', services);
    }
};
