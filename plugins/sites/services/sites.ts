import * as Boom from '@hapi/boom';
import type { Knex } from 'knex';

import type { Deployment } from '../../../lib/resources/deployments';
import type { RuntimeFamily } from '../../../lib/resources/family';
import type { RuntimeCreate } from '../../../lib/resources/fields';
import type { FilePart } from '../../../lib/multipart';
import type { Site, SiteSource } from '../models/site';
import type { Builder } from './builder';
import type { BuildSource, Ingested, SiteFiles } from './files';
import { starterDocument, type BuilderDocument } from './render';

// What makes a site's deployments: an archive (a new site, or a new deployment of one), or the visual builder's
// document. Files are read and checked before any transaction; the site (when new), its deployment and the
// deployment's files are then written in one transaction, so a refusal or a failure leaves no row and no file.
export type SiteCreate = RuntimeCreate & { spa?: boolean; document?: BuilderDocument };

export class SitesService {
    constructor(private readonly family: RuntimeFamily<Site>, private readonly files: SiteFiles, private readonly builder: Builder) { }

    private get knex(): Knex {
        return this.family.services.knex;
    }

    /** Refuses a taken name before a byte of an archive is read (the create's own claim still decides). */
    async assertNameFree(name: string): Promise<void> {
        if (await this.knex('edge_names').where({ name }).first('name') || await this.knex('sites').where({ name }).first('id')) {
            throw Boom.conflict(`The name ${name} is taken`);
        }
    }

    async createFromUpload(projectId: string, input: SiteCreate, archive: FilePart | null): Promise<{ site: Site; deployment: Deployment }> {
        await this.assertNameFree(input.name);
        const ingested = await this.files.ingest(requireFile(archive, 'archive').stream);
        return this.deploy(ingested, 'upload', (trx) => this.family.create(projectId, { ...input, source: 'upload' } as RuntimeCreate, trx));
    }

    async upload(site: Site, archive: FilePart | null): Promise<Deployment> {
        const ingested = await this.files.ingest(requireFile(archive, 'archive').stream);
        return (await this.deploy(ingested, 'upload', () => Promise.resolve(site))).deployment;
    }

    async createFromBuilder(projectId: string, input: SiteCreate, userId: string): Promise<{ site: Site; deployment: Deployment }> {
        const { document, ...settings } = input;
        const chosen = document ?? starterDocument(input.name);
        let ingested: Ingested | null = null;
        try {
            return await this.knex.transaction(async (trx) => {
                const site = await this.family.create(projectId, { ...settings, source: 'visual-builder' } as RuntimeCreate, trx);
                await this.builder.save(trx, site, 0, chosen, userId);
                ingested = await this.builder.render(trx, site, chosen);
                const deployment = await this.family.services.deployments.trigger('site', site, { trigger: 'publish' }, trx);
                await this.files.attach(trx, site, deployment, ingested, 'visual-builder');
                return { site: await this.reread(trx, site), deployment };
            });
        }
        finally {
            if (ingested) {
                await this.files.discard(ingested);
            }
        }
    }

    async publish(site: Site): Promise<Deployment> {
        const { document } = await this.builder.project(site);
        const ingested = await this.builder.render(this.knex, site, document);
        return (await this.deploy(ingested, 'visual-builder', () => Promise.resolve(site))).deployment;
    }

    private async reread(trx: Knex.Transaction, site: Site): Promise<Site> {
        return (await this.family.adapter.model.query(trx).findById(site.id))!;
    }

    private async deploy(ingested: Ingested, source: BuildSource, siteIn: (trx: Knex.Transaction) => Promise<Site>): Promise<{ site: Site; deployment: Deployment }> {
        try {
            return await this.knex.transaction(async (trx) => {
                const site = await siteIn(trx);
                const deployment = await this.family.services.deployments.trigger('site', site, { trigger: source === 'upload' ? 'upload' : 'publish' }, trx);
                await this.files.attach(trx, site, deployment, ingested, source);
                return { site: await this.reread(trx, site), deployment };
            });
        }
        finally {
            await this.files.discard(ingested);
        }
    }
}

function requireFile(file: FilePart | null, part: string): FilePart {
    if (!file) {
        throw Boom.badRequest(`The "${part}" part is required: send the archive (tar.gz or zip) as a file part named "${part}"`);
    }

    return file;
}

export function sourceOf(input: { source?: SiteSource; repository?: unknown }): SiteSource {
    return input.source ?? (input.repository ? 'repository' : 'upload');
}
