// A database provisioner makes, changes and removes the databases the platform records, behind one interface:
// `records` keeps state only (and every response says `driver: "records"`); `postgres` (DATABASE_PROVISIONER_URL)
// really creates a role and a database it owns on a PostgreSQL server. Services never know which one they talk to.
export type ProvisionerName = 'records' | 'postgres';
export type ProvisionerLogLevel = 'info' | 'warn' | 'error';

/** One database as the provisioner knows it: the platform's id (its marker) and its physical name, never user input. */
export interface DatabaseTarget {
    id: string;
    physicalName: string;                                       // hl_<id>: the name of its role and of its database
    connectionLimit: number;                                    // the tier's
}

/** A physical name for a platform id: `hl_` and the id in lowercase (unique: the column holding it is). */
export function physicalName(id: string): string {
    return `hl_${id.toLowerCase()}`;
}

/** What a client connects with; `host` and `port` are where clients reach the server (its public address). */
export interface DatabaseCredentials {
    host: string;
    port: number;
    database: string;
    username: string;
    password: string;
}

/** The purpose a database's credentials are sealed under (lib/crypto.ts deriveKey): the databases plugin seals, linked
 * resources' processes open. */
export const CREDENTIALS_KEY_PURPOSE = 'database-credentials';

/** The credentials as one `postgresql://` URL (what `details` shows, and what linked resources get in their environment). */
export function connectionString(credentials: DatabaseCredentials): string {
    const { host, port, database, username, password } = credentials;
    return `postgresql://${encodeURIComponent(username)}:${encodeURIComponent(password)}@${host.includes(':') ? `[${host}]` : host}:${port}/${encodeURIComponent(database)}`;
}

/** An import source whose host passed the outbound destination rules: `address` is the checked address to connect to. */
export interface ImportSource {
    host: string;
    address: string;
    port: number;
    database: string;
    user: string;
    password: string;
    sslmode: string | null;
}

export interface ProvisionerContext {
    log(level: ProvisionerLogLevel, message: string): Promise<void>;
    signal: AbortSignal;
}

/** A failure of the user's request (a source that refuses the password, or cannot be reached), as opposed to the platform's. */
export class ImportFailure extends Error { }

/** The server holds something of the name the platform would use that it did not create: it is left alone. */
export class NotOursError extends Error { }

export interface DatabaseProvisioner {
    readonly name: ProvisionerName;
    /** The PostgreSQL major versions it can make, newest first. */
    versions(): Promise<string[]>;
    /** Makes the role and the database (a retry finishes what an earlier attempt began); null when nothing is made. */
    create(target: DatabaseTarget): Promise<DatabaseCredentials | null>;
    /** Refuses new connections and ends the open ones. */
    pause(target: DatabaseTarget): Promise<void>;
    unpause(target: DatabaseTarget): Promise<void>;
    /** Applies the tier's connection limit. */
    resize(target: DatabaseTarget): Promise<void>;
    /** Drops the database and the role (nothing when they are gone already). */
    drop(target: DatabaseTarget): Promise<void>;
    /** Replaces the database's contents with a copy of the source; on failure the database is as it was. */
    import(target: DatabaseTarget, credentials: DatabaseCredentials | null, source: ImportSource, context: ProvisionerContext): Promise<void>;
    /** The bytes the database occupies, when the provisioner can measure it. */
    size(target: DatabaseTarget): Promise<number | null>;
    close(): Promise<void>;
}
