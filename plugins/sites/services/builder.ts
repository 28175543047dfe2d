import { Readable, Transform } from 'node:stream';

import * as Boom from '@hapi/boom';
import type { Knex } from 'knex';

import { isUniqueViolation } from '../../../lib/db/errors';
import type { FileStore } from '../../../lib/edge/store';
import { newId } from '../../../lib/ids';
import type { FilePart } from '../../../lib/multipart';
import { nowIso } from '../../../lib/time';
import type { Site } from '../models/site';
import { ASSET_NAME, assetsUsed, pageFile, renderPage, starterDocument, type BuilderDocument } from './render';
import type { Ingested, SiteFiles } from './files';

// The visual builder: one versioned document per site (a save names the version it read; a stale one is 409, so
// two editors never overwrite each other unseen), assets in the edge's file store, and publishing, which renders the
// document to static HTML and stages it with the assets it uses as a new deployment's files.
export const ASSET_LIMIT = 25 * 1024 ** 2;

interface ProjectRow {
    site_id: string;
    version: number;
    document: string;
    updated_at: string;
}

interface AssetRow {
    id: string;
    site_id: string;
    name: string;
    hash: string;
    size: number | string;
    content_type: string;
    created_at: string;
}

export function publicAsset(row: AssetRow) {
    return { id: row.id, name: row.name, size: Number(row.size), contentType: row.content_type, url: `/assets/${row.name}`, createdAt: row.created_at };
}

/** A file name as an asset name: lowercase letters, digits, dots, dashes and underscores. */
export function assetName(filename: string): string {
    const base = filename.split(/[\\/]/).pop()!.toLowerCase().replace(/[^a-z0-9._-]+/g, '-').replace(/^[^a-z0-9]+/, '').slice(0, 128);
    if (!ASSET_NAME.test(base)) {
        throw Boom.badRequest('The "file" part needs a file name of letters, digits, dots, dashes or underscores');
    }

    return base;
}

export class Builder {
    constructor(private readonly knex: Knex, private readonly store: FileStore, private readonly files: SiteFiles) { }

    async project(site: Site) {
        const row = await this.knex('site_builder_projects').where({ site_id: site.id }).first<ProjectRow | undefined>();
        return row
            ? { siteName: site.name, version: row.version, document: JSON.parse(row.document) as BuilderDocument, updatedAt: row.updated_at }
            : { siteName: site.name, version: 0, document: starterDocument(site.name), updatedAt: null };
    }

    /** Saves the document if `version` is still the current one (0: none saved yet). */
    async save(db: Knex | Knex.Transaction, site: Site, version: number, document: BuilderDocument, userId: string | null) {
        const now = nowIso();
        const text = JSON.stringify(document);
        const insert = async () => {
            try {
                await db('site_builder_projects').insert({ site_id: site.id, version: 1, document: text, updated_by: userId, created_at: now, updated_at: now });
                return 1;
            }
            catch (err) {
                if (isUniqueViolation(err)) {
                    return 0;
                }

                throw err;
            }
        };
        const saved = version === 0
            ? await insert()
            : await db('site_builder_projects').where({ site_id: site.id, version }).update({ version: version + 1, document: text, updated_by: userId, updated_at: now });
        if (!saved) {
            const current = await db('site_builder_projects').where({ site_id: site.id }).first<ProjectRow | undefined>('version');
            throw Boom.conflict(`The visual-builder project changed since version ${version} (it is at version ${current?.version ?? 0}): read it again and reapply your change`);
        }

        return { siteName: site.name, version: version + 1, document, updatedAt: now };
    }

    async assets(site: Site) {
        const rows = await this.knex('site_builder_assets').where({ site_id: site.id }).orderBy('name') as AssetRow[];
        return rows.map(publicAsset);
    }

    /** Stores an uploaded asset (replacing one of the same name); over ASSET_LIMIT is 413 with nothing kept. */
    async upload(site: Site, file: FilePart) {
        const name = assetName(file.filename);
        const staging = await this.store.staging();
        try {
            let seen = 0;
            const limited = file.stream.pipe(new Transform({
                transform(chunk: Buffer, _encoding, done) {
                    seen += chunk.length;
                    done(seen > ASSET_LIMIT ? Boom.entityTooLarge(`The asset is larger than ${ASSET_LIMIT / 1024 ** 2} MiB`) : null, chunk);
                }
            }));
            file.stream.on('error', (err) => limited.destroy(err));
            const staged = await this.store.stage(staging, limited);
            if (!staged.size) {
                throw Boom.badRequest('The "file" part is empty');
            }

            const described = await this.store.describe(staging, `/assets/${name}`, staged);
            return await this.knex.transaction(async (trx) => {
                const old = await trx('site_builder_assets').where({ site_id: site.id, name }).first<AssetRow | undefined>();
                await this.store.retain(trx, [staged]);
                if (old) {
                    await this.store.releaseHashes(trx, [old.hash]);
                    await trx('site_builder_assets').where({ id: old.id }).delete();
                }

                const row: AssetRow = { id: newId('ast'), site_id: site.id, name, hash: staged.hash, size: staged.size, content_type: described.contentType, created_at: nowIso() };
                await trx('site_builder_assets').insert(row);
                return publicAsset(row);
            });
        }
        finally {
            await this.store.discard(staging);
            await this.store.sweep();
        }
    }

    /** The document rendered to pages, with the assets it uses, staged as a deployment's files. */
    async render(db: Knex | Knex.Transaction, site: Site, document: BuilderDocument): Promise<Ingested> {
        const used = assetsUsed(document);
        const assets = used.length ? await db('site_builder_assets').where({ site_id: site.id }).whereIn('name', used) as AssetRow[] : [];
        const missing = used.filter((name) => !assets.some((asset) => asset.name === name));
        if (missing.length) {
            throw Boom.conflict(`The document uses ${missing.map((name) => `"${name}"`).join(', ')}, which ${missing.length > 1 ? 'are' : 'is'} not among the site's assets: upload ${missing.length > 1 ? 'them' : 'it'} first`);
        }

        const ingested = await this.files.stageContents(document.pages.map((page) => ({ path: pageFile(page.path), content: Readable.from([Buffer.from(renderPage(document, page))]) })));
        for (const asset of assets) {
            ingested.files.push({ path: `/assets/${asset.name}`, hash: asset.hash, size: Number(asset.size), file: this.store.blobPath(asset.hash), contentType: asset.content_type, gzip: null });
        }

        return ingested;
    }
}
