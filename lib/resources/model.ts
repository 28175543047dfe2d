import { BaseModel } from '../db/model';
import type { PlanName } from '../plans';

// What every runtime kind (apps, sites, workers, cron jobs) stores about itself: the settings a deployment is made
// from and the state a runtime driver leaves it in. A kind's model extends this with its own columns.
export type RuntimeStatus = 'created' | 'deploying' | 'live' | 'failed';
export type RepoProvider = 'github' | 'gitlab' | 'bitbucket' | 'git';                   // git: any repository by URL (repoName)

export class RuntimeResource extends BaseModel {
    id!: string;
    name!: string;
    projectId!: string;
    status!: RuntimeStatus;
    plan!: PlanName;
    region!: string;
    instances!: number;
    buildCommand!: string | null;
    startCommand!: string | null;
    repoProvider!: RepoProvider | null;
    repoName!: string | null;
    repoBranch!: string | null;
    autoDeploy!: boolean | number;
    liveDeploymentId!: string | null;
    createdAt!: string;
    updatedAt!: string;
}

/** A resource as the mechanisms key it: its kind (`app`, `worker`...), id, owning project and name. */
export interface ResourceRef {
    type: string;
    id: string;
    projectId: string;
    name: string;
}

export function refOf(type: string, resource: { id: string; projectId: string; name: string }): ResourceRef {
    return { type, id: resource.id, projectId: resource.projectId, name: resource.name };
}
