import { BaseModel } from '../../../lib/db/model';

export class ReviewApp extends BaseModel {
    static override tableName = 'review_apps';

    id!: string;
    appId!: string;
    projectId!: string;
    pullRequest!: number;
    branch!: string;
    title!: string;
    status!: 'deploying' | 'live' | 'failed';
    deploymentId!: string | null;
    expiresAt!: string;
    createdAt!: string;
    updatedAt!: string;
}
