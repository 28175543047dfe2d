import { BaseModel } from '../../../lib/db/model';

export type DeploymentStatus = 'queued' | 'building' | 'deploying' | 'live' | 'failed' | 'canceled' | 'superseded';
export const TERMINAL: readonly DeploymentStatus[] = ['live', 'failed', 'canceled', 'superseded'];

/** What was deployed: the configuration at the time, environment values sealed, for rerun and later comparison. */
export interface ConfigSnapshot {
    plan: string;
    region: string;
    instances: number;
    buildCommand: string | null;
    startCommand: string | null;
    repository: { provider: string; repo: string; branch: string } | null;
    environment: Array<{ name: string; value: string }>;
    processes: Array<{ name: string; command: string; instances: number }>;
    databases: string[];
}

export class Deployment extends BaseModel {
    static override tableName = 'deployments';
    static override jsonAttributes = ['config'];

    id!: string;
    resourceType!: 'app';
    resourceId!: string;
    projectId!: string;
    reviewAppId!: string | null;
    status!: DeploymentStatus;
    driver!: string;
    trigger!: 'manual' | 'rerun' | 'review' | 'auto';
    rerunOf!: string | null;
    commitSha!: string | null;
    branch!: string | null;
    config!: ConfigSnapshot;
    error!: string | null;
    createdAt!: string;
    buildingAt!: string | null;
    deployingAt!: string | null;
    finishedAt!: string | null;
    updatedAt!: string;
}
