import type { RuntimeKind } from '../../lib/resources/spec';
import type { RouteRow, RouteTable } from '../../lib/route-table';
import type { Scope } from '../../lib/scopes';
import { APPS } from './apps';
import { CRON_JOBS } from './cron-jobs';
import { SITES } from './sites';
import { WORKERS } from './workers';

// The routes behind the MCP diagnostic tools (docs/mcp.md "Diagnostic tools", api-contract.md section 11): read-only,
// for keys, sessions and OAuth tokens with the scopes of mcp-server.md. Deployment metadata needs deployments:read,
// logs logs:read, telemetry metrics:read, configuration the resource's read scope. Each row belongs to one group,
// served only when its flag (MCP_DEVELOPER_TOOLS_ENABLED, MCP_CONTEXT_TOOLS_ENABLED) is set on the API: otherwise 404.

export type DiagnosticGroup = 'developer' | 'context';

/** The runtime kinds the diagnostics read, as the MCP tools name them (`resourceType`). */
export const DIAGNOSTIC_KINDS: Readonly<Record<'app' | 'site' | 'worker' | 'cron_job', RuntimeKind>> = { app: APPS, site: SITES, worker: WORKERS, cron_job: CRON_JOBS };
/** Kinds with custom domains (domains_diagnose). */
export const DOMAIN_KINDS: readonly RuntimeKind[] = [APPS, SITES];

/** Which group each route belongs to, by id. */
export const DIAGNOSTIC_ROUTE_GROUPS: Record<string, DiagnosticGroup> = {};

const rows: RouteRow[] = [];
const add = (group: DiagnosticGroup, id: string, method: 'GET' | 'POST', path: string, scope: Scope, description: string, extra: Partial<RouteRow>) => {
    DIAGNOSTIC_ROUTE_GROUPS[id] = group;
    rows.push({ id, method, path: `/v1/diagnostics${path}`, auth: 'key', scope, description, ...extra });
};

function kindRows(k: RuntimeKind): void {
    const one = `${k.path}/{${k.param}}`;
    const id = (name: string) => `diagnostics.${k.family}.${name}`;
    const named = { [k.param]: `{${k.fixture}}` };
    const deployed = { setup: [k.fixture, `${k.fixture}Deployment`], params: { ...named, deploymentId: `{${k.fixture}Deployment}` } };
    const plain = { setup: [k.fixture], params: named };
    add('developer', id('deployments'), 'GET', `${one}/deployments`, 'deployments:read', `Deployments of a ${k.noun}, newest first (25 a page by default, at most 100).`, { example: { setup: deployed.setup, params: named } });
    add('developer', id('deployment'), 'GET', `${one}/deployments/{deploymentId}`, 'deployments:read', 'One deployment with its phase timings.', { example: deployed });
    add('developer', id('logs'), 'GET', `${one}/logs`, 'logs:read', 'Runtime logs filtered by text, severity and time, newest first (100 by default, at most 500 and 128 KiB).', { example: { ...plain, query: { q: 'started' } } });
    add('developer', id('buildLogs'), 'GET', `${one}/deployments/{deploymentId}/build-logs`, 'logs:read', 'Build logs of a deployment, oldest first, paginated by timestamp (`after`); other filters are refused.', { example: deployed });
    add('developer', id('metrics'), 'GET', `${one}/metrics/{metric}`, 'metrics:read', 'A metric series with its source: measured, unavailable (nothing observes it) or error (the provider failed).', { example: { ...plain, params: { ...named, metric: 'cpu-usage' } } });
    add('developer', id('health'), 'GET', `${one}/health`, k.scopes.read, `The ${k.noun}'s health from its state and its recent deployments.`, { example: plain });
    add('developer', id('watch'), 'GET', `${one}/deployments/{deploymentId}/watch`, 'deployments:read', 'Waits up to 12 seconds for a deployment to settle; a failed one comes with at most 4 KiB of its log tail (logs:read).', { example: { ...deployed, query: { wait: 0 } }, });
    add('context', id('compare'), 'GET', `${one}/deployments/{deploymentId}/compare`, 'deployments:read', 'What differs between two recorded deployments (`otherDeploymentId`): settings, commit, variable names; never values.', { example: { ...deployed, query: { otherDeploymentId: `{${k.fixture}Deployment}` } } });
    add('context', id('environmentAudit'), 'GET', `${one}/environment/audit`, k.scopes.read, 'Findings on the environment variables, current or as recorded at a deployment (`deploymentId`): names only.', { example: plain });
    add('context', id('environmentCompare'), 'GET', `${one}/environment/compare`, k.scopes.read, 'Variable names and equality between a deployment\'s snapshot and another\'s, or the current environment: never values or fingerprints.', { example: { ...deployed, params: named, query: { deploymentId: `{${k.fixture}Deployment}` } } });
    add('context', id('preflight'), 'POST', `${one}/preflight`, k.scopes.read, 'Checks the repository reference, size limits and an optional service file without building or reserving anything.', { policy: { role: 'viewer', collaborator: 'view' }, example: { ...plain, payload: {} } });
    add('context', id('dependencies'), 'GET', `${one}/dependencies`, k.scopes.read, 'What the resource uses and what uses it, from recorded links only (connection strings are not parsed).', { example: plain });
    add('context', id('usageInsights'), 'GET', `${one}/usage-insights`, 'metrics:read', 'CPU and memory over a period against the allocation, with a verdict or inconclusive.', { example: plain });
}

for (const kind of Object.values(DIAGNOSTIC_KINDS)) {
    kindRows(kind);
}

for (const k of DOMAIN_KINDS) {
    add('context', `diagnostics.${k.family}.domains`, 'GET', `${k.path}/{${k.param}}/domains/diagnose`, k.scopes.read,
        'Probes DNS and TLS of at most two verified public hostnames, pinning the resolved address; private and reserved destinations are refused.', { example: { setup: [k.fixture], params: { [k.param]: `{${k.fixture}}` } } });
}

const database = { setup: ['database'], params: { databaseName: '{database}' } };
add('developer', 'diagnostics.databases.health', 'GET', '/databases/{databaseName}/health', 'databases:read', 'A database\'s health from its state.', { example: database });
add('context', 'diagnostics.databases.dependencies', 'GET', '/databases/{databaseName}/dependencies', 'databases:read', 'The resources linked to a database, from recorded links only.', { example: database });
add('developer', 'diagnostics.projects.overview', 'GET', '/projects/{projectId}/overview', 'projects:read', 'A project\'s resources and recent deployments; sections the credential\'s scopes cannot read are left out and named.', { example: { params: { projectId: '{project}' } } });
add('context', 'diagnostics.projects.activity', 'GET', '/projects/{projectId}/activity', 'deployments:read', 'A project\'s deployments across its resources, newest first (25 a page by default, at most 100).', { example: { params: { projectId: '{project}' } } });

export const diagnosticsTable: RouteTable = { family: 'diagnostics', rows };
