import type { Knex } from 'knex';

import * as identity from './001-identity';
import * as coreServices from './002-core-services';
import * as apps from './003-apps';
import * as runtimeResources from './004-runtime-resources';
import * as notifications from './020-notifications';
import * as oauth from './030-oauth';
import * as invitations from './035-invitations';
import * as sites from './040-sites';
import * as reviews from './041-reviews';
import * as workers from './045-workers';
import * as cronJobs from './046-cron-jobs';
import * as databases from './050-databases';
import * as virtualMachines from './051-virtual-machines';
import * as gitConnections from './060-git-connections';
import * as integrations from './061-integrations';
import * as runtimeInstances from './070-runtime-instances';
import * as billing from './080-billing';
import * as apiKeyExtras from './100-api-key-extras';
import * as logSearchBounds from './101-log-search-bounds';
import * as adminAccessAudit from './105-admin-access-audit';
import * as idempotencyKeys from './110-idempotency-keys';
import * as jobOutbox from './115-job-outbox';
import * as rateLimitCounters from './116-rate-limit-counters';
import * as testData from './130-test-data';
import * as deploymentsByProject from './140-deployments-by-project';
import * as reachableListIndexes from './150-reachable-list-indexes';

// Migrations in order, imported rather than scanned, so they load the same under lab (.ts), from dist (.js) and
// inside a host application that embeds the plugins.
export const MIGRATIONS: ReadonlyArray<{ name: string; up: (knex: Knex) => Promise<void>; down: (knex: Knex) => Promise<void> }> = [
    { name: '001-identity', ...identity },
    { name: '002-core-services', ...coreServices },
    { name: '003-apps', ...apps },
    { name: '004-runtime-resources', ...runtimeResources },
    { name: '020-notifications', ...notifications },
    { name: '030-oauth', ...oauth },
    { name: '035-invitations', ...invitations },
    { name: '040-sites', ...sites },
    { name: '041-reviews', ...reviews },
    { name: '045-workers', ...workers },
    { name: '046-cron-jobs', ...cronJobs },
    { name: '050-databases', ...databases },
    { name: '051-virtual-machines', ...virtualMachines },
    { name: '060-git-connections', ...gitConnections },
    { name: '061-integrations', ...integrations },
    { name: '070-runtime-instances', ...runtimeInstances },
    { name: '080-billing', ...billing },
    { name: '100-api-key-extras', ...apiKeyExtras },
    { name: '101-log-search-bounds', ...logSearchBounds },
    { name: '105-admin-access-audit', ...adminAccessAudit },
    { name: '110-idempotency-keys', ...idempotencyKeys },
    { name: '115-job-outbox', ...jobOutbox },
    { name: '116-rate-limit-counters', ...rateLimitCounters },
    { name: '130-test-data', ...testData },
    { name: '140-deployments-by-project', ...deploymentsByProject },
    { name: '150-reachable-list-indexes', ...reachableListIndexes }
];
