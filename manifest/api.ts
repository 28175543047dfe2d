import type { Knex } from 'knex';

import type { Manifest } from '../lib/compose';
import { deriveKey } from '../lib/crypto';
import { gitHosts, type GitHostsSettings } from '../lib/git/hosts';
import type { RouteTable } from '../lib/route-table';
import type { DatabaseProvisioner } from '../lib/provisioner/driver';
import { PostgresProvisioner } from '../lib/provisioner/postgres';
import { RecordsProvisioner } from '../lib/provisioner/records';
import type { RuntimeDriver } from '../lib/runtime/driver';
import { RecordsDriver } from '../lib/runtime/records';
import type { Clock } from '../lib/scheduler/clock';
import { accountsPlugin } from '../plugins/accounts';
import { apiKeysPlugin } from '../plugins/api-keys';
import { appsPlugin } from '../plugins/apps';
import { cronJobsPlugin } from '../plugins/cron-jobs';
import { authPlugin } from '../plugins/auth';
import { dashboardPlugin } from '../plugins/dashboard';
import { edgePlugin } from '../plugins/edge';
import { databasesPlugin } from '../plugins/databases';
import { healthPlugin } from '../plugins/health';
import { invitationsPlugin } from '../plugins/invitations';
import { eventsPlugin } from '../plugins/events';
import { gitPlugin } from '../plugins/git';
import { integrationsPlugin } from '../plugins/integrations';
import { jobsPlugin } from '../plugins/jobs';
import { logPlugin } from '../plugins/log';
import { notificationsPlugin } from '../plugins/notifications';
import { oauthPlugin } from '../plugins/oauth';
import { projectsPlugin } from '../plugins/projects';
import { resourcesPlugin } from '../plugins/resources';
import { securityEventsPlugin } from '../plugins/security-events';
import { workersPlugin } from '../plugins/workers';
import { sitesPlugin } from '../plugins/sites';
import { HostRules, type HostRulesOptions } from '../lib/edge/hosts';
import { virtualMachinesPlugin } from '../plugins/virtual-machines';
import { RecordsVmDriver } from '../lib/vm/records';
import type { Config } from './config';
import { DOCS_DIR } from './docs';
import pkg from '../package.json';

/** The families the API mounts, in order: their tables are exactly the routes it serves. */
export const API_FAMILIES = [notificationsPlugin, accountsPlugin, apiKeysPlugin, invitationsPlugin, projectsPlugin, securityEventsPlugin, oauthPlugin, appsPlugin, sitesPlugin, workersPlugin, cronJobsPlugin, databasesPlugin, virtualMachinesPlugin, gitPlugin, integrationsPlugin, healthPlugin, dashboardPlugin] as const;


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

export function mountedTables(): RouteTable[] {
    return API_FAMILIES.map((family) => family.table);
}

/** Which hosts are the platform's and which the tenants' (lib/edge/hosts.ts). */
export function hostRules(config: Config): HostRulesOptions {
    return { publicUrl: config.publicUrl, mcpPublicUrl: config.mcpPublicUrl, apiBaseUrl: config.apiBaseUrl, bind: config.host, sitesDomain: config.sites.domain };
}

/** The runtime driver the configuration names. */
export function runtimeDriver(config: Config): RuntimeDriver {
    return new RecordsDriver({ stepDelayMs: config.runtime.recordsStepDelayMs });
}

/** The database provisioner the configuration names: `postgres` with DATABASE_PROVISIONER_URL, else `records`. */
export function databaseProvisioner(config: Config): DatabaseProvisioner {
    const { databases } = config;
    return databases.provisionerUrl
        ? new PostgresProvisioner({ url: databases.provisionerUrl, publicHost: databases.publicHost, publicPort: databases.publicPort, binDir: databases.binDir, importTimeoutMs: databases.importTimeoutMs })
        : new RecordsProvisioner();
}

// The API server: options plus its ordered plugin list. The access pipeline comes first; every family after it.
export function apiManifest(config: Config, knex: Knex, write: (line: string) => void, driver: RuntimeDriver = runtimeDriver(config), clock?: Clock): Manifest {
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
                { plugin: jobsPlugin, options: { knex, mode: config.jobs.mode, concurrency: config.jobs.concurrency, ...(config.jobs.leaseMs ? { leaseMs: config.jobs.leaseMs } : {}) } },
                { plugin: authPlugin, options: { knex, sessionSecret: config.sessionSecret, issuer: config.publicUrl } },
                {
                    plugin: notificationsPlugin,
                    options: {
                        knex, publicUrl: config.publicUrl, retentionDays: config.notifications.retentionDays,
                        smtp: config.notifications.smtpUrl ? { url: config.notifications.smtpUrl, from: config.notifications.from } : null
                    }
                },
                { plugin: accountsPlugin, options: { knex, passwordCost: config.passwordCost, signupEnabled: config.signupEnabled } },
                { plugin: apiKeysPlugin, options: { knex } },
                { plugin: invitationsPlugin, options: { knex } },
                { plugin: projectsPlugin, options: { knex } },
                { plugin: securityEventsPlugin, options: { knex, retentionDays: config.securityEventRetentionDays } },
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
                        outboundAllowlist: config.outbound.allowlist, dnsServers: config.dnsServers, reservedNames: new HostRules(hostRules(config)).reservedNames(), ...(clock ? { clock } : {})
                    }
                },
                { plugin: edgePlugin, options: { hosts: hostRules(config), dataDir: config.dataDir, flushMs: config.sites.flushMs } },
                { plugin: appsPlugin, options: { prices: config.prices, reviewAppHours: config.reviewAppHours } },
                { plugin: sitesPlugin, options: { reviewHours: config.reviewAppHours } },
                { plugin: workersPlugin, options: {} },
                { plugin: cronJobsPlugin, options: {} },
                { plugin: databasesPlugin, options: { provisioner: databaseProvisioner(config), encryptionKey: config.encryptionKey, outboundAllowlist: config.outbound.allowlist } },
                { plugin: virtualMachinesPlugin, options: { driver: new RecordsVmDriver(), catalogue: config.vms.catalogue } },
                { plugin: gitPlugin, options: { knex, publicUrl: config.publicUrl } },
                {
                    plugin: integrationsPlugin,
                    options: { knex, encryptionKey: config.encryptionKey, publicUrl: config.publicUrl, slack: config.slack, outboundAllowlist: config.outbound.allowlist }
                },
                { plugin: healthPlugin, options: { knex, version: pkg.version } },
                {
                    plugin: dashboardPlugin,
                    options: {
                        cookiePassword: dashboardCookiePassword(config),
                        secureCookies: config.publicUrl.startsWith('https:'),
                        docsDir: DOCS_DIR,
                        gitAuthorizeOrigins: gitAuthorizeOrigins(config)
                    }
                }
            ]
        }
    };
}
