import { BaseModel } from '../../../lib/db/model';
import type { PlanName } from '../../../lib/plans';
import type { ProvisionerName } from '../../../lib/provisioner/driver';

export type DatabaseStatus = 'provisioning' | 'available' | 'paused' | 'importing' | 'deleting' | 'failed';
export type ImportStatus = 'queued' | 'running' | 'succeeded' | 'failed';

export class Database extends BaseModel {
    static override tableName = 'databases';

    id!: string;
    name!: string;
    projectId!: string;
    status!: DatabaseStatus;
    engine!: 'postgres';
    version!: string;
    tier!: PlanName;
    storageGib!: number;
    driver!: ProvisionerName;
    physicalName!: string;
    credentials!: string | null;                                // sealed DatabaseCredentials
    error!: string | null;
    createdAt!: string;
    updatedAt!: string;
}

/** An import into a database: its {cloneId}. The source URL is kept sealed for the job; `source` has no password. */
export class DatabaseImport extends BaseModel {
    static override tableName = 'database_imports';

    id!: string;
    databaseId!: string;
    projectId!: string;
    status!: ImportStatus;
    driver!: ProvisionerName;
    source!: string;
    sourceSealed!: string;
    error!: string | null;
    createdAt!: string;
    startedAt!: string | null;
    finishedAt!: string | null;
    updatedAt!: string;
}
