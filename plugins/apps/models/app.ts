import { BaseModel } from '../../../lib/db/model';
import type { PlanName } from '../../../lib/plans';

export type AppStatus = 'created' | 'deploying' | 'live' | 'failed';

export class App extends BaseModel {
    static override tableName = 'apps';

    id!: string;
    name!: string;
    projectId!: string;
    status!: AppStatus;
    plan!: PlanName;
    region!: string;
    instances!: number;
    buildCommand!: string | null;
    startCommand!: string | null;
    repoProvider!: 'github' | 'gitlab' | 'bitbucket' | null;
    repoName!: string | null;
    repoBranch!: string | null;
    autoDeploy!: boolean | number;
    liveDeploymentId!: string | null;
    createdAt!: string;
    updatedAt!: string;
}

export class AppEnvVar extends BaseModel {
    static override tableName = 'app_env_vars';
    static override get idColumn() {
        return ['app_id', 'name'];
    }

    appId!: string;
    name!: string;
    value!: string;                                             // sealed
    createdAt!: string;
    updatedAt!: string;
}

export class AppDomain extends BaseModel {
    static override tableName = 'app_domains';

    id!: string;
    appId!: string;
    projectId!: string;
    hostname!: string;
    status!: 'pending' | 'verified';
    verificationToken!: string;
    verifiedAt!: string | null;
    checkedAt!: string | null;
    lastError!: string | null;
    createdAt!: string;
}

export class AppProcess extends BaseModel {
    static override tableName = 'app_processes';

    id!: string;
    appId!: string;
    projectId!: string;
    name!: string;
    command!: string;
    instances!: number;
    createdAt!: string;
    updatedAt!: string;
}
