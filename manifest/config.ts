import * as Crypto from 'node:crypto';
import * as Fs from 'node:fs';
import * as Path from 'node:path';

import Joi from 'joi';

import { parseDatabaseUrl, type DatabaseConfig } from '../lib/db/knex';
import { ACTIONS } from '../lib/mcp/platform-tools';
import { READONLY } from '../lib/mcp/selection';
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
}

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
    MCP_READ_ONLY: Joi.boolean().truthy('1').falsy('0').default(false),
    MCP_ALLOWED_TOOLS: Joi.string().allow(''),
    MCP_ALLOWED_ORIGINS: Joi.string().allow('')
}).unknown(true);

const lists = Joi.object({
    MCP_ALLOWED_TOOLS: list(Joi.string().valid(...toolNames)),
    MCP_ALLOWED_ORIGINS: list(origin)
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
    MCP_READ_ONLY: 'true or false',
    MCP_ALLOWED_TOOLS: `a comma list of tool names (such as projects_list) and groups (${toolGroups.join(', ')}), optionally with ${READONLY}`,
    MCP_ALLOWED_ORIGINS: 'a comma list of origins such as https://app.example.com,http://localhost:6274, or *'
};

export class ConfigError extends Error { }

function validated(env: NodeJS.ProcessEnv): Record<string, any> {
    const split = (name: string) => {
        const items = env[name]?.split(',').map((item) => item.trim()).filter(Boolean);
        return items?.length ? items : undefined;                   // set but empty: the default
    };
    const { value, error } = schema.validate(env, { abortEarly: true, convert: true });
    const { error: listError } = lists.validate({ MCP_ALLOWED_TOOLS: split('MCP_ALLOWED_TOOLS'), MCP_ALLOWED_ORIGINS: split('MCP_ALLOWED_ORIGINS') });
    const problem = error ?? listError;
    if (problem) {
        const name = String(problem.details[0]?.path[0] ?? 'a setting');
        throw new ConfigError(`${name} is not valid: set it to ${hints[name] ?? 'a valid value'}, or leave it unset for the default.`);
    }

    return { ...value, MCP_ALLOWED_TOOLS: split('MCP_ALLOWED_TOOLS'), MCP_ALLOWED_ORIGINS: split('MCP_ALLOWED_ORIGINS') };
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

    return {
        ...mcp,
        port: value.PORT,
        dataDir,
        database: parseDatabaseUrl(value.DATABASE_URL, dataDir),
        redisUrl: value.REDIS_URL ?? null,
        ...secrets,
        signupEnabled: value.SIGNUP_ENABLED,
        passwordCost: value.PASSWORD_HASH_COST
    };
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

// On a laptop, secrets are generated once and kept in the data folder (mode 0600), so restarts keep sessions valid.
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
        Fs.mkdirSync(dataDir, { recursive: true });
        Fs.writeFileSync(file, JSON.stringify({ sessionSecret: stored.sessionSecret ?? secrets.sessionSecret, encryptionKey: stored.encryptionKey ?? secrets.encryptionKey }, null, 2), { mode: 0o600 });
    }

    return secrets;
}

function stripSlash(value: string): string {
    return value.replace(/\/+$/, '');
}
