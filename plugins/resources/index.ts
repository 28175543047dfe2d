import type { NamedPlugin } from '@hapi/hapi';
import Hoek from '@hapi/hoek';
import type { Knex } from 'knex';

import { deriveKey } from '../../lib/crypto';
import type { GitHostsSettings } from '../../lib/git/hosts';
import { DnsProbe } from '../../lib/outside/dns-probe';
import { periodicJob } from '../../lib/queue/periodic';
import { CREDENTIALS_KEY_PURPOSE } from '../../lib/provisioner/driver';
import { DEPLOY_JOB } from '../../lib/resources/deployments';
import { VERIFY_JOB } from '../../lib/resources/domains';
import { HISTORY_PRUNE_JOB, HISTORY_PRUNE_PERIOD_MS, pruneHistory } from '../../lib/resources/retention';
import { expireReview, REVIEW_EXPIRE_JOB } from '../../lib/resources/reviews';
import { createRuntimeServices } from '../../lib/resources/services';
import type { RuntimeDriver } from '../../lib/runtime/driver';
import type { Clock } from '../../lib/scheduler/clock';
import { RUN_JOB } from '../../lib/scheduler/scheduler';

// The runtime-resource mechanisms of this server (lib/resources): built once, their jobs handled once, and shared
// by every runtime family (apps, sites, workers, cron jobs), which reach them through server.plugins. The scheduler of
// every scheduled job is one of them.
export interface ResourcesPluginOptions {
    knex: Knex;
    encryptionKey: string;
    driver: RuntimeDriver;
    git: GitHostsSettings;
    outboundAllowlist: readonly string[];
    dnsServers?: readonly string[];
    clock?: Clock;                                              // what the scheduler reads as now (default: the system's)
    reservedNames?: readonly string[];                          // names the edge's name space refuses
    allowFileGit?: boolean;                                     // file:// repositories may be named
    logRetentionDays?: number;                                  // LOG_RETENTION_DAYS: log lines and finished cron runs (default 30)
}

export const resourcesPlugin: NamedPlugin<ResourcesPluginOptions> = {
    name: 'hostless-resources',
    dependencies: ['hostless-auth', 'hostless-jobs', 'hostless-invitations', 'hostless-events'],
    register(server, options) {
        const { queue } = server.plugins['hostless-jobs'];
        Hoek.assert(server.plugins['hostless-invitations'], 'Register the hostless-invitations plugin before the resources plugin: collaborators join by accepting an invitation');
        const services = createRuntimeServices({
            knex: options.knex,
            reader: server.plugins['hostless-auth'].reader,
            lists: server.plugins['hostless-auth'].lists,
            queue,
            driver: options.driver,
            sealKey: deriveKey(options.encryptionKey, 'secrets-at-rest'),
            credentialsKey: deriveKey(options.encryptionKey, CREDENTIALS_KEY_PURPOSE),
            dns: new DnsProbe({ ...(options.dnsServers ? { servers: options.dnsServers } : {}) }),
            git: options.git,
            outboundAllowlist: options.outboundAllowlist,
            invitations: server.plugins['hostless-invitations'].invitations,
            events: server.plugins['hostless-events'].events,
            ...(options.clock ? { clock: options.clock } : {}),
            onError: (err) => server.log(['error', 'scheduler'], err as Error),
            ...(options.reservedNames ? { reservedNames: options.reservedNames } : {}),
            allowFileGit: options.allowFileGit ?? false
        });

        queue.handle(DEPLOY_JOB, (payload: { deploymentId: string }, context) => services.deployments.run(payload.deploymentId, context));
        queue.handle(VERIFY_JOB, (payload: { domainId: string }) => services.domains.verify(payload.domainId));
        queue.handle(RUN_JOB, (payload: { runId: string }, context) => services.scheduler.execute(payload.runId, context));
        // The scheduler ticks wherever the job workers run: with the server (jobs mode `all`), or in a worker process.
        if (server.plugins['hostless-jobs'].mode === 'all') {
            server.ext('onPostStart', () => services.scheduler.start());
        }

        server.ext('onPreStop', () => services.scheduler.stop());
        queue.handle(REVIEW_EXPIRE_JOB, (payload: { reviewId: string }) => expireReview(options.knex, payload.reviewId));
        const now = () => options.clock?.now().getTime() ?? Date.now();
        server.ext('onPostStart', periodicJob(queue, HISTORY_PRUNE_JOB, HISTORY_PRUNE_PERIOD_MS, () => pruneHistory(options.knex, services.logs, options.logRetentionDays ?? 30, now())));
        server.expose('services', services);
    }
};
