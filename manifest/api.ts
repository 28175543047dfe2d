import type { Knex } from 'knex';

import type { Manifest } from '../lib/compose';
import { deriveKey } from '../lib/crypto';
import { gitHosts, type GitHostsSettings } from '../lib/git/hosts';
import type { RouteTable } from '../lib/route-table';
import type { DatabaseProvisioner } from '../lib/provisioner/driver';
import type * as Postgres from '../lib/provisioner/postgres';
import { RecordsProvisioner } from '../lib/provisioner/records';
import type { RuntimeDriver } from '../lib/runtime/driver';
import { RecordsDriver } from '../lib/runtime/records';
import { ProcessDriver } from '../lib/runtime/process/driver';
import { runtimePlugin } from '../plugins/runtime';
import { systemClock, type Clock } from '../lib/scheduler/clock';
import { accountsPlugin } from '../plugins/accounts';
import { adminPlugin } from '../plugins/admin';
import { apiKeysPlugin } from '../plugins/api-keys';
import { appsPlugin } from '../plugins/apps';
import { billingPlugin } from '../plugins/billing';
import { cronJobsPlugin } from '../plugins/cron-jobs';
import { authPlugin } from '../plugins/auth';
import { dashboardPlugin } from '../plugins/dashboard';
import { edgePlugin } from '../plugins/edge';
import { databasesPlugin } from '../plugins/databases';
import { diagnosticsPlugin } from '../plugins/diagnostics';
import { healthPlugin } from '../plugins/health';
import { idempotencyPlugin } from '../plugins/idempotency';
import { invitationsPlugin } from '../plugins/invitations';
import { eventsPlugin } from '../plugins/events';
import { gitPlugin } from '../plugins/git';
import { integrationsPlugin } from '../plugins/integrations';
import { jobsPlugin } from '../plugins/jobs';
import { logPlugin } from '../plugins/log';
import { notificationsPlugin } from '../plugins/notifications';
import { oauthPlugin } from '../plugins/oauth';
import { openApiPlugin } from '../plugins/openapi';
import { projectsPlugin } from '../plugins/projects';
import { rateLimitsPlugin } from '../plugins/rate-limits';
import { resourcesPlugin } from '../plugins/resources';
import { securityEventsPlugin } from '../plugins/security-events';
import { workersPlugin } from '../plugins/workers';
import { sitesPlugin } from '../plugins/sites';
import { HostRules, type HostRulesOptions } from '../lib/edge/hosts';
import { virtualMachinesPlugin } from '../plugins/virtual-machines';
import { testDataPlugin } from '../plugins/test-data';
import { testDataMounted } from '../lib/test-data/gates';
import { RecordsVmDriver } from '../lib/vm/records';
import type { Config } from './config';
import { DOCS_DIR } from './docs';
import pkg from '../package.json';

/** The families the API mounts, in order: their tables are exactly the routes it serves. */
export const API_FAMILIES = [notificationsPlugin, accountsPlugin, apiKeysPlugin, invitationsPlugin, projectsPlugin, securityEventsPlugin, adminPlugin, oauthPlugin, appsPlugin, sitesPlugin, workersPlugin, cronJobsPlugin, databasesPlugin, virtualMachinesPlugin, gitPlugin, integrationsPlugin, billingPlugin, healthPlugin, dashboardPlugin, openApiPlugin, diagnosticsPlugin] as const;


/** The password that seals the dashboard's session cookie: derived from SESSION_SECRET, so rotating it signs everyone out. */
export function dashboardCookiePassword(config: Config): string {
    return deriveKey(config.sessionSecret, 'dashboard-cookie').toString('base64url');
}

/** The Git hosts' settings, from the configuration: GitHub's web origin follows its API's unless it is set. */
export function gitHostSettings(config: Config): GitHostsSettings {
    const { github } = config;
    const webUrl = github.webUrl ?? (github.apiUrl === 'https://api.github.com' ? 'https://github.com' : github.apiUrl.replace(/\/api\/v3$/, ''));
    return {
        github: { webUrl, apiUrl: github.apiUrl, clientId: github.clientId ?? null, clientSecret: github.clientSecret ?? null },
        gitlab: config.gitlab,
        bitbucket: config.bitbucket
    };
}

/** The origins the dashboard's Git page sends the browser to (its forms' redirects go there). */
export function gitAuthorizeOrigins(config: Config): string[] {
    return Object.values(gitHosts(gitHostSettings(config), [])).flatMap((host) => host.oauth ? [host.oauth.authorizeOrigin] : []);
}

/** The MCP server's resource URL: the audience OAuth clients ask tokens for. */
export function mcpResource(config: Config): string {
    return `${config.mcpPublicUrl}/mcp`;
}

/** The tables a server with this configuration mounts: the families', and the test-data routes where their gates hold. */
export function mountedTables(config?: Pick<Config, 'nodeEnv' | 'testData'>): RouteTable[] {
    return [...API_FAMILIES.map((family) => family.table), ...(config && testDataMounted(config.nodeEnv, config.testData) ? [testDataPlugin.table] : [])];
}

/** Every table some configuration of the API serves: the families' and the development-only test-data routes. */
export function servedTables(): RouteTable[] {
    return [...API_FAMILIES.map((family) => family.table), testDataPlugin.table];
}

/** The test-data family, registered only where its process gates hold (lib/test-data/gates.ts). */
function testDataPlugins(config: Config, knex: Knex, clock?: Clock): Manifest['register']['plugins'] {
    if (!testDataMounted(config.nodeEnv, config.testData)) {
        return [];
    }

    const now = clock ? () => clock.now() : undefined;
    return [{ plugin: testDataPlugin, options: { knex, nodeEnv: config.nodeEnv, config: config.testData, database: config.database, dataDir: config.dataDir, ...(now ? { clock: now } : {}) } }];
}

/** Which hosts are the platform's and which the tenants' (lib/edge/hosts.ts). */
export function hostRules(config: Config): HostRulesOptions {
    return { publicUrl: config.publicUrl, mcpPublicUrl: config.mcpPublicUrl, apiBaseUrl: config.apiBaseUrl, bind: config.host, sitesDomain: config.sites.domain };
}

/** Redis, when REDIS_URL is set: the job queue's backend and the per-credential rate limit counters. */
export function redisSettings(config: Config): { url: string; prefix: string } | null {
    return config.redisUrl ? { url: config.redisUrl, prefix: config.redisPrefix ?? 'hostless' } : null;
}

/** The runtime driver the configuration names. */
export function runtimeDriver(config: Config): RuntimeDriver {
    const { runtime } = config;
    if (runtime.driver === 'process') {
        return new ProcessDriver({
            dir: runtime.dir ?? `${config.dataDir}-runtime`, allowFileGit: runtime.allowFileGit ?? false, sameUser: runtime.sameUser ?? false,
            uidRange: runtime.uidRange ?? [20000, 29999], healthPath: runtime.healthPath ?? '/', healthTimeoutMs: runtime.healthTimeoutMs ?? 30_000,
            buildTimeoutMs: runtime.buildTimeoutMs ?? 900_000, path: process.env.PATH ?? '/usr/bin:/bin', outboundAllowlist: config.outbound.allowlist, metricsRetentionDays: runtime.metricsRetentionDays ?? 14,
            ...(runtime.memoryLimitMiB ? { memoryLimitMiB: runtime.memoryLimitMiB } : {})
        });
    }

    return new RecordsDriver({ stepDelayMs: config.runtime.recordsStepDelayMs });
}

/** The database provisioner the configuration names: `postgres` with DATABASE_PROVISIONER_URL, else `records`. */
export function databaseProvisioner(config: Config): DatabaseProvisioner {
    const { databases } = config;
    return databases.provisionerUrl
        // node-postgres is loaded only where it is used: a SQLite server without a provisioner never holds it.
        // eslint-disable-next-line @typescript-eslint/no-require-imports
        ? new (require('../lib/provisioner/postgres') as typeof Postgres).PostgresProvisioner({ url: databases.provisionerUrl, publicHost: databases.publicHost, publicPort: databases.publicPort, binDir: databases.binDir, importTimeoutMs: databases.importTimeoutMs })
        : new RecordsProvisioner();
}

// The API server: options plus its ordered plugin list. The access pipeline comes first; every family after it.
export function apiManifest(config: Config, knex: Knex, write: (line: string) => void, driver: RuntimeDriver = runtimeDriver(config), clock?: Clock): Manifest {
    // One clock for the whole server (tests move it): the scheduler reads it as a Date, credentials as milliseconds.
    const millis = () => (clock ?? systemClock).now().getTime();
    return {
        server: {
            host: config.host,
            port: config.port,
            debug: false,
            router: { stripTrailingSlash: true },
            routes: {
                security: { hsts: config.publicUrl.startsWith('https:'), xframe: 'deny', noSniff: true, referrer: 'no-referrer' }
            }
        },
        register: {
            plugins: [
                { plugin: logPlugin, options: { write } },
                { plugin: eventsPlugin, options: {} },
                { plugin: jobsPlugin, options: { knex, mode: config.jobs.mode, concurrency: config.jobs.concurrency, ...(config.jobs.leaseMs ? { leaseMs: config.jobs.leaseMs } : {}), redis: redisSettings(config) } },
                { plugin: authPlugin, options: { knex, sessionSecret: config.sessionSecret, issuer: config.publicUrl, trustedProxies: config.trustedProxies, clock: millis } },
                {
                    plugin: rateLimitsPlugin,
                    options: { knex, limits: config.rateLimits ?? null, redis: redisSettings(config), clock: millis }
                },
                { plugin: idempotencyPlugin, options: { knex, encryptionKey: config.encryptionKey, clock: millis } },
                {
                    plugin: notificationsPlugin,
                    options: {
                        knex, publicUrl: config.publicUrl, retentionDays: config.notifications.retentionDays,
                        smtp: config.notifications.smtpUrl ? { url: config.notifications.smtpUrl, from: config.notifications.from } : null
                    }
                },
                { plugin: accountsPlugin, options: { knex, passwordCost: config.passwordCost, signupEnabled: config.signupEnabled } },
                {
                    plugin: apiKeysPlugin,
                    options: { knex, clock: millis, maxLifetimeDays: config.apiKeys.maxLifetimeDays, secretScanning: { keysUrl: config.secretScanning.keysUrl, allowlist: config.outbound.allowlist } }
                },
                { plugin: invitationsPlugin, options: { knex } },
                { plugin: projectsPlugin, options: { knex } },
                { plugin: securityEventsPlugin, options: { knex, retentionDays: config.securityEventRetentionDays } },
                { plugin: adminPlugin, options: { knex, enabled: config.mcpAdminToolsEnabled ?? false } },
                {
                    plugin: oauthPlugin,
                    options: {
                        knex, encryptionKey: config.encryptionKey, issuer: config.publicUrl, resource: mcpResource(config),
                        assistant: config.oauth.assistant, legacy: config.oauth.legacy,
                        // Plain-http documents on loopback only outside production, and only where OUTBOUND_ALLOWLIST lets the client reach them.
                        metadataDocuments: config.oauth.metadataDocuments ? { allowlist: config.outbound.allowlist, allowHttpLoopback: !config.production } : null
                    }
                },
                {
                    plugin: resourcesPlugin,
                    options: {
                        knex, encryptionKey: config.encryptionKey, driver, git: gitHostSettings(config),
                        outboundAllowlist: config.outbound.allowlist, dnsServers: config.dnsServers, reservedNames: new HostRules(hostRules(config)).reservedNames(), allowFileGit: config.runtime.allowFileGit ?? false,
                        logRetentionDays: config.logRetentionDays, ...(clock ? { clock } : {})
                    }
                },
                { plugin: edgePlugin, options: { hosts: hostRules(config), dataDir: config.dataDir, flushMs: config.sites.flushMs } },
                { plugin: runtimePlugin, options: { flushMs: config.sites.flushMs } },
                { plugin: appsPlugin, options: { prices: config.prices, reviewAppHours: config.reviewAppHours } },
                { plugin: sitesPlugin, options: { reviewHours: config.reviewAppHours } },
                { plugin: workersPlugin, options: {} },
                { plugin: cronJobsPlugin, options: {} },
                { plugin: databasesPlugin, options: { provisioner: databaseProvisioner(config), encryptionKey: config.encryptionKey, outboundAllowlist: config.outbound.allowlist } },
                {
                    plugin: diagnosticsPlugin,
                    options: {
                        knex, developer: config.mcpDeveloperToolsEnabled ?? false, context: config.mcpContextToolsEnabled ?? false, dnsServers: config.dnsServers,
                        outboundAllowlist: config.outbound.allowlist, allowFileGit: config.runtime.allowFileGit ?? false, ...(config.diagnosticsTlsPort ? { tlsPort: config.diagnosticsTlsPort } : {})
                    }
                },
                { plugin: virtualMachinesPlugin, options: { driver: new RecordsVmDriver(), catalogue: config.vms.catalogue } },
                { plugin: gitPlugin, options: { knex, publicUrl: config.publicUrl } },
                {
                    plugin: integrationsPlugin,
                    options: { knex, encryptionKey: config.encryptionKey, publicUrl: config.publicUrl, slack: config.slack, outboundAllowlist: config.outbound.allowlist }
                },
                {
                    plugin: billingPlugin,
                    options: {
                        knex, prices: config.prices, catalogue: config.vms.catalogue, encryptionKey: config.encryptionKey, publicUrl: config.publicUrl,
                        payments: config.payments, outboundAllowlist: config.outbound.allowlist, ...(clock ? { clock } : {})
                    }
                },
                { plugin: healthPlugin, options: { knex, version: pkg.version } },
                { plugin: openApiPlugin, options: { version: pkg.version, publicUrl: config.publicUrl } },
                ...testDataPlugins(config, knex, clock),
                {
                    plugin: dashboardPlugin,
                    options: {
                        cookiePassword: dashboardCookiePassword(config),
                        secureCookies: config.publicUrl.startsWith('https:'),
                        docsDir: DOCS_DIR,
                        gitAuthorizeOrigins: gitAuthorizeOrigins(config),
                        publicUrl: config.publicUrl,
                        mcpPublicUrl: config.mcpPublicUrl,
                        sitesDomain: config.sites.domain,
                        ...(config.dashboard?.liveTail ? { liveTail: config.dashboard.liveTail } : {})
                    }
                }
            ]
        }
    };
}
