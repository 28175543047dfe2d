import type { DatabaseCredentials, DatabaseProvisioner, DatabaseTarget, ImportSource, ProvisionerContext } from './driver';

// The provisioner that keeps state only: databases move through their states as recorded, nothing is created on any
// server, no credentials exist (details show `connection: null`) and an import copies nothing (its log says so).
export const RECORDS_VERSIONS = ['17', '16', '15', '14'];

export class RecordsProvisioner implements DatabaseProvisioner {
    readonly name = 'records' as const;

    versions(): Promise<string[]> {
        return Promise.resolve(RECORDS_VERSIONS);
    }

    create(): Promise<DatabaseCredentials | null> {
        return Promise.resolve(null);
    }

    pause(): Promise<void> {
        return Promise.resolve();
    }

    unpause(): Promise<void> {
        return Promise.resolve();
    }

    resize(): Promise<void> {
        return Promise.resolve();
    }

    drop(): Promise<void> {
        return Promise.resolve();
    }

    async import(_target: DatabaseTarget, _credentials: DatabaseCredentials | null, source: ImportSource, context: ProvisionerContext): Promise<void> {
        await context.log('info', `Source ${source.host}:${source.port}/${source.database} accepted`);
        await context.log('warn', 'The records provisioner keeps state only: no data was copied');
    }

    size(): Promise<number | null> {
        return Promise.resolve(null);
    }

    close(): Promise<void> {
        return Promise.resolve();
    }
}
