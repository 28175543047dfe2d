import { BaseModel } from '../db/model';
import type { GitProviderName } from './provider';

/** A project's connection to a Git host; the token is sealed. The connect flow comes with the Git family. */
export class GitConnection extends BaseModel {
    static override tableName = 'git_connections';

    id!: string;
    projectId!: string;
    provider!: GitProviderName;
    accountLogin!: string;
    token!: string;
    createdBy!: string | null;
    createdAt!: string;
    updatedAt!: string;
}
