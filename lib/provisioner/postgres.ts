import * as Fs from 'node:fs';
import * as Os from 'node:os';
import * as Path from 'node:path';

import pg from 'pg';

import { randomBase62 } from '../base62';
import { runTool } from './commands';
import {
    ImportFailure, NotOursError, type DatabaseCredentials, type DatabaseProvisioner, type DatabaseTarget, type ImportSource, type ProvisionerContext
} from './driver';
import { scramVerifier } from './scram';

// The provisioner that makes real databases on a PostgreSQL server (DATABASE_PROVISIONER_URL names an account with
// CREATEROLE and CREATEDB, or a superuser). Each database is a role with a SCRAM password and a database it owns,
// both named `hl_<id>` from the platform's id, so no user input ever reaches an identifier; both carry a marker
// comment, checked before every change, so it never touches what it did not create. Pausing refuses connections
// and ends the open ones. An import copies the source with pg_dump into a fresh database restored as the database's
// own role (`--no-owner --no-acl`), then swaps it in: a failed import leaves the database as it was.
export interface PostgresProvisionerOptions {
    url: string;                                                // the administrative account
    publicHost?: string | null;                                 // where clients reach the server (default: the URL's host)
    publicPort?: number | null;
    binDir?: string | null;                                     // where pg_dump and pg_restore are (default: PATH)
    importTimeoutMs?: number;
    path?: string;                                              // PATH for the tools (the platform's own)
}

interface Found {
    name: string;
    marker: string | null;
    owner?: string;
}

const PHYSICAL = /^hl_[a-z0-9_]{1,56}$/;
const LOG_LINES = 2000;
// The tools' progress worth a log line: each table copied and each object restored, and every warning and error.
const PROGRESS = /dumping contents of table|processing data for table|creating [A-Z]|error|warning|FATAL/i;

export class PostgresProvisioner implements DatabaseProvisioner {
    readonly name = 'postgres' as const;
    private readonly pool: pg.Pool;
    private readonly server: { host: string; port: number };
    private readonly publicAddress: { host: string; port: number };
    private superuser: Promise<boolean> | null = null;

    constructor(private readonly options: PostgresProvisionerOptions) {
        const url = new URL(options.url);
        this.server = { host: url.hostname.replace(/^\[(.*)\]$/, '$1') || 'localhost', port: Number(url.port || 5432) };
        this.publicAddress = { host: options.publicHost ?? this.server.host, port: options.publicPort ?? this.server.port };
        this.pool = new pg.Pool({ connectionString: options.url, max: 3, idleTimeoutMillis: 10_000, connectionTimeoutMillis: 10_000, application_name: 'hostless-provisioner' });
        this.pool.on('error', () => { });                      // an idle client's lost connection: the next query reconnects
    }

    async versions(): Promise<string[]> {
        const { rows } = await this.pool.query<{ version: string }>('SELECT current_setting(\'server_version_num\') AS version');
        return [String(Math.floor(Number(rows[0]?.version) / 10000))];
    }

    async create(target: DatabaseTarget): Promise<DatabaseCredentials> {
        const name = physical(target);
        const password = randomBase62(32);
        await this.admin(async (client) => {
            const role = await this.role(client, name);
            this.assertOurs(role, target, 'role');
            const settings = `LOGIN PASSWORD ${client.escapeLiteral(scramVerifier(password))} CONNECTION LIMIT ${limit(target)}`;
            if (role) {
                await client.query(`ALTER ROLE ${ident(name)} ${settings}`);
            }
            else {
                // The role and its marker in one transaction: a role of this name without the marker is never ours.
                await client.query('BEGIN');
                await client.query(`CREATE ROLE ${ident(name)} ${settings}`);
                await client.query(`COMMENT ON ROLE ${ident(name)} IS ${client.escapeLiteral(marker(target))}`);
                await client.query('COMMIT');
            }

            if (!await this.isSuperuser(client)) {
                await client.query(`GRANT ${ident(name)} TO CURRENT_USER`);   // a CREATEROLE account acts on its databases through the role
            }

            await this.ensureDatabase(client, target, name, marker(target));
        });
        return { host: this.publicAddress.host, port: this.publicAddress.port, database: name, username: name, password };
    }

    async pause(target: DatabaseTarget): Promise<void> {
        const name = physical(target);
        await this.admin(async (client) => {
            await this.assertBoth(client, target, name);
            await client.query(`ALTER DATABASE ${ident(name)} ALLOW_CONNECTIONS false`);
            await client.query(`ALTER ROLE ${ident(name)} NOLOGIN`);
            await this.terminate(client, name);
        });
    }

    async unpause(target: DatabaseTarget): Promise<void> {
        const name = physical(target);
        await this.admin(async (client) => {
            await this.assertBoth(client, target, name);
            await client.query(`ALTER ROLE ${ident(name)} LOGIN`);
            await client.query(`ALTER DATABASE ${ident(name)} ALLOW_CONNECTIONS true`);
        });
    }

    async resize(target: DatabaseTarget): Promise<void> {
        const name = physical(target);
        await this.admin(async (client) => {
            await this.assertBoth(client, target, name);
            await client.query(`ALTER ROLE ${ident(name)} CONNECTION LIMIT ${limit(target)}`);
            await client.query(`ALTER DATABASE ${ident(name)} CONNECTION LIMIT ${limit(target)}`);
        });
    }

    async drop(target: DatabaseTarget): Promise<void> {
        const name = physical(target);
        await this.admin(async (client) => {
            const role = await this.role(client, name);
            this.assertOurs(role, target, 'role');
            for (const [database, mark] of [[name, marker(target)], [staging(name), marker(target, 'import')], [retired(name), marker(target)]] as const) {
                const found = await this.database(client, database);
                if (found) {
                    this.assertOursDatabase(found, mark, name, database);
                    await client.query(`DROP DATABASE ${ident(database)} WITH (FORCE)`);
                }
            }

            if (role) {
                await client.query(`DROP ROLE ${ident(name)}`);
            }
        });
    }

    async size(target: DatabaseTarget): Promise<number | null> {
        const { rows } = await this.pool.query<{ bytes: string | null }>(
            'SELECT pg_database_size(d.oid)::text AS bytes FROM pg_database d WHERE d.datname = $1 AND shobj_description(d.oid, \'pg_database\') = $2', [physical(target), marker(target)]);
        return rows[0]?.bytes ? Number(rows[0].bytes) : null;
    }

    async import(target: DatabaseTarget, credentials: DatabaseCredentials | null, source: ImportSource, context: ProvisionerContext): Promise<void> {
        if (!credentials) {
            throw new Error('A database made by another provisioner cannot be imported into by this one');
        }

        const name = physical(target);
        const copy = staging(name);
        const timeout = AbortSignal.timeout(this.options.importTimeoutMs ?? 3600_000);
        const signal = AbortSignal.any([context.signal, timeout]);
        const dir = Fs.mkdtempSync(Path.join(Os.tmpdir(), 'hostless-import-'));
        try {
            await this.admin(async (client) => {
                await this.recoverSwap(client, target, name);
                await this.assertBoth(client, target, name);
                const leftover = await this.database(client, copy);
                if (leftover) {
                    this.assertOursDatabase(leftover, marker(target, 'import'), name, copy);
                    await context.log('info', 'Removing the copy an interrupted import left behind');
                    await client.query(`DROP DATABASE ${ident(copy)} WITH (FORCE)`);
                }

                await this.ensureDatabase(client, target, copy, marker(target, 'import'));
            });

            const dump = Path.join(dir, 'dump');
            await context.log('info', `Copying from ${source.host}:${source.port}/${source.database} as ${source.user}`);
            await this.tool('pg_dump', ['--format=custom', '--no-owner', '--no-acl', '--verbose', `--file=${dump}`], {
                ...this.connection(dir, 'source', { address: source.address, host: source.host, port: source.port, database: source.database, user: source.user, password: source.password }),
                ...(source.sslmode ? { PGSSLMODE: source.sslmode } : {})
            }, signal, context, 'The source could not be read');
            await context.log('info', `Read ${Fs.statSync(dump).size} bytes from the source; restoring as ${name}`);
            await this.tool('pg_restore', ['--no-owner', '--no-acl', '--exit-on-error', '--verbose', `--dbname=${copy}`, dump],
                this.connection(dir, 'target', { address: null, host: this.server.host, port: this.server.port, database: copy, user: credentials.username, password: credentials.password }),
                signal, context, 'The copy could not be restored');

            signal.throwIfAborted();
            await this.admin((client) => this.swap(client, target, name));
            await context.log('info', 'The copy replaced the database\'s contents');
        }
        catch (err) {
            await this.admin(async (client) => {
                await this.recoverSwap(client, target, name);
                const left = await this.database(client, copy);
                if (left?.marker === marker(target, 'import')) {
                    await client.query(`DROP DATABASE ${ident(copy)} WITH (FORCE)`);
                }
            }).catch(() => { });                                // the next import (or the drop) removes it
            if (timeout.aborted && !context.signal.aborted) {
                throw new ImportFailure('The import took longer than the time allowed and was stopped');
            }

            throw err;
        }
        finally {
            Fs.rmSync(dir, { recursive: true, force: true });
        }
    }

    async close(): Promise<void> {
        await this.pool.end();
    }

    private async admin<T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
        const client = await this.pool.connect();
        try {
            return await work(client);
        }
        catch (err) {
            await client.query('ROLLBACK').catch(() => { });
            throw err;
        }
        finally {
            client.release();
        }
    }

    private isSuperuser(client: pg.PoolClient): Promise<boolean> {
        this.superuser ??= client.query<{ super: boolean }>('SELECT rolsuper AS super FROM pg_roles WHERE rolname = current_user').then(({ rows }) => !!rows[0]?.super);
        return this.superuser;
    }

    private async role(client: pg.PoolClient, name: string): Promise<Found | null> {
        const { rows } = await client.query<{ marker: string | null }>('SELECT shobj_description(oid, \'pg_authid\') AS marker FROM pg_roles WHERE rolname = $1', [name]);
        return rows[0] ? { name, marker: rows[0].marker } : null;
    }

    private async database(client: pg.PoolClient, name: string): Promise<Found | null> {
        const { rows } = await client.query<{ marker: string | null; owner: string }>(
            'SELECT shobj_description(oid, \'pg_database\') AS marker, pg_get_userbyid(datdba) AS owner FROM pg_database WHERE datname = $1', [name]);
        return rows[0] ? { name, marker: rows[0].marker, owner: rows[0].owner } : null;
    }

    private assertOurs(found: Found | null, target: DatabaseTarget, what: string): void {
        if (found && found.marker !== marker(target)) {
            throw new NotOursError(`The server has a ${what} ${found.name} that this platform did not create: it was left alone`);
        }
    }

    /** A database is ours when it carries the marker, or (made, but its marker not yet written) is owned by our role. */
    private assertOursDatabase(found: Found, mark: string, role: string, name: string): void {
        if (found.marker !== mark && !(found.marker === null && found.owner === role)) {
            throw new NotOursError(`The server has a database ${name} that this platform did not create: it was left alone`);
        }
    }

    private async assertBoth(client: pg.PoolClient, target: DatabaseTarget, name: string): Promise<void> {
        const role = await this.role(client, name);
        const database = await this.database(client, name);
        if (!role || !database) {
            throw new Error(`The server no longer has the ${role ? 'database' : 'role'} ${name}`);
        }

        this.assertOurs(role, target, 'role');
        this.assertOursDatabase(database, marker(target), name, name);
    }

    /** Creates a database owned by the role, reached by no one else (CREATE DATABASE cannot run in a transaction). */
    private async ensureDatabase(client: pg.PoolClient, target: DatabaseTarget, database: string, mark: string): Promise<void> {
        const role = physical(target);
        const found = await this.database(client, database);
        if (found) {
            this.assertOursDatabase(found, mark, role, database);
        }
        else {
            await client.query(`CREATE DATABASE ${ident(database)} OWNER ${ident(role)} CONNECTION LIMIT ${limit(target)}`);
        }

        await client.query(`COMMENT ON DATABASE ${ident(database)} IS ${client.escapeLiteral(mark)}`);
        await client.query(`REVOKE ALL ON DATABASE ${ident(database)} FROM PUBLIC`);
    }

    /**
     * Puts the restored copy in the database's place: connections are refused and ended for the moment of the renames,
     * which (with the marker) commit together, so the name always holds one whole database; the old one is dropped after.
     */
    private async swap(client: pg.PoolClient, target: DatabaseTarget, name: string): Promise<void> {
        await this.assertBoth(client, target, name);
        const old = retired(name);
        await client.query(`ALTER DATABASE ${ident(name)} ALLOW_CONNECTIONS false`);
        await this.terminate(client, name);
        await client.query('BEGIN');
        await client.query(`ALTER DATABASE ${ident(name)} RENAME TO ${ident(old)}`);
        await client.query(`ALTER DATABASE ${ident(staging(name))} RENAME TO ${ident(name)}`);
        await client.query(`COMMENT ON DATABASE ${ident(name)} IS ${client.escapeLiteral(marker(target))}`);
        await client.query('COMMIT');
        await client.query(`DROP DATABASE ${ident(old)} WITH (FORCE)`);
    }

    /**
     * What an import stopped in its swap left: the contents it replaced (dropped), or connections still refused to
     * the database (an import runs on an available database only, so they are allowed again).
     */
    private async recoverSwap(client: pg.PoolClient, target: DatabaseTarget, name: string): Promise<void> {
        const old = await this.database(client, retired(name));
        if (old) {
            this.assertOursDatabase(old, marker(target), name, retired(name));
            await client.query(`DROP DATABASE ${ident(retired(name))} WITH (FORCE)`);
        }

        const current = await this.database(client, name);
        if (current?.marker === marker(target)) {
            await client.query(`ALTER DATABASE ${ident(name)} ALLOW_CONNECTIONS true`);
        }
    }

    private async terminate(client: pg.PoolClient, name: string): Promise<void> {
        await client.query('SELECT pg_terminate_backend(pid, 5000) FROM pg_stat_activity WHERE (datname = $1 OR usename = $1) AND pid <> pg_backend_pid()', [name]);
    }

    /** Connection settings for a tool, the password in a password file of a private folder; `address` skips DNS. */
    private connection(dir: string, label: string, to: { address: string | null; host: string; port: number; database: string; user: string; password: string }): Record<string, string> {
        const passfile = Path.join(dir, `${label}.pgpass`);
        const escape = (value: string) => value.replace(/[\\:]/g, (char) => `\\${char}`);
        Fs.writeFileSync(passfile, `${escape(to.host)}:${to.port}:${escape(to.database)}:${escape(to.user)}:${escape(to.password)}\n`, { mode: 0o600 });
        return {
            PATH: this.options.path ?? '/usr/local/bin:/usr/bin:/bin',
            HOME: dir, PGSYSCONFDIR: dir, PGSERVICEFILE: Path.join(dir, 'none'),
            PGHOST: to.host, ...(to.address ? { PGHOSTADDR: to.address } : {}), PGPORT: String(to.port), PGDATABASE: to.database, PGUSER: to.user,
            PGPASSFILE: passfile, PGCONNECT_TIMEOUT: '10', PGAPPNAME: 'hostless-import'
        };
    }

    private async tool(binary: 'pg_dump' | 'pg_restore', args: string[], env: Record<string, string>, signal: AbortSignal, context: ProvisionerContext, failure: string): Promise<void> {
        let written = 0;
        let queue = Promise.resolve();
        const result = await runTool({
            binary: this.options.binDir ? Path.join(this.options.binDir, binary) : binary,
            args, env, signal,
            onLine: (line) => {
                if (PROGRESS.test(line) && ++written <= LOG_LINES) {
                    queue = queue.then(() => context.log(/error|FATAL/.test(line) ? 'error' : 'info', line.trim())).catch(() => { });
                }
            }
        });
        await queue;
        signal.throwIfAborted();
        if (written > LOG_LINES) {
            await context.log('info', `(${written - LOG_LINES} more lines of ${binary} not kept)`);
        }

        if (result.code !== 0) {
            const reason = result.errors.map((line) => line.replace(/^pg_(dump|restore): (error: )?/, '')).join('; ');
            throw new ImportFailure(`${failure}: ${reason || `${binary} ended with ${result.code ?? result.signal}`}`);
        }
    }
}

function physical(target: DatabaseTarget): string {
    if (!PHYSICAL.test(target.physicalName)) {
        throw new Error('A physical name is hl_ followed by lowercase letters, digits and underscores');
    }

    return target.physicalName;
}

const staging = (name: string) => `${name}_import`;
const retired = (name: string) => `${name}_old`;
const marker = (target: DatabaseTarget, part?: string) => `hostless:${target.id}${part ? `:${part}` : ''}`;
const ident = (name: string) => pg.escapeIdentifier(name);
const limit = (target: DatabaseTarget) => Math.max(1, Math.floor(target.connectionLimit));

