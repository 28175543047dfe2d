import { connectionString, type DatabaseCredentials } from '../../lib/provisioner/driver';
import { DATABASE_TIERS } from '../../lib/provisioner/tiers';
import type { Database, DatabaseImport } from './models/database';

// The public shapes. A database's body never holds a credential; `details` adds the connection, whose password and
// connection string only those allowed to see secrets get (api-contract.md section 4), and which is null when the
// provisioner made nothing (records).
export function serializeDatabase(database: Database) {
    return {
        id: database.id,
        name: database.name,
        projectId: database.projectId,
        status: database.status,
        engine: database.engine,
        version: database.version,
        tier: database.tier,
        storageGiB: database.storageGib,
        connectionLimit: DATABASE_TIERS[database.tier].connections,
        driver: database.driver,
        error: database.error,
        createdAt: database.createdAt,
        updatedAt: database.updatedAt
    };
}

export function details(database: Database, credentials: DatabaseCredentials | null, reveal: boolean, usedBytes: number | null) {
    const { host, port, database: name, username, password } = credentials ?? {} as Partial<DatabaseCredentials>;
    return {
        ...serializeDatabase(database),
        usedBytes,
        connection: credentials ? {
            host, port, database: name, username,
            password: reveal ? password : null,
            connectionString: reveal ? connectionString(credentials) : null,
            set: true
        } : null
    };
}

export function serializeImport(database: Database, started: DatabaseImport) {
    return {
        id: started.id,
        databaseName: database.name,
        projectId: started.projectId,
        status: started.status,
        driver: started.driver,
        source: started.source,
        error: started.error,
        createdAt: started.createdAt,
        startedAt: started.startedAt,
        finishedAt: started.finishedAt,
        updatedAt: started.updatedAt
    };
}
