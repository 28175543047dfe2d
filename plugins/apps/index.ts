import type { PriceList } from '../../lib/plans';
import { runtimeFamilyPlugin } from '../../lib/resources/family';
import { Reviews } from '../../lib/resources/reviews';
import { APP_FIELDS, APPS, appsTable } from '../../manifest/routes/apps';
import { App } from './models/app';
import { appRoutes } from './routes/apps';
import { cronJobRoutes } from './routes/cron-jobs';
import { LOADERS } from './routes/params';
import { processRoutes } from './routes/processes';
import { repositoryRoutes } from './routes/repository';
import { appCronSource, CronJobsService } from './services/cron-jobs';
import { appProcessesLive, appProcessesRemoved, processSnapshot, ProcessesService } from './services/processes';
import { ServiceFilesService } from './services/service-files';

// The apps family: a runtime kind (settings, environment, domains, collaborators, scaling, deployments, logs and
// metrics come from lib/resources) plus what only apps have: worker processes, cron jobs, review apps, traces and
// service files. Background work runs as jobs on the core queue, cron jobs on the platform's scheduler; the runtime
// driver performs both.
export interface AppsPluginOptions {
    prices: PriceList;
    reviewAppHours?: number;
}

export const appsPlugin = runtimeFamilyPlugin<App, AppsPluginOptions>({
    name: 'hostless-apps',
    table: appsTable,
    kind: APPS,
    adapter: {
        model: App,
        fields: APP_FIELDS,
        snapshot: async (trx, app) => ({ processes: await processSnapshot(trx, app) })
    },
    loaders: LOADERS,
    register(server, family, options) {
        const { scheduler } = family.services;
        const { allocation, knex } = family.services;
        const processes = new ProcessesService(knex, allocation);
        const cronJobs = new CronJobsService(family);
        const reviewApps = new Reviews(family, options.reviewAppHours ?? 72);
        scheduler.register(appCronSource);
        return {
            routes: {
                ...appRoutes(family),
                ...processRoutes(processes),
                ...cronJobRoutes(family, cronJobs),
                ...repositoryRoutes(reviewApps, new ServiceFilesService(family, options.prices))
            },
            onReview: (trx, deployment, outcome) => reviewApps.settled(trx, deployment, outcome),
            // Billing's allocation history of the app's processes and cron jobs follows the app's.
            hooks: {
                onLive: (trx, app) => appProcessesLive(trx, allocation, app),
                beforeRemove: async (trx, app) => {
                    await appProcessesRemoved(trx, allocation, app);
                    await cronJobs.appRemoved(trx, app);
                }
            }
        };
    }
});
