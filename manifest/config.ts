import * as Crypto from 'node:crypto';
import * as Fs from 'node:fs';
import * as Path from 'node:path';

import Joi from 'joi';

import { parseDatabaseUrl, type DatabaseConfig } from '../lib/db/knex';
import { idPattern } from '../lib/ids';
import { sitesDomainProblem } from '../lib/edge/hosts';
import { DEFAULT_PRICE_LIST, PLAN_NAMES, type PriceList } from '../lib/plans';
import { ACTIONS } from '../lib/mcp/platform-tools';
import { DEPLOY_GROUP } from '../lib/mcp/deploy-tool';
import { CONTEXT_GROUP, DEVELOPER_GROUP, DIAGNOSTIC_TOOLS } from '../lib/mcp/diagnostic-tools';
import { redirectUriProblem } from '../lib/oauth/redirect-uri';
import { READONLY } from '../lib/mcp/selection';
import { DEFAULT_VM_CATALOGUE, vmCatalogueSchema, type VmCatalogue } from '../lib/vm/catalogue';
import { ConfigError, databasesSettings, runtimeSettings, stripSlash, gitHostSettings, slackHosts, type DatabasesConfig, type GitHubConfig, type GitLabConfig, type BitbucketConfig, type SlackConfig, type RuntimeConfig, paymentsSettings, type PaymentsConfig } from './config-sections';
import { PLATFORM_TOOL_KINDS } from './routes/mcp-tools';
import { proxyTrust } from '../lib/client-address';
import { clientSettings, type Env } from './env';
import { RATE_RULE_PATTERN, rateLimitSettings, type RateLimitsConfig } from './rate-limits';
import { testDataSettings } from './test-data-config';
import { CONFIG_HINTS as hints } from './config-hints';
import type { TestDataConfig } from '../lib/test-data/gates';

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
    mcpProjectId?: string | null;                               // MCP_PROJECT_ID: every tool call reaches this project only
    mcpAllowedOrigins: string[];
    mcpAdminToolsEnabled?: boolean;                             // MCP_ADMIN_TOOLS_ENABLED, on both processes (default off)
    mcpDeveloperToolsEnabled?: boolean;                         // MCP_DEVELOPER_TOOLS_ENABLED, on both processes (default off)
    mcpContextToolsEnabled?: boolean;                           // MCP_CONTEXT_TOOLS_ENABLED, on both processes (default off)
    trustedProxies: string[];                                   // whose X-Forwarded-For is believed (lib/client-address.ts)
    heapGrowingPercent?: number;                                // HEAP_GROWING_PERCENT: applied by the entry points (lib/heap.ts)
    testData?: TestDataConfig;                                  // the development-only test-data tools (docs/test-data.md)
}

export interface Config extends McpConfig {
    diagnosticsTlsPort?: number;                                // tests only: the port domains_diagnose's TLS probe connects to (443)
    port: number;
    dataDir: string;
    database: DatabaseConfig;
    redisUrl: string | null;
    redisPrefix?: string;                                       // REDIS_PREFIX: the prefix of every Redis key (queues, counters)
    sessionSecret: string;
    encryptionKey: string;
    signupEnabled: boolean;
    passwordCost: number;
    jobs: { mode: 'all' | 'api' | 'worker'; concurrency: number; leaseMs?: number };
    securityEventRetentionDays: number;
    logRetentionDays: number;                                   // LOG_RETENTION_DAYS: log lines and cron runs
    outbound: { allowlist: string[] };
    github: GitHubConfig;
    gitlab: GitLabConfig;
    bitbucket: BitbucketConfig;
    slack: SlackConfig;
    runtime: RuntimeConfig;
    prices: PriceList;
    dnsServers: string[];
    reviewAppHours: number;
    oauth: OAuthConfig;
    notifications: { smtpUrl: string | null; from: string; retentionDays: number };
    sites: { domain: string; flushMs: number };                // the edge: tenants' hosts are `<name>.<domain>`
    databases: DatabasesConfig;
    vms: { driver: 'records'; catalogue: VmCatalogue };
    apiKeys: { maxLifetimeDays: number | null };                // null: keys may live for ever
    secretScanning: { keysUrl: string };                        // the leak reporter's public keys
    payments: PaymentsConfig;
    rateLimits?: RateLimitsConfig;                              // unset (tests): no rate limit
    /** Set by embedders and tests only, not read from the environment: the dashboard's live tail limits. */
    dashboard?: { liveTail?: { pollMs?: number; maxMs?: number; perSession?: number } };
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
const toolNames = [READONLY, ...toolGroups, ...toolGroups.flatMap((group) => ACTIONS.map((action) => `${group}_${action}`)), DEPLOY_GROUP, 'deployments_trigger', DEVELOPER_GROUP, CONTEXT_GROUP, ...DIAGNOSTIC_TOOLS.map((tool) => tool.name)];
const rateRule = Joi.string().pattern(RATE_RULE_PATTERN, 'requests/seconds');
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
    REDIS_PREFIX: Joi.string().pattern(/^[\w.-]{1,64}$/, 'prefix').default('hostless'),
    RATE_LIMIT_CREDENTIAL: rateRule.default('600/60'),
    RATE_LIMIT_SIGN_IN: rateRule.default('30/900'),
    RATE_LIMIT_SIGN_UP: rateRule.default('10/3600'),
    SESSION_SECRET: secret,
    ENCRYPTION_KEY: secret,
    SIGNUP_ENABLED: Joi.boolean().truthy('1').falsy('0').default(true),
    PASSWORD_HASH_COST: Joi.number().integer().valid(1024, 2048, 4096, 8192, 16384, 32768, 65536).default(16384),
    JOBS_MODE: Joi.string().valid('all', 'api', 'worker').default('all'),
    JOB_CONCURRENCY: Joi.number().integer().min(1).max(64).default(4),
    SECURITY_EVENT_RETENTION_DAYS: Joi.number().integer().min(1).max(3650).default(365),
    LOG_RETENTION_DAYS: Joi.number().integer().min(1).max(3650).default(30),
    HEAP_GROWING_PERCENT: Joi.alternatives().try(Joi.number().valid(0), Joi.number().integer().min(10).max(300)).default(50),
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
    RUNTIME_DRIVER: Joi.string().valid('records', 'process'),
    RUNTIME_DIR: Joi.string(),
    RUNTIME_ALLOW_FILE_GIT: Joi.boolean().truthy('1').falsy('0').default(false),
    RUNTIME_SAME_USER: Joi.boolean().truthy('1').falsy('0').default(false),
    RUNTIME_UID_RANGE: Joi.string().pattern(/^\d{3,9}-\d{3,9}$/, 'uid range').default('20000-29999'),
    RUNTIME_HEALTH_PATH: Joi.string().pattern(/^\/[\x21-\x7e]{0,200}$/, 'path').default('/'),
    RUNTIME_HEALTH_TIMEOUT_MS: Joi.number().integer().min(500).max(600_000).default(30_000),
    RUNTIME_BUILD_TIMEOUT_MS: Joi.number().integer().min(1000).max(7_200_000).default(900_000),
    RUNTIME_METRICS_RETENTION_DAYS: Joi.number().integer().min(1).max(365).default(14),
    RECORDS_STEP_DELAY_MS: Joi.number().integer().min(0).max(60_000).default(0),
    PRICE_LIST_FILE: Joi.string(),
    DNS_SERVERS: Joi.string().allow('').default(''),
    REVIEW_APP_HOURS: Joi.number().integer().min(1).max(720).default(72),
    MCP_READ_ONLY: Joi.boolean().truthy('1').falsy('0').default(false),
    MCP_ADMIN_TOOLS_ENABLED: Joi.boolean().truthy('1').falsy('0').default(false),
    MCP_DEVELOPER_TOOLS_ENABLED: Joi.boolean().truthy('1').falsy('0').default(false),
    MCP_CONTEXT_TOOLS_ENABLED: Joi.boolean().truthy('1').falsy('0').default(false),
    MCP_TEST_DATA_ENABLED: Joi.boolean().truthy('1').falsy('0').default(false),
    MCP_TEST_DATA_USER_IDS: Joi.string().allow(''),
    TEST_DATA_ENVIRONMENTS: Joi.string().allow(''),
    TEST_DATA_DASHBOARD_ENABLED: Joi.boolean().truthy('1').falsy('0').default(false),
    MCP_ALLOWED_TOOLS: Joi.string().allow(''),
    MCP_PROJECT_ID: Joi.string().pattern(idPattern('prj')).allow(''),
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
    VM_CATALOGUE_FILE: Joi.string(),
    TRUSTED_PROXIES: Joi.string().allow(''),
    API_KEY_MAX_LIFETIME_DAYS: Joi.number().integer().min(1).max(36500),
    SECRET_SCANNING_KEYS_URL: url.default('https://api.github.com/meta/public_keys/secret_scanning'),
    STRIPE_API_URL: url.default('https://api.stripe.com'),
    STRIPE_SECRET_KEY: Joi.string().pattern(/^(sk|rk)_[\w]{8,}$/),
    STRIPE_WEBHOOK_SECRET: Joi.string().pattern(/^whsec_[\w]{8,}$/),
    PAYSTACK_API_URL: url.default('https://api.paystack.co'),
    PAYSTACK_SECRET_KEY: Joi.string().pattern(/^sk_[\w]{8,}$/)
}).unknown(true);

const money = Joi.number().min(0).max(1_000_000).required();
const byPlan = Joi.object(Object.fromEntries(PLAN_NAMES.map((plan) => [plan, money]))).required();
const priceListSchema = Joi.object({
    currency: Joi.string().pattern(/^[A-Z]{3}$/).required(),
    instancePerMonth: byPlan,
    databasePerMonth: byPlan,
    cronJobPerMonth: money,
    customDomainPerMonth: money,
    databaseStoragePerGiBMonth: Joi.number().min(0).max(1_000_000),
    bandwidthPerGiB: Joi.number().min(0).max(1_000_000)
});

const redirectPrefix = Joi.string().custom((value: string, helpers) => redirectUriProblem(value) ? helpers.error('any.invalid') : value);
const proxy = Joi.string().custom((value: string) => {
    proxyTrust([value]);                                        // throws on an entry that is no address, range or name
    return value;
});
const lists = Joi.object({
    TRUSTED_PROXIES: list(proxy),
    MCP_ALLOWED_TOOLS: list(Joi.string().valid(...toolNames)),
    MCP_ALLOWED_ORIGINS: list(origin),
    OAUTH_ASSISTANT_REDIRECT_PREFIXES: list(redirectPrefix)
});

export { ConfigError };

function validated(env: NodeJS.ProcessEnv): Env {
    const split = (name: string) => {
        const items = env[name]?.split(',').map((item) => item.trim()).filter(Boolean);
        return items?.length ? items : undefined;                   // set but empty: the default
    };
    const result = schema.validate(env, { abortEarly: true, convert: true });
    const value = result.value as Env;
    const error = result.error;
    const { error: listError } = lists.validate({
        TRUSTED_PROXIES: split('TRUSTED_PROXIES'),
        MCP_ALLOWED_TOOLS: split('MCP_ALLOWED_TOOLS'), MCP_ALLOWED_ORIGINS: split('MCP_ALLOWED_ORIGINS'), OAUTH_ASSISTANT_REDIRECT_PREFIXES: split('OAUTH_ASSISTANT_REDIRECT_PREFIXES')
    });
    const unpaired = (['GITHUB', 'GITLAB', 'BITBUCKET'] as const).find((host) => !error && !clientSettings(value, host).id !== !clientSettings(value, host).secret);
    if (unpaired) {
        const missing = clientSettings(value, unpaired).id ? `${unpaired}_CLIENT_SECRET` : `${unpaired}_CLIENT_ID`;
        throw new ConfigError(`${missing} is not set: set it to ${hints[missing]}, or unset both to leave the host unconnected.`);
    }

    const problem = error ?? listError;
    if (problem) {
        const name = String(problem.details[0]?.path[0] ?? 'a setting');
        throw new ConfigError(`${name} is not valid: set it to ${hints[name] ?? 'a valid value'}, or leave it unset for the default.`);
    }

    const prefixes = env.OAUTH_ASSISTANT_REDIRECT_PREFIXES === undefined ? DEFAULT_ASSISTANT_REDIRECT_PREFIXES : split('OAUTH_ASSISTANT_REDIRECT_PREFIXES') ?? [];
    return { ...value, TRUSTED_PROXIES: split('TRUSTED_PROXIES') ?? [], MCP_ALLOWED_TOOLS: split('MCP_ALLOWED_TOOLS'), MCP_ALLOWED_ORIGINS: split('MCP_ALLOWED_ORIGINS'), OAUTH_ASSISTANT_REDIRECT_PREFIXES: prefixes };
}

function mcpSettings(value: Env): McpConfig {
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
        mcpAdminToolsEnabled: value.MCP_ADMIN_TOOLS_ENABLED,
        mcpDeveloperToolsEnabled: value.MCP_DEVELOPER_TOOLS_ENABLED,
        mcpContextToolsEnabled: value.MCP_CONTEXT_TOOLS_ENABLED,
        mcpAllowedTools: value.MCP_ALLOWED_TOOLS ?? null,
        mcpProjectId: value.MCP_PROJECT_ID || null,
        mcpAllowedOrigins: value.MCP_ALLOWED_ORIGINS ?? [...new Set([new URL(mcpPublicUrl).origin, new URL(publicUrl).origin])],
        trustedProxies: value.TRUSTED_PROXIES,
        heapGrowingPercent: value.HEAP_GROWING_PERCENT,
        testData: testDataSettings(value)
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
        redisPrefix: value.REDIS_PREFIX,
        rateLimits: rateLimitSettings(value),
        ...secrets,
        signupEnabled: value.SIGNUP_ENABLED,
        passwordCost: value.PASSWORD_HASH_COST,
        jobs: { mode: value.JOBS_MODE, concurrency: value.JOB_CONCURRENCY, ...(value.JOB_LEASE_MS ? { leaseMs: value.JOB_LEASE_MS } : {}) },
        securityEventRetentionDays: value.SECURITY_EVENT_RETENTION_DAYS,
        logRetentionDays: value.LOG_RETENTION_DAYS,
        outbound: { allowlist: value.OUTBOUND_ALLOWLIST.split(',').map((entry) => entry.trim()).filter(Boolean) },
        ...gitHostSettings(value),
        slack: { webhookHosts: slackHosts(value.SLACK_WEBHOOK_HOSTS), allowHttpLoopback: false },
        runtime: runtimeSettings(value, mcp, dataDir),
        prices: value.PRICE_LIST_FILE ? readJson<PriceList>(value.PRICE_LIST_FILE, 'PRICE_LIST_FILE', 'price list', priceListSchema) : DEFAULT_PRICE_LIST,
        dnsServers: value.DNS_SERVERS.split(',').map((entry) => entry.trim()).filter(Boolean),
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
        vms: { driver: value.VM_DRIVER, catalogue: value.VM_CATALOGUE_FILE ? readJson<VmCatalogue>(value.VM_CATALOGUE_FILE, 'VM_CATALOGUE_FILE', 'VM catalogue', vmCatalogueSchema) : DEFAULT_VM_CATALOGUE },
        apiKeys: { maxLifetimeDays: value.API_KEY_MAX_LIFETIME_DAYS ?? null },
        secretScanning: { keysUrl: value.SECRET_SCANNING_KEYS_URL },
        payments: paymentsSettings(value)
    };
}

function readJson<T>(file: string, name: string, what: string, shape: Joi.ObjectSchema): T {
    let raw: unknown;
    try {
        raw = JSON.parse(Fs.readFileSync(file, 'utf8'));
    }
    catch (err) {
        throw new ConfigError(`${name} could not be read as JSON (${(err as Error).message}): set it to ${hints[name]}.`);
    }

    const result = shape.validate(raw);
    if (result.error) {
        throw new ConfigError(`${name} is not a valid ${what}: ${result.error.details[0].message}.`);
    }

    return result.value as T;
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

function givenSecrets(value: Env) {
    for (const name of ['SESSION_SECRET', 'ENCRYPTION_KEY'] as const) {
        if (!value[name]) {
            throw new ConfigError(`${name} is not set: in production (NODE_ENV=production) every secret must be given; set it to ${hints[name]}.`);
        }
    }

    return { sessionSecret: value.SESSION_SECRET!, encryptionKey: value.ENCRYPTION_KEY! };
}

// On a laptop, secrets are generated once and kept in the data folder (created 0700; the file 0600), so restarts keep
// sessions valid.
function generatedSecrets(value: Env, dataDir: string) {
    const file = Path.join(dataDir, 'secrets.json');
    let stored: { sessionSecret?: string; encryptionKey?: string } = {};
    if (Fs.existsSync(file)) {
        stored = JSON.parse(Fs.readFileSync(file, 'utf8')) as typeof stored;
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

export type { DatabasesConfig, GitHubConfig, SlackConfig };
