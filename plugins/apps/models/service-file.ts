import { BaseModel } from '../../../lib/db/model';

export class ServiceFileVersion extends BaseModel {
    static override tableName = 'service_files';

    id!: string;
    appId!: string;
    projectId!: string;
    version!: number;
    format!: 'yaml' | 'json';
    content!: string;
    createdBy!: string | null;
    committedSha!: string | null;
    committedAt!: string | null;
    createdAt!: string;
}
