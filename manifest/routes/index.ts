import { PROJECT_KIND, type ResourceKind } from '../../lib/resources/kinds';
import type { Fixture, RouteTable } from '../../lib/route-table';
import { accountsTable } from './accounts';
import { adminTable } from './admin';
import { apiKeysTable } from './api-keys';
import { appsTable } from './apps';
import { billingTable } from './billing';
import { cronJobsTable } from './cron-jobs';
import { dashboardTable } from './dashboard';
import { databasesTable } from './databases';
import { diagnosticsTable } from './diagnostics';
import { gitTable } from './git';
import { healthTable } from './health';
import { integrationsTable } from './integrations';
import { invitationsTable } from './invitations';
import { notificationsTable } from './notifications';
import { oauthTable } from './oauth';
import { openApiTable } from './openapi';
import { projectsTable } from './projects';
import { securityEventsTable } from './security-events';
import { testDataTable } from './test-data';
import { sitesTable } from './sites';
import { virtualMachinesTable } from './virtual-machines';
import { workersTable } from './workers';

/** Every route table, mounted or not: the source of truth for scopes, docs and the generated security tests. */
export const ROUTE_TABLES: readonly RouteTable[] = [
    accountsTable, apiKeysTable, projectsTable, invitationsTable, securityEventsTable, adminTable, notificationsTable, healthTable, oauthTable,
    appsTable, sitesTable, workersTable, cronJobsTable, databasesTable,
    integrationsTable, gitTable, virtualMachinesTable, billingTable, dashboardTable, openApiTable, diagnosticsTable, testDataTable
];

/** Every resource kind the tables name, the project included. */
export function kindsOf(tables: readonly RouteTable[]): ResourceKind[] {
    return [PROJECT_KIND, ...tables.flatMap((table) => table.kinds ?? [])];
}

/** How the generated tests make what the tables' examples name: each table's fixtures, merged. */
export function fixturesOf(tables: readonly RouteTable[]): Record<string, Fixture> {
    return Object.assign({}, ...tables.map((table) => table.fixtures ?? {})) as Record<string, Fixture>;
}
