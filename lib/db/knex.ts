import * as Fs from 'node:fs';
import * as Path from 'node:path';
import { inspect } from 'node:util';

import knexFactory, { type Knex } from 'knex';

import { logLine } from '../log-line';

export type DatabaseConfig =
    | { client: 'sqlite'; filename: string }
    | { client: 'postgres'; connectionString: string; searchPath?: string };

// SQLite: WAL so readers never wait for the writer, synchronous=FULL so an acknowledged commit survives a power
// loss, foreign keys on, and a busy timeout for the rare moment a CLI command writes beside the server.
export const SQLITE_PRAGMAS = ['journal_mode = WAL', 'synchronous = FULL', 'foreign_keys = ON', 'busy_timeout = 5000'];

/**
 * The database holds password hashes and sealed secrets: its folder is created 0700 and its file 0600 before SQLite
 * opens it (SQLite gives the -wal and -shm files the database file's mode); files left looser by an earlier run are
 * narrowed to 0600.
 */
function ownerOnly(filename: string): void {
    Fs.mkdirSync(Path.dirname(filename), { recursive: true, mode: 0o700 });
    Fs.closeSync(Fs.openSync(filename, 'a', 0o600));
    for (const file of [filename, `${filename}-wal`, `${filename}-shm`]) {
        if (Fs.existsSync(file) && Fs.statSync(file).mode & 0o077) {
            Fs.chmodSync(file, 0o600);
        }
    }
}

/**
 * What knex says of itself (a pooled connection the database ended, a deprecation) as JSON lines of the server's log,
 * `{"time","level","source":"database","message"}`, instead of knex's own console output: one log stream, in one
 * shape, with credential-shaped text redacted like every other line.
 */
export function databaseLog(write: (line: string) => void): Knex.Config['log'] {
    const line = (level: 'warn' | 'error') => (message: unknown) => {
        const text = typeof message === 'string' ? message : inspect(message, { depth: 3 });
        write(logLine({ level, source: 'database', message: text }));
    };
    return { warn: line('warn'), error: line('error'), deprecate: line('warn') };
}

/** A knex instance on the configured database; `log` receives knex's own warnings as log lines (databaseLog), else knex prints them. */
export function createKnex(config: DatabaseConfig, log?: (line: string) => void): Knex {
    const logging = log ? { log: databaseLog(log) } : {};
    if (config.client === 'sqlite') {
        if (config.filename !== ':memory:') {
            ownerOnly(config.filename);
        }

        return knexFactory({
            client: 'better-sqlite3',
            connection: { filename: config.filename },
            useNullAsDefault: true,
            acquireConnectionTimeout: 10_000,
            ...logging,
            pool: {
                min: 1,
                max: 1,
                afterCreate(connection: { pragma: (sql: string) => unknown }, done: (err: Error | null, connection: unknown) => void) {
                    for (const pragma of SQLITE_PRAGMAS) {
                        connection.pragma(pragma);
                    }

                    done(null, connection);
                }
            }
        });
    }

    return knexFactory({
        client: 'pg',
        connection: { connectionString: config.connectionString },
        ...(config.searchPath ? { searchPath: [config.searchPath] } : {}),
        pool: { min: 0, max: 10 },
        acquireConnectionTimeout: 10_000,
        ...logging
    });
}

const clientConfig = (knex: Knex): Knex.Config => (knex.client as { config: Knex.Config }).config;

/** A PostgreSQL connection string naming another database on the same server, as the same role. */
export function otherDatabase(connectionString: string, name: string): string {
    const url = new URL(connectionString);
    url.pathname = `/${name}`;
    return url.toString();
}

export function dialect(knex: Knex): 'sqlite' | 'postgres' {
    return clientConfig(knex).client === 'pg' ? 'postgres' : 'sqlite';
}

/** The SQLite file behind a knex instance, or null for PostgreSQL and in-memory databases. */
export function sqliteFilename(knex: Knex): string | null {
    if (dialect(knex) !== 'sqlite') {
        return null;
    }

    const filename = (clientConfig(knex).connection as { filename?: string } | undefined)?.filename;
    return filename && filename !== ':memory:' ? filename : null;
}

/** Where knex connects on PostgreSQL, for connections of one's own beside its pool (fast-reader.ts). */
export function postgresSettings(knex: Knex): { connectionString: string; searchPath: string[] } {
    const config = clientConfig(knex) as { connection?: { connectionString?: string }; searchPath?: string | string[] };
    const connectionString = config.connection?.connectionString;
    if (!connectionString) {
        throw new Error('The database reader needs a PostgreSQL connection string');
    }

    return { connectionString, searchPath: typeof config.searchPath === 'string' ? [config.searchPath] : config.searchPath ?? [] };
}

export function parseDatabaseUrl(url: string | undefined, dataDir: string): DatabaseConfig {
    if (!url) {
        return { client: 'sqlite', filename: Path.join(dataDir, 'hostless.sqlite') };
    }

    if (/^postgres(ql)?:\/\//.test(url)) {
        return { client: 'postgres', connectionString: url };
    }

    if (url.startsWith('sqlite:')) {
        return { client: 'sqlite', filename: url.slice('sqlite:'.length) };
    }

    throw new Error(`DATABASE_URL must start with postgres:// or sqlite: (got a value starting with "${url.slice(0, 11)}")`);
}
