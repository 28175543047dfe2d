import { AppsService } from './apps';
import { CollaboratorsService } from './collaborators';
import type { AppsContext } from './context';
import { CronJobsService } from './cron-jobs';
import { DeploymentsService } from './deployments';
import { DomainsService } from './domains';
import { EnvVarsService } from './env-vars';
import { ObservabilityService } from './observability';
import { ProcessesService } from './processes';
import { ReviewAppsService } from './review-apps';
import { ServiceFilesService } from './service-files';

export interface AppsServices {
    context: AppsContext;
    apps: AppsService;
    envVars: EnvVarsService;
    deployments: DeploymentsService;
    domains: DomainsService;
    collaborators: CollaboratorsService;
    processes: ProcessesService;
    cronJobs: CronJobsService;
    reviewApps: ReviewAppsService;
    observability: ObservabilityService;
    serviceFiles: ServiceFilesService;
}

export function createServices(context: AppsContext): AppsServices {
    const envVars = new EnvVarsService(context.knex, context.sealKey);
    const apps = new AppsService(context, envVars);
    const deployments = new DeploymentsService(context, apps, envVars);
    return {
        context,
        apps,
        envVars,
        deployments,
        domains: new DomainsService(context),
        collaborators: new CollaboratorsService(context),
        processes: new ProcessesService(context),
        cronJobs: new CronJobsService(context, apps),
        reviewApps: new ReviewAppsService(context, deployments),
        observability: new ObservabilityService(context),
        serviceFiles: new ServiceFilesService(context)
    };
}
