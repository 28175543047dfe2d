import type { Knex } from 'knex';

import { deriveKey } from '../../lib/crypto';
import { DnsProbe } from '../../lib/outside/dns-probe';
import type { PriceList } from '../../lib/plans';
import { bindRoutes, type FamilyPlugin } from '../../lib/route-table';
import type { RuntimeDriver } from '../../lib/runtime/driver';
import { appsTable } from '../../manifest/routes/apps';
import { appRoutes } from './routes/apps';
import { cronJobRoutes } from './routes/cron-jobs';
import { deploymentRoutes } from './routes/deployments';
import { observabilityRoutes } from './routes/observability';
import { processRoutes } from './routes/processes';
import { repositoryRoutes } from './routes/repository';
import { sharingRoutes } from './routes/sharing';
import { createServices } from './services';
import { FIRE_JOB, RUN_JOB } from './services/cron-jobs';
import { DEPLOY_JOB } from './services/deployments';
import { VERIFY_JOB } from './services/domains';
import { GitAccess } from './services/git';
import { LogStore } from './services/logs';
import { EXPIRE_JOB } from './services/review-apps';

// The apps family: settings, environment, domains, collaborators, worker processes, cron jobs, deployments, logs,
// metrics, traces, review apps and service files. Background work runs as jobs on the core queue; the runtime
// driver performs it. The model the other families copy.
export interface AppsPluginOptions {
    knex: Knex;
    encryptionKey: string;
    driver: RuntimeDriver;
    prices: PriceList;
    githubApiUrl: string;
    outboundAllowlist: readonly string[];
    dnsServers?: readonly string[];
    reviewAppHours?: number;
}

export const appsPlugin: FamilyPlugin<AppsPluginOptions> = {
    name: 'hostless-apps',
    table: appsTable,
    dependencies: ['hostless-auth', 'hostless-jobs'],
    register(server, options) {
        const { queue } = server.plugins['hostless-jobs'];
        const sealKey = deriveKey(options.encryptionKey, 'secrets-at-rest');
        const services = createServices({
            knex: options.knex,
            queue,
            driver: options.driver,
            sealKey,
            prices: options.prices,
            git: new GitAccess({ knex: options.knex, sealKey, githubApiUrl: options.githubApiUrl, allowlist: options.outboundAllowlist }),
            dns: new DnsProbe({ ...(options.dnsServers ? { servers: options.dnsServers } : {}) }),
            logs: new LogStore(options.knex),
            reviewAppHours: options.reviewAppHours ?? 72
        });

        queue.handle(DEPLOY_JOB, (payload: { deploymentId: string }, context) => services.deployments.run(payload.deploymentId, context));
        queue.handle(VERIFY_JOB, (payload: { domainId: string }) => services.domains.verify(payload.domainId));
        queue.handle(FIRE_JOB, (payload: { cronJobId: string; scheduledFor: string }, context) => services.cronJobs.fire(payload, context));
        queue.handle(RUN_JOB, (payload: { runId: string }, context) => services.cronJobs.execute(payload.runId, context));
        queue.handle(EXPIRE_JOB, (payload: { reviewAppId: string }) => services.reviewApps.expire(payload.reviewAppId));

        bindRoutes(server, appsTable, {
            ...appRoutes(services),
            ...deploymentRoutes(services),
            ...observabilityRoutes(services),
            ...sharingRoutes(services),
            ...processRoutes(services),
            ...cronJobRoutes(services),
            ...repositoryRoutes(services)
        });
    }
};
