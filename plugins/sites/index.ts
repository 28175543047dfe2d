import * as Boom from '@hapi/boom';

import { runtimeFamilyPlugin } from '../../lib/resources/family';
import { Reviews } from '../../lib/resources/reviews';
import { StaticDriver } from '../../lib/runtime/static';
import { SITE_FIELDS, SITES, sitesTable } from '../../manifest/routes/sites';
import { Site } from './models/site';
import { reviewRoutes } from './routes/reviews';
import { siteRoutes } from './routes/sites';
import { Builder } from './services/builder';
import { SiteFiles } from './services/files';
import { SitesService, sourceOf } from './services/sites';

// The sites family: a runtime kind (settings, environment, domains, scaling, deployments, logs and metrics come from
// lib/resources) whose deployments are stored files served by the edge (lib/edge), with uploads, the visual builder,
// review sites and build statistics of its own. Its deployments go through the `static` driver: nothing runs.
export interface SitesPluginOptions {
    reviewHours?: number;
}

export const sitesPlugin = runtimeFamilyPlugin<Site, SitesPluginOptions>({
    name: 'hostless-sites',
    table: sitesTable,
    kind: SITES,
    dependencies: ['hostless-edge'],
    adapter: {
        model: Site,
        driver: new StaticDriver(),
        fields: { create: SITE_FIELDS, patch: SITE_FIELDS },
        columns: (input) => ({
            ...(input.spa !== undefined ? { spa: input.spa as boolean } : {}),
            ...('name' in input ? { source: sourceOf(input) } : {})
        }),
        serialize: (site) => ({ source: site.source, spa: !!site.spa }),
        jsonFields: [{ name: 'source', column: 'source' }, { name: 'spa', column: 'spa', boolean: true }]
    },
    register(server, family, options) {
        const { edge, store } = server.plugins['hostless-edge'];
        const { reader } = server.plugins['hostless-auth'];
        const files = new SiteFiles(store, family.services.knex);
        const builder = new Builder(family.services.knex, store, files);
        const sites = new SitesService(family, files, builder);
        const reviews = new Reviews(family, options.reviewHours ?? 72);

        edge.provide('site', async ({ resourceId, review }) => {
            const site = await reader.get<{ id: string; project_id: string; name: string; live_deployment_id: string | null; spa: number | boolean }>(
                'SELECT id, project_id, name, live_deployment_id, spa FROM sites WHERE id = ?', [resourceId]);
            const lane = site && review !== null
                ? await reader.get<{ deployment_id: string | null }>('SELECT deployment_id FROM reviews WHERE resource_id = ? AND pull_request = ? AND status = \'live\'', [site.id, review])
                : null;
            const deploymentId = review === null ? site?.live_deployment_id : lane?.deployment_id;
            return site && deploymentId
                ? { kind: 'files', resource: { type: 'site', id: site.id, projectId: site.project_id, name: site.name }, deploymentId, spa: !!site.spa }
                : null;
        });

        return {
            routes: { ...siteRoutes(family, sites, builder), ...reviewRoutes(reviews) },
            onReview: (trx, deployment, outcome) => reviews.settled(trx, deployment, outcome),
            hooks: {
                // Files named by a new deployment: an upload or a publish attaches its own; a redeploy or a rerun
                // takes the files of the deployment it repeats (the live one by default).
                prepare: async (trx, site, deployment, input) => {
                    if (input.trigger === 'upload' || input.trigger === 'publish') {
                        return;
                    }

                    if (input.trigger === 'review') {
                        throw Boom.conflict('A review site needs its branch built from the repository, which no runtime on this server does yet');
                    }

                    await files.copy(trx, site, deployment, input.rerunOf?.id ?? await files.latest(trx, site));
                },
                settled: (deployment) => files.prune(deployment.resourceId),
                beforeRemove: (trx, site) => files.removeAll(trx, site),
                afterRemove: async () => {
                    await files.sweep();
                }
            }
        };
    }
});
