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

/** A project's connection to a Git host; the token is sealed. The connect flow comes with the Git family. */
export class GitConnection extends BaseModel {
    static override tableName = 'git_connections';

    id!: string;
    projectId!: string;
    provider!: 'github' | 'gitlab' | 'bitbucket';
    accountLogin!: string;
    token!: string;
    createdBy!: string | null;
    createdAt!: string;
    updatedAt!: string;
}
