import type { App } from './models/app';
import type { AppProcess } from './models/app';
import type { AppCronJob, AppCronRun } from './models/cron-job';
import type { Deployment } from './models/deployment';

// The public shape of each resource: a create, a get and a list return the same one.
export function publicApp(app: App) {
    return {
        id: app.id,
        name: app.name,
        projectId: app.projectId,
        status: app.status,
        plan: app.plan,
        region: app.region,
        instances: app.instances,
        buildCommand: app.buildCommand,
        startCommand: app.startCommand,
        repository: app.repoProvider ? { provider: app.repoProvider, repo: app.repoName, branch: app.repoBranch } : null,
        autoDeploy: !!app.autoDeploy,
        liveDeploymentId: app.liveDeploymentId,
        createdAt: app.createdAt,
        updatedAt: app.updatedAt
    };
}

export function publicDeployment(app: App, deployment: Deployment) {
    const { environment, ...config } = deployment.config;
    return {
        id: deployment.id,
        appName: app.name,
        projectId: deployment.projectId,
        status: deployment.status,
        driver: deployment.driver,
        trigger: deployment.trigger,
        rerunOf: deployment.rerunOf,
        reviewAppId: deployment.reviewAppId,
        commitSha: deployment.commitSha,
        branch: deployment.branch,
        error: deployment.error,
        configuration: { ...config, environmentVariables: environment.map((variable) => variable.name) },
        createdAt: deployment.createdAt,
        buildingAt: deployment.buildingAt,
        deployingAt: deployment.deployingAt,
        finishedAt: deployment.finishedAt,
        updatedAt: deployment.updatedAt
    };
}

export function publicProcess(app: App, process: AppProcess) {
    return { id: process.id, appName: app.name, projectId: process.projectId, name: process.name, command: process.command, instances: process.instances, createdAt: process.createdAt, updatedAt: process.updatedAt };
}

export function publicCronJob(app: App, job: AppCronJob) {
    return {
        id: job.id, appName: app.name, projectId: job.projectId, name: job.name, schedule: job.schedule, command: job.command, status: job.status,
        nextRunAt: job.nextRunAt, lastRunAt: job.lastRunAt, createdAt: job.createdAt, updatedAt: job.updatedAt
    };
}

export function publicRun(run: AppCronRun) {
    return {
        id: run.id, cronJobId: run.cronJobId, status: run.status, trigger: run.trigger, driver: run.driver, exitCode: run.exitCode,
        scheduledFor: run.scheduledFor, startedAt: run.startedAt, finishedAt: run.finishedAt, createdAt: run.createdAt
    };
}
