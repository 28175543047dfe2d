import type { Readable } from 'node:stream';

import * as Boom from '@hapi/boom';
import type { Knex } from 'knex';

import { ArchiveRefusal, readArchive, type ArchiveSummary } from '../../../lib/archives';
import type { DeploymentFile, FileStore, StagedFile } from '../../../lib/edge/store';
import type { Deployment } from '../../../lib/resources/deployments';
import { nowIso } from '../../../lib/time';
import type { Site } from '../models/site';

// A site's deployments are sets of files in the edge's store. Files arrive with an upload (an archive read and
// checked entry by entry into a staging folder, nothing kept when it is refused), a visual-builder publish, or a
// redeploy (the same files named again). The last KEEP deployments holding files keep them, the live one always;
// older ones release theirs, and the store deletes a content once nothing names it.
export const KEEP = 10;
export type BuildSource = 'upload' | 'visual-builder' | 'redeploy';

/** Files read and checked, waiting in a staging folder for the transaction that deploys them. */
export interface Ingested {
    staging: string;
    files: DeploymentFile[];
    archiveBytes: number | null;
    startedAt: number;
}

export class SiteFiles {
    constructor(private readonly store: FileStore, private readonly knex: Knex) { }

    /** Reads an archive into staging. The caller calls `discard()` once the files are deployed or refused. */
    async ingest(input: Readable): Promise<Ingested> {
        const startedAt = Date.now();
        const staging = await this.store.staging();
        try {
            const staged = new Map<string, StagedFile>();
            let summary: ArchiveSummary;
            try {
                summary = await readArchive(input, staging, async (path, content) => {
                    staged.set(path, await this.store.stage(staging, content));
                });
            }
            catch (err) {
                throw err instanceof ArchiveRefusal ? (err.status === 413 ? Boom.entityTooLarge(err.message) : Boom.badRequest(err.message)) : err;
            }

            if (!staged.size) {
                throw Boom.badRequest('The archive holds no files');
            }

            const files: DeploymentFile[] = [];
            for (const [path, file] of withoutCommonFolder(staged)) {
                files.push(await this.store.describe(staging, path, file));
            }

            return { staging, files, archiveBytes: summary.compressedBytes, startedAt };
        }
        catch (err) {
            await this.store.discard(staging);
            throw err;
        }
    }

    /** Files made here (a rendered page), staged like an archive's. */
    async stageContents(contents: ReadonlyArray<{ path: string; content: Readable }>): Promise<Ingested> {
        const startedAt = Date.now();
        const staging = await this.store.staging();
        try {
            const files: DeploymentFile[] = [];
            for (const { path, content } of contents) {
                files.push(await this.store.describe(staging, path, await this.store.stage(staging, content)));
            }

            return { staging, files, archiveBytes: null, startedAt };
        }
        catch (err) {
            await this.store.discard(staging);
            throw err;
        }
    }

    discard(ingested: Ingested): Promise<void> {
        return this.store.discard(ingested.staging);
    }

    /** Names the staged files as the deployment's, with its build record, in the deployment's transaction. */
    async attach(trx: Knex.Transaction, site: Site, deployment: Deployment, ingested: Ingested, source: BuildSource): Promise<void> {
        const added = await this.store.attach(trx, deployment.id, ingested.files);
        await trx('site_builds').insert({
            deployment_id: deployment.id, site_id: site.id, source, archive_bytes: ingested.archiveBytes, files: ingested.files.length,
            bytes: ingested.files.reduce((sum, file) => sum + file.size, 0), new_files: added.newFiles, new_bytes: added.newBytes,
            compressed_files: ingested.files.filter((file) => file.gzip).length, duration_ms: Date.now() - ingested.startedAt, pruned: false, created_at: nowIso()
        });
    }

    /** The deployment's files are another's (a redeploy or a rerun); 409 when that one has none left. */
    async copy(trx: Knex.Transaction, site: Site, deployment: Deployment, from: string | null): Promise<void> {
        const startedAt = Date.now();
        const build = from ? await trx('site_builds').where({ deployment_id: from, pruned: false }).first<{ bytes: number | string; compressed_files: number } | undefined>() : undefined;
        if (!from || !build) {
            throw Boom.conflict(from
                ? `The files of ${from} are no longer kept (only the last ${KEEP} deployments keep theirs): upload an archive or publish the visual builder instead`
                : `${site.name} has no files to deploy yet: upload an archive (POST /v1/sites/${site.name}/upload) or publish its visual builder`);
        }

        const files = await this.store.copy(trx, from, deployment.id);
        await trx('site_builds').insert({
            deployment_id: deployment.id, site_id: site.id, source: 'redeploy', archive_bytes: null, files, bytes: build.bytes, new_files: 0, new_bytes: 0,
            compressed_files: build.compressed_files, duration_ms: Date.now() - startedAt, pruned: false, created_at: nowIso()
        });
    }

    /** The deployment whose files a new deployment takes by default: the live one, else the newest that kept its files. */
    async latest(trx: Knex.Transaction, site: Site): Promise<string | null> {
        if (site.liveDeploymentId) {
            return site.liveDeploymentId;
        }

        const row = await trx('site_builds').where({ site_id: site.id, pruned: false }).orderBy('created_at', 'desc').first<{ deployment_id: string } | undefined>('deployment_id');
        return row?.deployment_id ?? null;
    }

    /** Releases the files of every deployment beyond the last KEEP (never the live one), then sweeps the store. */
    async prune(siteId: string): Promise<void> {
        await this.knex.transaction(async (trx) => {
            const site = await trx('sites').where({ id: siteId }).first<{ live_deployment_id: string | null } | undefined>('live_deployment_id');
            const kept: Array<{ deployment_id: string }> = await trx('site_builds').where({ site_id: siteId, pruned: false }).orderBy('created_at', 'desc').select<Array<{ deployment_id: string }>>('deployment_id');
            const old = kept.slice(KEEP).map((row) => row.deployment_id).filter((id) => id !== site?.live_deployment_id);
            await this.store.release(trx, await claim(trx, old));
        });
        await this.store.sweep();
    }

    /** Everything a deleted site named, in the delete's transaction (the sweep follows the commit). */
    async removeAll(trx: Knex.Transaction, site: Site): Promise<void> {
        const deployments = await trx('site_builds').where({ site_id: site.id, pruned: false }).pluck('deployment_id') as string[];
        await this.store.release(trx, await claim(trx, deployments));
        await trx('site_builds').where({ site_id: site.id }).delete();
        const assets = await trx('site_builder_assets').where({ site_id: site.id }).pluck('hash') as string[];
        await this.store.releaseHashes(trx, assets);
    }

    sweep(): Promise<number> {
        return this.store.sweep();
    }
}

/** Marks builds as released, each only once whatever runs beside (the row is held): answers those marked here. */
async function claim(trx: Knex.Transaction, deploymentIds: readonly string[]): Promise<string[]> {
    const claimed: string[] = [];
    for (const id of deploymentIds) {
        if (await trx('site_builds').where({ deployment_id: id, pruned: false }).update({ pruned: true })) {
            claimed.push(id);
        }
    }

    return claimed;
}

/** An archive whose files all sit in one folder (`dist/index.html`, ...) is served from inside that folder. */
export function withoutCommonFolder<T>(files: ReadonlyMap<string, T>): Array<[string, T]> {
    const entries = [...files];
    const first = entries[0][0].split('/')[1];
    const common = entries.every(([path]) => path.split('/').length > 2 && path.split('/')[1] === first);
    return common ? entries.map(([path, file]) => [path.slice(first.length + 1), file]) : entries;
}
