import * as Crypto from 'node:crypto';
import * as Fs from 'node:fs';
import * as Path from 'node:path';

import Joi from 'joi';

import { parseDatabaseUrl, type DatabaseConfig } from '../lib/db/knex';
import { sitesDomainProblem } from '../lib/edge/hosts';
import { DEFAULT_PRICE_LIST, PLAN_NAMES, type PriceList } from '../lib/plans';
import { ACTIONS } from '../lib/mcp/platform-tools';
import { redirectUriProblem } from '../lib/oauth/redirect-uri';
import { READONLY } from '../lib/mcp/selection';
import { DEFAULT_VM_CATALOGUE, vmCatalogueSchema, type VmCatalogue } from '../lib/vm/catalogue';
import { PLATFORM_TOOL_KINDS } from './routes/mcp-tools';

// The environment, read once, validated, with defaults that make `npm start` work on a laptop. Everything else in
// the codebase receives options; nothing else reads process.env.

/** What the MCP server needs: no database and no secret, so it can run alone on another machine. */
export interface McpConfig {
    nodeEnv: string | null;
    production: boolean;
    host: string;
    mcpPort: number;
    publicUrl: string;
    mcpPublicUrl: string;
    apiBaseUrl: string;
    mcpReadOnly: boolean;
    mcpAllowedTools: string[] | null;                           // null: every offered tool
    mcpAllowedOrigins: string[];
}

export interface Config extends McpConfig {
    port: number;
    dataDir: string;
    database: DatabaseConfig;
    redisUrl: string | null;
    sessionSecret: string;
    encryptionKey: string;
    signupEnabled: boolean;
    passwordCost: number;
    jobs: { mode: 'all' | 'api' | 'worker'; concurrency: number; leaseMs?: number };
    securityEventRetentionDays: number;
    outbound: { allowlist: string[] };
    github: GitHubConfig;
    gitlab: { url: string; clientId: string | null; clientSecret: string | null };
    bitbucket: { edition: 'cloud' | 'datacenter'; url: string; apiUrl: string; clientId: string | null; clientSecret: string | null };
    slack: SlackConfig;
    runtime: { driver: 'records'; recordsStepDelayMs: number };
    prices: PriceList;
    dnsServers: string[];
    reviewAppHours: number;
    oauth: OAuthConfig;
    notifications: { smtpUrl: string | null; from: string; retentionDays: number };
    sites: { domain: string; flushMs: number };                // the edge: tenants' hosts are `<name>.<domain>`
    databases: DatabasesConfig;
    vms: { driver: 'records'; catalogue: VmCatalogue };
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

/** The OAuth server's clients beyond the users' own (docs/oauth.md). */
export interface OAuthConfig {
    assistant: { id: string; name: string; redirectPrefixes: string[] } | null;     // null: no prefixes configured
    legacy: { id: string; name: string; secret: string; redirectUris: string[] } | null;   // only with OAUTH_CLAUDE_CLIENT_SECRET
    metadataDocuments: boolean;                                 // client_id URLs naming a Client ID Metadata Document
}

export const DEFAULT_ASSISTANT_REDIRECT_PREFIXES = ['https://chatgpt.com/connector_platform_oauth_redirect', 'https://chatgpt.com/aip/', 'https://chat.openai.com/aip/'];
export const CLAUDE_REDIRECT_URIS = ['https://claude.ai/api/mcp/auth_callback', 'https://claude.com/api/mcp/auth_callback'];

const port = Joi.number().integer().min(0).max(65535);
const url = Joi.string().uri({ scheme: ['http', 'https'] });
const secret = Joi.string().min(32);
const list = (item: Joi.StringSchema) => Joi.array().items(item);
const toolGroups = PLATFORM_TOOL_KINDS.map((spec) => spec.kind);
const toolNames = [READONLY, ...toolGroups, ...toolGroups.flatMap((group) => ACTIONS.map((action) => `${group}_${action}`))];
const origin = Joi.string().pattern(/^(\*|https?:\/\/[^/?#\s]+)$/, 'origin');

const schema = Joi.object({
    NODE_ENV: Joi.string().allow(''),
    HOST: Joi.string().hostname().default('127.0.0.1'),
    PORT: port.default(3000),
    MCP_PORT: port.default(3001),
    PUBLIC_URL: url,
    MCP_PUBLIC_URL: url,
    API_BASE_URL: url,
    DATA_DIR: Joi.string().default('./data'),
    DATABASE_URL: Joi.string().pattern(/^(postgres(ql)?:\/\/|sqlite:)/, 'postgres:// or sqlite: URL'),
    REDIS_URL: Joi.string().pattern(/^rediss?:\/\//, 'redis:// URL'),
    SESSION_SECRET: secret,
    ENCRYPTION_KEY: secret,
    SIGNUP_ENABLED: Joi.boolean().truthy('1').falsy('0').default(true),
    PASSWORD_HASH_COST: Joi.number().integer().valid(1024, 2048, 4096, 8192, 16384, 32768, 65536).default(16384),
    JOBS_MODE: Joi.string().valid('all', 'api', 'worker').default('all'),
    JOB_CONCURRENCY: Joi.number().integer().min(1).max(64).default(4),
    SECURITY_EVENT_RETENTION_DAYS: Joi.number().integer().min(1).max(3650).default(365),
    OUTBOUND_ALLOWLIST: Joi.string().allow('').default(''),
    GITHUB_URL: url.default('https://github.com'),
    GITHUB_API_URL: url,
    GITHUB_CLIENT_ID: Joi.string().pattern(/^[\w.-]{1,100}$/),
    GITHUB_CLIENT_SECRET: Joi.string().min(8).max(200),
    GITLAB_URL: url.default('https://gitlab.com'),
    GITLAB_CLIENT_ID: Joi.string().pattern(/^[\w.-]{1,100}$/),
    GITLAB_CLIENT_SECRET: Joi.string().min(8).max(200),
    BITBUCKET_EDITION: Joi.string().valid('cloud', 'datacenter').default('cloud'),
    BITBUCKET_URL: url.default('https://bitbucket.org'),
    BITBUCKET_API_URL: url,
    BITBUCKET_CLIENT_ID: Joi.string().pattern(/^[\w.-]{1,100}$/),
    BITBUCKET_CLIENT_SECRET: Joi.string().min(8).max(200),
    SLACK_WEBHOOK_HOSTS: Joi.string().allow('').default(''),
    JOB_LEASE_MS: Joi.number().integer().min(100).max(600_000),
    RUNTIME_DRIVER: Joi.string().valid('records').default('records'),
    RECORDS_STEP_DELAY_MS: Joi.number().integer().min(0).max(60_000).default(0),
    PRICE_LIST_FILE: Joi.string(),
    DNS_SERVERS: Joi.string().allow('').default(''),
    REVIEW_APP_HOURS: Joi.number().integer().min(1).max(720).default(72),
    MCP_READ_ONLY: Joi.boolean().truthy('1').falsy('0').default(false),
    MCP_ALLOWED_TOOLS: Joi.string().allow(''),
    MCP_ALLOWED_ORIGINS: Joi.string().allow(''),
    OAUTH_ASSISTANT_CLIENT_ID: Joi.string().pattern(/^[\w.-]{1,64}$/).default('chatgpt'),
    OAUTH_ASSISTANT_CLIENT_NAME: Joi.string().max(128).default('ChatGPT'),
    OAUTH_ASSISTANT_REDIRECT_PREFIXES: Joi.string().allow(''),
    OAUTH_CLAUDE_CLIENT_ID: Joi.string().pattern(/^[\w.-]{1,64}$/).default('claude'),
    OAUTH_CLAUDE_CLIENT_SECRET: secret,
    OAUTH_METADATA_DOCUMENTS: Joi.boolean().truthy('1').falsy('0').default(true),
    SMTP_URL: Joi.string().uri({ scheme: ['smtp', 'smtps'] }),
    SMTP_FROM: Joi.string().max(254).pattern(/^(?:[^<>\r\n]*<[^\s@<>]+@[^\s@<>]+>|[^\s@<>]+@[^\s@<>]+)$/, 'address'),
    NOTIFICATION_RETENTION_DAYS: Joi.number().integer().min(1).max(3650).default(90),
    SITES_DOMAIN: Joi.string().trim().lowercase().hostname().pattern(/^[^.].*[^.]$|^[^.]$/).default('localhost'),
    EDGE_FLUSH_MS: Joi.number().integer().min(10).max(300_000).default(5000),
    DATABASE_PROVISIONER_URL: Joi.string().uri({ scheme: ['postgres', 'postgresql'] }),
    DATABASE_PROVISIONER_PUBLIC_HOST: Joi.string().pattern(/^(?:[A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/, 'host[:port]'),
    DATABASE_PROVISIONER_BIN_DIR: Joi.string(),
    DATABASE_IMPORT_TIMEOUT_MS: Joi.number().integer().min(1000).max(86_400_000).default(3_600_000),
    VM_DRIVER: Joi.string().valid('records').default('records'),
    VM_CATALOGUE_FILE: Joi.string()
}).unknown(true);

const money = Joi.number().min(0).max(1_000_000).required();
const byPlan = Joi.object(Object.fromEntries(PLAN_NAMES.map((plan) => [plan, money]))).required();
const priceListSchema = Joi.object({
    currency: Joi.string().pattern(/^[A-Z]{3}$/).required(),
    instancePerMonth: byPlan,
    databasePerMonth: byPlan,
    cronJobPerMonth: money,
    customDomainPerMonth: money
});

const redirectPrefix = Joi.string().custom((value: string, helpers) => redirectUriProblem(value) ? helpers.error('any.invalid') : value);
const lists = Joi.object({
    MCP_ALLOWED_TOOLS: list(Joi.string().valid(...toolNames)),
    MCP_ALLOWED_ORIGINS: list(origin),
    OAUTH_ASSISTANT_REDIRECT_PREFIXES: list(redirectPrefix)
});

const hints: Record<string, string> = {
    PORT: 'a port number such as 3000',
    MCP_PORT: 'a port number such as 3001',
    SESSION_SECRET: 'at least 32 random characters, e.g. the output of `openssl rand -hex 32`',
    ENCRYPTION_KEY: 'at least 32 random characters, e.g. the output of `openssl rand -hex 32`',
    PUBLIC_URL: 'an http(s) URL such as https://api.example.com',
    MCP_PUBLIC_URL: 'an http(s) URL such as https://mcp.example.com',
    API_BASE_URL: 'an http(s) URL such as http://127.0.0.1:3000',
    DATABASE_URL: 'postgres://user:password@host:5432/database, or leave it unset for SQLite in DATA_DIR',
    JOBS_MODE: 'all (API and workers), api (no workers) or worker (workers only)',
    JOB_CONCURRENCY: 'a number of jobs run at once, 1 to 64',
    SECURITY_EVENT_RETENTION_DAYS: 'a number of days, 1 to 3650',
    GITHUB_URL: 'the GitHub web origin, e.g. https://github.example.com for GitHub Enterprise Server',
    GITHUB_API_URL: 'the GitHub API origin, e.g. https://github.example.com/api/v3 for GitHub Enterprise',
    GITHUB_CLIENT_ID: 'the client id of your GitHub OAuth app (set GITHUB_CLIENT_SECRET with it)',
    GITHUB_CLIENT_SECRET: 'the client secret of your GitHub OAuth app (set GITHUB_CLIENT_ID with it)',
    GITLAB_URL: 'the GitLab origin, e.g. https://gitlab.example.com for a self-managed GitLab',
    GITLAB_CLIENT_ID: 'the application id of your GitLab OAuth application (set GITLAB_CLIENT_SECRET with it)',
    GITLAB_CLIENT_SECRET: 'the secret of your GitLab OAuth application (set GITLAB_CLIENT_ID with it)',
    BITBUCKET_EDITION: 'cloud (bitbucket.org) or datacenter (Bitbucket Data Center or Server)',
    BITBUCKET_URL: 'the Bitbucket origin: https://bitbucket.org, or your Data Center\'s such as https://bitbucket.example.com',
    BITBUCKET_API_URL: 'the Bitbucket API, e.g. https://api.bitbucket.org/2.0 (Data Center: <BITBUCKET_URL>/rest/api/1.0)',
    BITBUCKET_CLIENT_ID: 'the key of your Bitbucket OAuth consumer or incoming application link (set BITBUCKET_CLIENT_SECRET with it)',
    BITBUCKET_CLIENT_SECRET: 'the secret of your Bitbucket OAuth consumer or incoming application link (set BITBUCKET_CLIENT_ID with it)',
    SLACK_WEBHOOK_HOSTS: 'a comma list of host names Slack webhook URLs may name, such as hooks.slack.com',
    JOB_LEASE_MS: 'how long a worker holds a job before another may claim it, in ms (100 to 600000)',
    RUNTIME_DRIVER: 'records (the process driver comes with its own release)',
    RECORDS_STEP_DELAY_MS: 'a pause between the records driver\'s steps, in ms (0 to 60000)',
    PRICE_LIST_FILE: 'the path of a JSON price list (see docs/service-file.md)',
    REVIEW_APP_HOURS: 'the hours a review app lives before it is removed (1 to 720)',
    MCP_READ_ONLY: 'true or false',
    MCP_ALLOWED_TOOLS: `a comma list of tool names (such as projects_list) and groups (${toolGroups.join(', ')}), optionally with ${READONLY}`,
    MCP_ALLOWED_ORIGINS: 'a comma list of origins such as https://app.example.com,http://localhost:6274, or *',
    OAUTH_ASSISTANT_CLIENT_ID: 'a client id of letters, digits, ".", "_" and "-"',
    OAUTH_ASSISTANT_REDIRECT_PREFIXES: 'a comma list of https URLs (or http on a loopback address) under which the assistant\'s callbacks live',
    OAUTH_CLAUDE_CLIENT_ID: 'a client id of letters, digits, ".", "_" and "-"',
    OAUTH_CLAUDE_CLIENT_SECRET: 'at least 32 random characters, shared with the connector\'s operator',
    OAUTH_METADATA_DOCUMENTS: 'true or false',
    SMTP_URL: 'an SMTP server URL such as smtps://user:password@smtp.example.com:465 or smtp://smtp.example.com:587',
    SMTP_FROM: 'an email address, optionally with a name: Hostless <no-reply@example.com>',
    NOTIFICATION_RETENTION_DAYS: 'a number of days, 1 to 3650',
    SITES_DOMAIN: 'a domain whose subdomains name sites and apps, e.g. sites.example.com (localhost on a laptop)',
    EDGE_FLUSH_MS: 'how often the edge writes what it measured, in ms (10 to 300000)',
    DATABASE_PROVISIONER_URL: 'postgres://admin:password@db.internal:5432/postgres: an account with CREATEROLE and CREATEDB (or a superuser)',
    DATABASE_PROVISIONER_PUBLIC_HOST: 'the host (and port) clients reach the provisioner\'s server at, such as db.example.com:5432',
    DATABASE_PROVISIONER_BIN_DIR: 'the folder holding pg_dump and pg_restore, such as /usr/lib/postgresql/16/bin',
    DATABASE_IMPORT_TIMEOUT_MS: 'the longest an import may run, in ms (1000 to 86400000)',
    VM_DRIVER: 'records (a hypervisor driver comes with its own release)',
    VM_CATALOGUE_FILE: 'the path of a JSON VM catalogue (see docs/virtual-machines.md)'
};

export class ConfigError extends Error { }

function validated(env: NodeJS.ProcessEnv): Record<string, any> {
    const split = (name: string) => {
        const items = env[name]?.split(',').map((item) => item.trim()).filter(Boolean);
        return items?.length ? items : undefined;                   // set but empty: the default
    };
    const { value, error } = schema.validate(env, { abortEarly: true, convert: true });
    const { error: listError } = lists.validate({
        MCP_ALLOWED_TOOLS: split('MCP_ALLOWED_TOOLS'), MCP_ALLOWED_ORIGINS: split('MCP_ALLOWED_ORIGINS'), OAUTH_ASSISTANT_REDIRECT_PREFIXES: split('OAUTH_ASSISTANT_REDIRECT_PREFIXES')
    });
    const unpaired = ['GITHUB', 'GITLAB', 'BITBUCKET'].find((host) => !error && !value[`${host}_CLIENT_ID`] !== !value[`${host}_CLIENT_SECRET`]);
    if (unpaired) {
        const missing = value[`${unpaired}_CLIENT_ID`] ? `${unpaired}_CLIENT_SECRET` : `${unpaired}_CLIENT_ID`;
        throw new ConfigError(`${missing} is not set: set it to ${hints[missing]}, or unset both to leave the host unconnected.`);
    }

    const problem = error ?? listError;
    if (problem) {
        const name = String(problem.details[0]?.path[0] ?? 'a setting');
        throw new ConfigError(`${name} is not valid: set it to ${hints[name] ?? 'a valid value'}, or leave it unset for the default.`);
    }

    const prefixes = env.OAUTH_ASSISTANT_REDIRECT_PREFIXES === undefined ? DEFAULT_ASSISTANT_REDIRECT_PREFIXES : split('OAUTH_ASSISTANT_REDIRECT_PREFIXES') ?? [];
    return { ...value, MCP_ALLOWED_TOOLS: split('MCP_ALLOWED_TOOLS'), MCP_ALLOWED_ORIGINS: split('MCP_ALLOWED_ORIGINS'), OAUTH_ASSISTANT_REDIRECT_PREFIXES: prefixes };
}

function mcpSettings(value: Record<string, any>): McpConfig {
    const publicUrl = stripSlash(value.PUBLIC_URL ?? `http://localhost:${value.PORT}`);
    const mcpPublicUrl = stripSlash(value.MCP_PUBLIC_URL ?? `http://localhost:${value.MCP_PORT}`);
    return {
        nodeEnv: value.NODE_ENV || null,
        production: value.NODE_ENV === 'production',
        host: value.HOST,
        mcpPort: value.MCP_PORT,
        publicUrl,
        mcpPublicUrl,
        apiBaseUrl: stripSlash(value.API_BASE_URL ?? publicUrl),
        mcpReadOnly: value.MCP_READ_ONLY,
        mcpAllowedTools: value.MCP_ALLOWED_TOOLS ?? null,
        mcpAllowedOrigins: value.MCP_ALLOWED_ORIGINS ?? [...new Set([new URL(mcpPublicUrl).origin, new URL(publicUrl).origin])]
    };
}

/** The MCP server's settings alone: reads no secret and touches no data folder. */
export function loadMcpConfig(env: NodeJS.ProcessEnv): McpConfig {
    return mcpSettings(validated(env));
}

export function loadConfig(env: NodeJS.ProcessEnv): Config {
    const value = validated(env);
    const mcp = mcpSettings(value);
    const dataDir = Path.resolve(value.DATA_DIR);
    const secrets = mcp.production ? givenSecrets(value) : generatedSecrets(value, dataDir);
    const sitesProblem = mcp.production ? sitesDomainProblem(value.SITES_DOMAIN, mcp.publicUrl) : null;
    if (sitesProblem) {
        throw new ConfigError(`${sitesProblem}. In production set SITES_DOMAIN to a domain of its own, e.g. PUBLIC_URL https://hostless.example.com with SITES_DOMAIN example-sites.com.`);
    }

    return {
        ...mcp,
        port: value.PORT,
        dataDir,
        database: parseDatabaseUrl(value.DATABASE_URL, dataDir),
        redisUrl: value.REDIS_URL ?? null,
        ...secrets,
        signupEnabled: value.SIGNUP_ENABLED,
        passwordCost: value.PASSWORD_HASH_COST,
        jobs: { mode: value.JOBS_MODE, concurrency: value.JOB_CONCURRENCY, ...(value.JOB_LEASE_MS ? { leaseMs: value.JOB_LEASE_MS } : {}) },
        securityEventRetentionDays: value.SECURITY_EVENT_RETENTION_DAYS,
        outbound: { allowlist: value.OUTBOUND_ALLOWLIST.split(',').map((entry: string) => entry.trim()).filter(Boolean) },
        ...gitHostSettings(value),
        slack: { webhookHosts: slackHosts(value.SLACK_WEBHOOK_HOSTS), allowHttpLoopback: false },
        runtime: { driver: value.RUNTIME_DRIVER, recordsStepDelayMs: value.RECORDS_STEP_DELAY_MS },
        prices: value.PRICE_LIST_FILE ? readPriceList(value.PRICE_LIST_FILE) : DEFAULT_PRICE_LIST,
        dnsServers: value.DNS_SERVERS.split(',').map((entry: string) => entry.trim()).filter(Boolean),
        reviewAppHours: value.REVIEW_APP_HOURS,
        oauth: {
            assistant: value.OAUTH_ASSISTANT_REDIRECT_PREFIXES.length
                ? { id: value.OAUTH_ASSISTANT_CLIENT_ID, name: value.OAUTH_ASSISTANT_CLIENT_NAME, redirectPrefixes: value.OAUTH_ASSISTANT_REDIRECT_PREFIXES }
                : null,
            legacy: value.OAUTH_CLAUDE_CLIENT_SECRET
                ? { id: value.OAUTH_CLAUDE_CLIENT_ID, name: 'Claude', secret: value.OAUTH_CLAUDE_CLIENT_SECRET, redirectUris: CLAUDE_REDIRECT_URIS }
                : null,
            metadataDocuments: value.OAUTH_METADATA_DOCUMENTS
        },
        notifications: {
            smtpUrl: value.SMTP_URL ?? null,
            from: value.SMTP_FROM ?? `Hostless <no-reply@${new URL(mcp.publicUrl).hostname}>`,
            retentionDays: value.NOTIFICATION_RETENTION_DAYS
        },
        sites: { domain: value.SITES_DOMAIN, flushMs: value.EDGE_FLUSH_MS },
        databases: databasesSettings(value),
        vms: { driver: value.VM_DRIVER, catalogue: value.VM_CATALOGUE_FILE ? readJson(value.VM_CATALOGUE_FILE, 'VM_CATALOGUE_FILE', 'VM catalogue', vmCatalogueSchema) : DEFAULT_VM_CATALOGUE }
    };
}

function databasesSettings(value: Record<string, any>): DatabasesConfig {
    const [, host, port] = /^(\[[^\]]+\]|[^:]+)(?::(\d+))?$/.exec(value.DATABASE_PROVISIONER_PUBLIC_HOST ?? '') ?? [];
    return {
        provisionerUrl: value.DATABASE_PROVISIONER_URL ?? null,
        publicHost: host ? host.replace(/^\[(.*)\]$/, '$1') : null,
        publicPort: port ? Number(port) : null,
        binDir: value.DATABASE_PROVISIONER_BIN_DIR ?? null,
        importTimeoutMs: value.DATABASE_IMPORT_TIMEOUT_MS
    };
}

function readJson<T>(file: string, name: string, what: string, shape: Joi.ObjectSchema<T>): T {
    let raw: unknown;
    try {
        raw = JSON.parse(Fs.readFileSync(file, 'utf8'));
    }
    catch (err) {
        throw new ConfigError(`${name} could not be read as JSON (${(err as Error).message}): set it to ${hints[name]}.`);
    }

    const { value, error } = shape.validate(raw);
    if (error) {
        throw new ConfigError(`${name} is not a valid ${what}: ${error.details[0]!.message}.`);
    }

    return value;
}

/** stdio mode's credential: a session access token or an API key, in APP_TOKEN. Never logged, never echoed. */
export function loadAppToken(env: NodeJS.ProcessEnv): string {
    const token = env.APP_TOKEN?.trim().replace(/^Bearer +/i, '');
    if (!token) {
        throw new ConfigError('APP_TOKEN is not set: stdio mode acts with your credential; set it to an API key (svk_...) or a session access token.');
    }

    if (/\s/.test(token)) {
        throw new ConfigError('APP_TOKEN is not valid: set it to one API key (svk_...) or one session access token, without spaces.');
    }

    return token;
}

function givenSecrets(value: Record<string, string | undefined>) {
    for (const name of ['SESSION_SECRET', 'ENCRYPTION_KEY']) {
        if (!value[name]) {
            throw new ConfigError(`${name} is not set: in production (NODE_ENV=production) every secret must be given; set it to ${hints[name]}.`);
        }
    }

    return { sessionSecret: value.SESSION_SECRET!, encryptionKey: value.ENCRYPTION_KEY! };
}

// On a laptop, secrets are generated once and kept in the data folder (created 0700; the file 0600), so restarts keep
// sessions valid.
function generatedSecrets(value: Record<string, string | undefined>, dataDir: string) {
    const file = Path.join(dataDir, 'secrets.json');
    let stored: { sessionSecret?: string; encryptionKey?: string } = {};
    if (Fs.existsSync(file)) {
        stored = JSON.parse(Fs.readFileSync(file, 'utf8'));
    }

    const secrets = {
        sessionSecret: value.SESSION_SECRET ?? stored.sessionSecret ?? Crypto.randomBytes(32).toString('hex'),
        encryptionKey: value.ENCRYPTION_KEY ?? stored.encryptionKey ?? Crypto.randomBytes(32).toString('hex')
    };

    if (stored.sessionSecret !== secrets.sessionSecret && !value.SESSION_SECRET || stored.encryptionKey !== secrets.encryptionKey && !value.ENCRYPTION_KEY) {
        Fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
        Fs.writeFileSync(file, JSON.stringify({ sessionSecret: stored.sessionSecret ?? secrets.sessionSecret, encryptionKey: stored.encryptionKey ?? secrets.encryptionKey }, null, 2), { mode: 0o600 });
    }

    return secrets;
}

function readPriceList(file: string): PriceList {
    let raw: unknown;
    try {
        raw = JSON.parse(Fs.readFileSync(file, 'utf8'));
    }
    catch (err) {
        throw new ConfigError(`PRICE_LIST_FILE could not be read as JSON (${(err as Error).message}): set it to ${hints.PRICE_LIST_FILE}.`);
    }

    const { value, error } = priceListSchema.validate(raw);
    if (error) {
        throw new ConfigError(`PRICE_LIST_FILE is not a valid price list: ${error.details[0]!.message}.`);
    }

    return value as PriceList;
}

/** Host names a Slack webhook URL may name; set but empty: the default, hooks.slack.com. */
function slackHosts(setting: string): string[] {
    const hosts = setting.split(',').map((entry) => entry.trim().toLowerCase()).filter(Boolean);
    return hosts.length ? hosts : ['hooks.slack.com'];
}

function gitHostSettings(value: Record<string, any>): Pick<Config, 'github' | 'gitlab' | 'bitbucket'> {
    const githubUrl = stripSlash(value.GITHUB_URL);
    const bitbucketUrl = stripSlash(value.BITBUCKET_URL);
    const datacenter = value.BITBUCKET_EDITION === 'datacenter';
    return {
        github: {
            webUrl: githubUrl,
            apiUrl: stripSlash(value.GITHUB_API_URL ?? (githubUrl === 'https://github.com' ? 'https://api.github.com' : `${githubUrl}/api/v3`)),
            clientId: value.GITHUB_CLIENT_ID ?? null,
            clientSecret: value.GITHUB_CLIENT_SECRET ?? null
        },
        gitlab: { url: stripSlash(value.GITLAB_URL), clientId: value.GITLAB_CLIENT_ID ?? null, clientSecret: value.GITLAB_CLIENT_SECRET ?? null },
        bitbucket: {
            edition: value.BITBUCKET_EDITION,
            url: bitbucketUrl,
            apiUrl: stripSlash(value.BITBUCKET_API_URL ?? (datacenter ? `${bitbucketUrl}/rest/api/1.0` : 'https://api.bitbucket.org/2.0')),
            clientId: value.BITBUCKET_CLIENT_ID ?? null,
            clientSecret: value.BITBUCKET_CLIENT_SECRET ?? null
        }
    };
}

function stripSlash(value: string): string {
    return value.replace(/\/+$/, '');
}
