import type { NamedPlugin } from '@hapi/hapi';
import type { Knex } from 'knex';

import { deriveKey } from '../../lib/crypto';
import { DnsProbe } from '../../lib/outside/dns-probe';
import { DEPLOY_JOB } from '../../lib/resources/deployments';
import { VERIFY_JOB } from '../../lib/resources/domains';
import { expireReview, REVIEW_EXPIRE_JOB } from '../../lib/resources/reviews';
import { createRuntimeServices } from '../../lib/resources/services';
import type { RuntimeDriver } from '../../lib/runtime/driver';

// The runtime-resource mechanisms of this server (lib/resources): built once, their jobs handled once, and shared
// by every runtime family (apps, sites, workers, cron jobs), which reach them through server.plugins.
export interface ResourcesPluginOptions {
    knex: Knex;
    encryptionKey: string;
    driver: RuntimeDriver;
    githubApiUrl: string;
    outboundAllowlist: readonly string[];
    dnsServers?: readonly string[];
    reservedNames?: readonly string[];                          // names the edge's name space refuses
}

export const resourcesPlugin: NamedPlugin<ResourcesPluginOptions> = {
    name: 'hostless-resources',
    dependencies: ['hostless-auth', 'hostless-jobs'],
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
            githubApiUrl: options.githubApiUrl,
            outboundAllowlist: options.outboundAllowlist,
            ...(options.reservedNames ? { reservedNames: options.reservedNames } : {})
        });

        queue.handle(DEPLOY_JOB, (payload: { deploymentId: string }, context) => services.deployments.run(payload.deploymentId, context));
        queue.handle(VERIFY_JOB, (payload: { domainId: string }) => services.domains.verify(payload.domainId));
        queue.handle(REVIEW_EXPIRE_JOB, (payload: { reviewId: string }) => expireReview(options.knex, payload.reviewId));
        server.expose('services', services);
    }
};
