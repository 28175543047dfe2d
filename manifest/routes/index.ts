import type { RouteTable } from '../../lib/route-table';
import { accountsTable } from './accounts';
import { apiKeysTable } from './api-keys';
import { appsTable } from './apps';
import { billingTable } from './billing';
import { cronJobsTable } from './cron-jobs';
import { dashboardTable } from './dashboard';
import { databasesTable } from './databases';
import { gitTable } from './git';
import { healthTable } from './health';
import { integrationsTable } from './integrations';
import { projectsTable } from './projects';
import { securityEventsTable } from './security-events';
import { sitesTable } from './sites';
import { virtualMachinesTable } from './virtual-machines';
import { workersTable } from './workers';

/** Every route table, mounted or not: the source of truth for scopes, docs and the generated security tests. */
export const ROUTE_TABLES: readonly RouteTable[] = [
    accountsTable, apiKeysTable, projectsTable, securityEventsTable, healthTable,
    appsTable, sitesTable, workersTable, cronJobsTable, databasesTable,
    integrationsTable, gitTable, virtualMachinesTable, billingTable, dashboardTable
];

export { FIXTURES } from './fixtures';
