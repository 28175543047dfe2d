import * as Boom from '@hapi/boom';

import type { DatabaseConfig } from '../db/knex';

// The gates of the development-only test-data tools (docs/test-data.md): all must hold, and each fails closed. The
// process-wide ones decide whether the routes and tools exist at all (a production boot has neither); the per-call
// ones (caller, environment, template) are checked on every request. Admin status bypasses none of them.

export interface TestDataEnvironment {
    database: string;                                           // hostless_test_<env>, or the API's own database for dashboard fixtures
    dashboardFixtures?: boolean;
}

export interface TestDataConfig {
    enabled: boolean;                                           // MCP_TEST_DATA_ENABLED
    userIds: readonly string[];                                 // MCP_TEST_DATA_USER_IDS
    environments: Readonly<Record<string, TestDataEnvironment>>;    // TEST_DATA_ENVIRONMENTS
    dashboardEnabled: boolean;                                  // TEST_DATA_DASHBOARD_ENABLED
}

export const DEVELOPMENT_ENVS: readonly string[] = ['local', 'dev', 'development'];
export const DISPOSABLE_PREFIX = 'hostless_test_';
export const DASHBOARD_TEMPLATES: readonly string[] = ['dashboard_usage', 'dashboard_invoice'];

/** Whether the tools and routes exist in this process: NODE_ENV exactly local, dev or development, and the switch on. */
export function testDataMounted(nodeEnv: string | null, config: TestDataConfig | undefined): config is TestDataConfig {
    return !!config && config.enabled && nodeEnv !== null && DEVELOPMENT_ENVS.includes(nodeEnv) && config.userIds.length > 0;
}

/** The name of the API's current database: the PostgreSQL database, or the SQLite file's name without `.sqlite`. */
export function primaryDatabaseName(database: DatabaseConfig): string {
    if (database.client === 'postgres') {
        return decodeURIComponent(new URL(database.connectionString).pathname.slice(1));
    }

    return (database.filename.split(/[\\/]/).pop() ?? '').replace(/\.sqlite$/, '');
}

export interface CallGate {
    nodeEnv: string | null;
    config: TestDataConfig;
    primary: string;                                            // primaryDatabaseName of the API's database
}

/** The caller's gate: an API key of an allow-listed user (the route's scope is checked by the access pipeline). */
export function checkCaller(gate: CallGate, credentials: { via: string; userId: string }): void {
    if (credentials.via !== 'key') {
        throw Boom.forbidden('Test-data tools take an API key with test-data scopes; sessions and OAuth tokens are refused');
    }

    if (!gate.config.userIds.includes(credentials.userId)) {
        throw Boom.forbidden('This account is not in MCP_TEST_DATA_USER_IDS');
    }
}

/**
 * The environment's gate for a template: it must be listed (production and unknown names deny); generic templates
 * need the disposable database `hostless_test_<env>`, different from the API's; dashboard templates need NODE_ENV
 * exactly local, TEST_DATA_DASHBOARD_ENABLED, and an entry with dashboardFixtures naming the API's own database.
 */
export function checkEnvironment(gate: CallGate, environment: string, template: string): TestDataEnvironment {
    const entry = Object.hasOwn(gate.config.environments, environment) ? gate.config.environments[environment] : undefined;
    if (!entry || /^prod(uction)?$/i.test(environment)) {
        throw Boom.forbidden(`environment "${environment}" is not a test-data environment (TEST_DATA_ENVIRONMENTS)`);
    }

    if (DASHBOARD_TEMPLATES.includes(template)) {
        if (gate.nodeEnv !== 'local' || !gate.config.dashboardEnabled || entry.dashboardFixtures !== true || entry.database !== gate.primary) {
            throw Boom.forbidden(`${template} needs NODE_ENV=local, TEST_DATA_DASHBOARD_ENABLED=true and an environment with dashboardFixtures naming the API's database`);
        }

        return entry;
    }

    if (entry.database !== `${DISPOSABLE_PREFIX}${environment}` || entry.database === gate.primary) {
        throw Boom.forbidden(`environment "${environment}" must name the disposable database ${DISPOSABLE_PREFIX}${environment}, not the API's own`);
    }

    return entry;
}
