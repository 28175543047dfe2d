import * as Boom from '@hapi/boom';
import Joi from 'joi';

import { access } from '../../../lib/access';
import { ARCHIVE_LIMITS } from '../../../lib/archives';
import { deploymentStats } from '../../../lib/resources/handlers';
import type { RuntimeFamily } from '../../../lib/resources/family';
import { createSchema } from '../../../lib/resources/fields';
import { kindRef } from '../../../lib/resources/kinds';
import type { Deployment } from '../../../lib/resources/deployments';
import { route, type RouteHandlers } from '../../../lib/route-table';
import { SITE_FIELDS } from '../../../manifest/routes/sites';
import { fields } from '../../../lib/validation';
import type { Site } from '../models/site';
import { ASSET_LIMIT, type Builder } from '../services/builder';
import { documentSchema, type BuilderDocument } from '../services/render';
import type { SiteCreate, SitesService } from '../services/sites';

export const SITE = kindRef<Site>('site');

interface BuildRow {
    source: string;
    files: number;
    bytes: number | string;
    archive_bytes: number | string | null;
    new_files: number;
    new_bytes: number | string;
    compressed_files: number;
    duration_ms: number;
    pruned: boolean | number;
}
const BUILD = kindRef<Deployment>('site-build');
const siteName = fields.name().required();
const params = Joi.object<{ siteName: string }, true>({ siteName });
const createBody = createSchema(SITE_FIELDS) as Joi.ObjectSchema<SiteCreate>;
const formSlack = 64 * 1024;

// What sites have beyond the shared runtime rows: sites made from an archive or the visual builder, new archives,
// the visual builder's document, assets and publishing, and each deployment's build statistics.
export function siteRoutes(family: RuntimeFamily<Site>, sites: SitesService, builder: Builder): RouteHandlers {
    const created = (site: Site, deployment: Deployment) => ({ ...family.serialize(site), deployment: family.serializeDeployment(site, deployment) });
    return {
        'sites.fromUpload': route({
            multipart: { body: { part: 'metadata', schema: createBody }, file: 'archive', maxBytes: ARCHIVE_LIMITS.compressedBytes + formSlack },
            handler: async (request, h) => {
                const form = request.plugins.form!;
                const { site, deployment } = await sites.createFromUpload(access(request).project!.id, form.body as unknown as SiteCreate, form.file);
                return h.response(created(site, deployment)).code(201);
            }
        }),
        'sites.upload': route({
            params,
            multipart: { file: 'archive', maxBytes: ARCHIVE_LIMITS.compressedBytes + formSlack },
            handler: async (request, h) => {
                const site = SITE.of(request);
                return h.response(family.serializeDeployment(site, await sites.upload(site, request.plugins.form!.file))).code(201);
            }
        }),
        'sites.fromVisualBuilder': route({
            payload: createBody.keys({ document: documentSchema }),
            handler: async (request, h) => {
                const { site, deployment } = await sites.createFromBuilder(access(request).project!.id, request.payload, access(request).user.id);
                return h.response(created(site, deployment)).code(201);
            }
        }),
        'sites.builder.project.get': route({ params, handler: (request) => builder.project(SITE.of(request)) }),
        'sites.builder.project.put': route({
            params,
            payload: Joi.object<{ version: number; document: BuilderDocument }, true>({
                version: Joi.number().integer().min(0).required().description('The version you read (0 before the first save).'),
                document: documentSchema.required()
            }),
            handler: (request) => builder.save(family.services.knex, SITE.of(request), request.payload.version, request.payload.document, access(request).user.id)
        }),
        'sites.builder.publish': route({
            params,
            handler: async (request, h) => {
                const site = SITE.of(request);
                return h.response(family.serializeDeployment(site, await sites.publish(site))).code(201);
            }
        }),
        'sites.builder.assets.list': route({ params, handler: (request) => builder.assets(SITE.of(request)) }),
        'sites.builder.assets.upload': route({
            params,
            multipart: { file: 'file', maxBytes: ASSET_LIMIT + formSlack },
            handler: async (request, h) => {
                const file = request.plugins.form!.file;
                if (!file) {
                    throw Boom.badRequest('The "file" part is required: send the asset as a file part named "file"');
                }

                return h.response(await builder.upload(SITE.of(request), file)).code(201);
            }
        }),
        'sites.deployments.buildStats': route({
            params: Joi.object<{ siteName: string; siteDeploymentId: string }, true>({ siteName, siteDeploymentId: fields.id('dep').required() }),
            handler: async (request) => {
                const deployment = BUILD.of(request);
                const knex = family.services.knex;
                const build = await knex('site_builds').where({ deployment_id: deployment.id }).first<BuildRow | undefined>();
                const types: Array<{ content_type: string; files: number | string; bytes: number | string }> = await knex('deployment_files')
                    .where({ deployment_id: deployment.id }).groupBy('content_type').orderBy('content_type').select('content_type', knex.raw('COUNT(*) AS files'), knex.raw('SUM(size) AS bytes'));
                return {
                    ...deploymentStats(deployment),
                    source: build?.source ?? null,
                    files: build ? {
                        count: build.files, bytes: Number(build.bytes), archiveBytes: build.archive_bytes === null ? null : Number(build.archive_bytes),
                        newFiles: build.new_files, newBytes: Number(build.new_bytes), reusedFiles: build.files - build.new_files,
                        gzipVariants: build.compressed_files, ingestMs: build.duration_ms, kept: !build.pruned,
                        byContentType: types.map((type) => ({ contentType: type.content_type, files: Number(type.files), bytes: Number(type.bytes) }))
                    } : null
                };
            }
        })
    };
}
