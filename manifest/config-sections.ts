// Sections of the configuration that belong to one outside service (the runtime, the database provisioner, Git
// hosts, Slack): their shapes and how they are made from the validated environment (manifest/config.ts validates it).
import * as Path from 'node:path';

import { isLoopback } from '../lib/edge/hosts';
import type { PaymentsConfig } from '../lib/billing/processors';
import type { Env } from './env';

export class ConfigError extends Error { }

/** The runtime driver (docs/runtime.md): `process` runs user code on this node, `records` keeps state only. */
export interface RuntimeConfig {
    driver: 'records' | 'process';
    recordsStepDelayMs: number;
    dir?: string;                                               // the release folders (process driver)
    allowFileGit?: boolean;                                     // file:// repositories (laptop mode, or RUNTIME_ALLOW_FILE_GIT)
    sameUser?: boolean;                                         // run user code as the server's own user (laptop mode, or RUNTIME_SAME_USER)
    uidRange?: [number, number];
    healthPath?: string;
    healthTimeoutMs?: number;
    buildTimeoutMs?: number;
    metricsRetentionDays?: number;
    memoryLimitMiB?: number;                                    // instead of each plan's memory (tests)
}

/** The variables the runtime's section is made from, as config.ts validated them. */
export interface RuntimeEnv {
    HOST: string;
    RUNTIME_DRIVER?: 'records' | 'process';
    RUNTIME_DIR?: string;
    RUNTIME_ALLOW_FILE_GIT: boolean;
    RUNTIME_SAME_USER: boolean;
    RUNTIME_UID_RANGE: string;
    RUNTIME_HEALTH_PATH: string;
    RUNTIME_HEALTH_TIMEOUT_MS: number;
    RUNTIME_BUILD_TIMEOUT_MS: number;
    RUNTIME_METRICS_RETENTION_DAYS: number;
    RECORDS_STEP_DELAY_MS: number;
}

/** Laptop mode: the server listens on loopback and is reached on loopback, outside production. */
export function laptopMode(value: Pick<RuntimeEnv, 'HOST'>, publicUrl: string, production: boolean): boolean {
    return !production && isLoopback(value.HOST) && isLoopback(new URL(publicUrl).hostname);
}

export function runtimeSettings(value: RuntimeEnv, mcp: { publicUrl: string; production: boolean }, dataDir: string): RuntimeConfig {
    const laptop = laptopMode(value, mcp.publicUrl, mcp.production);
    const driver = value.RUNTIME_DRIVER ?? (laptop ? 'process' : null);
    if (!driver) {
        throw new ConfigError('RUNTIME_DRIVER is not set: outside laptop mode (HOST and PUBLIC_URL on loopback, NODE_ENV not production) name it: process to run apps, workers and cron jobs on this node, or records to keep state only.');
    }

    const [low, high] = value.RUNTIME_UID_RANGE.split('-').map(Number) as [number, number];
    if (!(low >= 1000 && high >= low)) {
        throw new ConfigError('RUNTIME_UID_RANGE is not valid: set it to a range of unused uids from 1000 up, such as 20000-29999.');
    }

    return {
        driver, recordsStepDelayMs: value.RECORDS_STEP_DELAY_MS,
        dir: Path.resolve(value.RUNTIME_DIR ?? `${dataDir}-runtime`),
        allowFileGit: laptop || value.RUNTIME_ALLOW_FILE_GIT, sameUser: laptop || value.RUNTIME_SAME_USER, uidRange: [low, high],
        healthPath: value.RUNTIME_HEALTH_PATH, healthTimeoutMs: value.RUNTIME_HEALTH_TIMEOUT_MS, buildTimeoutMs: value.RUNTIME_BUILD_TIMEOUT_MS,
        metricsRetentionDays: value.RUNTIME_METRICS_RETENTION_DAYS
    };
}
/** The database provisioner: `postgres` on the server DATABASE_PROVISIONER_URL names, else `records` (docs/databases.md). */
export interface DatabasesConfig {
    provisionerUrl: string | null;
    publicHost: string | null;                                  // where clients reach that server (default: the URL's host and port)
    publicPort: number | null;
    binDir: string | null;                                      // the folder of pg_dump and pg_restore (default: PATH)
    importTimeoutMs: number;
}

/** GitHub or GitHub Enterprise Server: the API, the web origin the OAuth flow goes through, the OAuth app (docs/git.md). */
export interface GitHubConfig {
    apiUrl: string;
    webUrl?: string;                                            // default: github.com for api.github.com, else the API's origin
    clientId?: string | null;
    clientSecret?: string | null;
}

/** Slack incoming webhooks: the hosts a webhook URL may name. `allowHttpLoopback` is never read from the environment:
 * only a test's configuration lets a webhook be plain http on a loopback address. */
export interface SlackConfig {
    webhookHosts: string[];
    allowHttpLoopback: boolean;
}

export interface GitLabConfig {
    url: string;
    clientId: string | null;
    clientSecret: string | null;
}

export interface BitbucketConfig {
    edition: 'cloud' | 'datacenter';
    url: string;
    apiUrl: string;
    clientId: string | null;
    clientSecret: string | null;
}


export type { PaymentsConfig };

export function databasesSettings(env: Env): DatabasesConfig {
    const [, host, port] = /^(\[[^\]]+\]|[^:]+)(?::(\d+))?$/.exec(env.DATABASE_PROVISIONER_PUBLIC_HOST ?? '') ?? [];
    return {
        provisionerUrl: env.DATABASE_PROVISIONER_URL ?? null,
        publicHost: host ? host.replace(/^\[(.*)\]$/, '$1') : null,
        publicPort: port ? Number(port) : null,
        binDir: env.DATABASE_PROVISIONER_BIN_DIR ?? null,
        importTimeoutMs: env.DATABASE_IMPORT_TIMEOUT_MS
    };
}

export /** Host names a Slack webhook URL may name; set but empty: the default, hooks.slack.com. */
function slackHosts(setting: string): string[] {
    const hosts = setting.split(',').map((entry) => entry.trim().toLowerCase()).filter(Boolean);
    return hosts.length ? hosts : ['hooks.slack.com'];
}

export function gitHostSettings(env: Env): { github: GitHubConfig; gitlab: GitLabConfig; bitbucket: BitbucketConfig } {
    const githubUrl = stripSlash(env.GITHUB_URL);
    const bitbucketUrl = stripSlash(env.BITBUCKET_URL);
    const datacenter = env.BITBUCKET_EDITION === 'datacenter';
    return {
        github: {
            webUrl: githubUrl,
            apiUrl: stripSlash(env.GITHUB_API_URL ?? (githubUrl === 'https://github.com' ? 'https://api.github.com' : `${githubUrl}/api/v3`)),
            clientId: env.GITHUB_CLIENT_ID ?? null,
            clientSecret: env.GITHUB_CLIENT_SECRET ?? null
        },
        gitlab: { url: stripSlash(env.GITLAB_URL), clientId: env.GITLAB_CLIENT_ID ?? null, clientSecret: env.GITLAB_CLIENT_SECRET ?? null },
        bitbucket: {
            edition: env.BITBUCKET_EDITION,
            url: bitbucketUrl,
            apiUrl: stripSlash(env.BITBUCKET_API_URL ?? (datacenter ? `${bitbucketUrl}/rest/api/1.0` : 'https://api.bitbucket.org/2.0')),
            clientId: env.BITBUCKET_CLIENT_ID ?? null,
            clientSecret: env.BITBUCKET_CLIENT_SECRET ?? null
        }
    };
}

export function stripSlash(value: string): string {
    return value.replace(/\/+$/, '');
}

export function paymentsSettings(env: Env): PaymentsConfig {
    return {
        stripe: env.STRIPE_SECRET_KEY
            ? { apiUrl: stripSlash(env.STRIPE_API_URL), secretKey: env.STRIPE_SECRET_KEY, webhookSecret: env.STRIPE_WEBHOOK_SECRET ?? null }
            : null,
        paystack: env.PAYSTACK_SECRET_KEY ? { apiUrl: stripSlash(env.PAYSTACK_API_URL), secretKey: env.PAYSTACK_SECRET_KEY } : null
    };
}
