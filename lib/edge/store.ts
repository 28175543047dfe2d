import * as Crypto from 'node:crypto';
import * as Fs from 'node:fs';
import * as Path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import * as Zlib from 'node:zlib';

import type { Knex } from 'knex';
import * as Mime from 'mime-types';

import type { FastReader } from '../db/fast-reader';
import { nowIso } from '../time';

// The edge's file store: every file is stored once under DATA_DIR/files by the sha256 of its content, whatever
// deployment (of whatever site) holds it, and counted by the rows that name it (deployment files and builder assets).
// Adding names: the count is raised first (holding the row), then the blob is written if it is missing, in the
// caller's transaction. Releasing names lowers the count; `sweep()` then deletes blobs at zero, holding each row
// while it unlinks, so a concurrent add of the same content waits and writes the blob again. Compressible files
// also get a gzip variant (stored the same way), so the edge never compresses a stored file twice.
export interface StagedFile {
    hash: string;
    size: number;
    file: string;                                               // where the content waits in the staging folder
}

export interface DeploymentFile extends StagedFile {
    path: string;                                               // `/index.html`
    contentType: string;
    gzip: StagedFile | null;
}

export interface StoredFile {
    path: string;
    hash: string;
    size: number;
    contentType: string;
    gzipHash: string | null;
    gzipSize: number | null;
}

const GZIP_MIN = 1024;

export function contentTypeOf(path: string): string {
    return Mime.contentType(Path.extname(path)) || 'application/octet-stream';
}

function compressible(contentType: string): boolean {
    return /^text\/|[+/](json|javascript|xml|svg\+xml|wasm)\b|^application\/(javascript|json|xml|manifest\+json)|^image\/svg\+xml|^font\/(ttf|otf)/.test(contentType);
}

export class FileStore {
    readonly root: string;

    constructor(dataDir: string, private readonly knex: Knex, private readonly reader: FastReader) {
        this.root = Path.join(dataDir, 'files');
    }

    blobPath(hash: string): string {
        return Path.join(this.root, hash.slice(0, 2), hash.slice(2, 4), hash);
    }

    /** A fresh staging folder; the caller removes it (`discard`) whatever happens. */
    async staging(): Promise<string> {
        const tmp = Path.join(this.root, 'tmp');
        await Fs.promises.mkdir(tmp, { recursive: true, mode: 0o700 });
        return Fs.promises.mkdtemp(Path.join(tmp, 'stage-'));
    }

    async discard(dir: string): Promise<void> {
        await Fs.promises.rm(dir, { recursive: true, force: true });
    }

    /** Writes a stream into the staging folder, hashing it; `limit` is checked on every chunk (the thrown error stops the stream). */
    async stage(dir: string, input: Readable, onChunk: (bytes: number) => void = () => { }): Promise<StagedFile> {
        const file = Path.join(dir, Crypto.randomBytes(12).toString('hex'));
        const hash = Crypto.createHash('sha256');
        let size = 0;
        await pipeline(input, async function* (source: AsyncIterable<Buffer | string>) {
            for await (const data of source) {
                const chunk = typeof data === 'string' ? Buffer.from(data) : data;
                size += chunk.length;
                onChunk(chunk.length);
                hash.update(chunk);
                yield chunk;
            }
        }, Fs.createWriteStream(file, { mode: 0o600 }));
        return { hash: hash.digest('hex'), size, file };
    }

    /** A deployment file from a staged one: its content type, and a gzip variant when that is worth keeping. */
    async describe(dir: string, path: string, staged: StagedFile): Promise<DeploymentFile> {
        const contentType = contentTypeOf(path);
        let gzip: StagedFile | null = null;
        if (staged.size >= GZIP_MIN && compressible(contentType)) {
            const compressed = await this.stage(dir, Fs.createReadStream(staged.file).pipe(Zlib.createGzip({ level: 9 })));
            gzip = compressed.size < staged.size * 0.9 ? compressed : null;
        }

        return { ...staged, path, contentType, gzip };
    }

    /** Names the files as the deployment's, in the caller's transaction; answers what the store did not hold yet. */
    async attach(trx: Knex.Transaction, deploymentId: string, files: readonly DeploymentFile[]): Promise<{ newFiles: number; newBytes: number }> {
        const contents = files.flatMap((file) => file.gzip ? [file, file.gzip] : [file]);
        const added = await this.retain(trx, contents);
        for (let i = 0; i < files.length; i += 200) {
            await trx('deployment_files').insert(files.slice(i, i + 200).map((file) => ({
                deployment_id: deploymentId, path: file.path, hash: file.hash, size: file.size, content_type: file.contentType,
                gzip_hash: file.gzip?.hash ?? null, gzip_size: file.gzip?.size ?? null
            })));
        }

        return added;
    }

    /** The same files under another deployment (a redeploy, a rerun). */
    async copy(trx: Knex.Transaction, fromDeploymentId: string, toDeploymentId: string): Promise<number> {
        const rows: Array<{ hash: string; gzip_hash: string | null }> = await trx('deployment_files').where({ deployment_id: fromDeploymentId }).select('hash', 'gzip_hash');
        const counts = countHashes(rows.flatMap((row) => row.gzip_hash ? [row.hash, row.gzip_hash] : [row.hash]));
        for (const [hash, n] of [...counts].sort(([a], [b]) => a.localeCompare(b))) {
            await trx('stored_files').where({ hash }).increment('refs', n);
        }

        await trx.raw(`INSERT INTO deployment_files (deployment_id, path, hash, size, content_type, gzip_hash, gzip_size)
            SELECT ?, path, hash, size, content_type, gzip_hash, gzip_size FROM deployment_files WHERE deployment_id = ?`, [toDeploymentId, fromDeploymentId]);
        return rows.length;
    }

    /** Raises the count of each content (writing the blobs the store lacks); answers what was new. */
    async retain(trx: Knex.Transaction, contents: readonly StagedFile[]): Promise<{ newFiles: number; newBytes: number }> {
        const byHash = new Map(contents.map((content) => [content.hash, content]));
        const counts = countHashes(contents.map((content) => content.hash));
        let newFiles = 0;
        let newBytes = 0;
        // Always in the same order, so two transactions never wait for each other's rows the other way round.
        for (const [hash, n] of [...counts].sort(([a], [b]) => a.localeCompare(b))) {
            const content = byHash.get(hash)!;
            await trx('stored_files').insert({ hash, size: content.size, refs: n, created_at: nowIso() }).onConflict('hash').merge({ refs: trx.raw('stored_files.refs + excluded.refs') });
            const blob = this.blobPath(hash);
            if (!Fs.existsSync(blob)) {
                await Fs.promises.mkdir(Path.dirname(blob), { recursive: true, mode: 0o700 });
                await Fs.promises.copyFile(content.file, `${blob}.tmp-${process.pid}`);
                await Fs.promises.rename(`${blob}.tmp-${process.pid}`, blob);
                ++newFiles;
                newBytes += content.size;
            }
        }

        return { newFiles, newBytes };
    }

    /** Lowers the counts of the given contents (one per name released). */
    async releaseHashes(trx: Knex.Transaction, hashes: readonly string[]): Promise<void> {
        for (const [hash, n] of [...countHashes(hashes)].sort(([a], [b]) => a.localeCompare(b))) {
            await trx('stored_files').where({ hash }).decrement('refs', n);
        }
    }

    /** Releases every file of the deployments. */
    async release(trx: Knex.Transaction, deploymentIds: readonly string[]): Promise<void> {
        if (!deploymentIds.length) {
            return;
        }

        const rows: Array<{ hash: string; gzip_hash: string | null }> = await trx('deployment_files').whereIn('deployment_id', deploymentIds).select('hash', 'gzip_hash');
        await this.releaseHashes(trx, rows.flatMap((row) => row.gzip_hash ? [row.hash, row.gzip_hash] : [row.hash]));
        await trx('deployment_files').whereIn('deployment_id', deploymentIds).delete();
    }

    /** Deletes the blobs nothing names any more. Answers how many. */
    async sweep(): Promise<number> {
        const postgres = (this.knex.client as { config: { client: string } }).config.client === 'pg';
        return this.knex.transaction(async (trx) => {
            const query = trx('stored_files').where('refs', '<=', 0).limit(1000).select('hash');
            const dead = await (postgres ? query.forUpdate() : query) as Array<{ hash: string }>;
            if (!dead.length) {
                return 0;
            }

            await trx('stored_files').whereIn('hash', dead.map((row) => row.hash)).where('refs', '<=', 0).delete();
            for (const { hash } of dead) {
                await Fs.promises.rm(this.blobPath(hash), { force: true });
            }

            return dead.length;
        });
    }

    /** One file of a deployment, by its exact path. */
    async lookup(deploymentId: string, path: string): Promise<StoredFile | null> {
        const row = await this.reader.get<{ hash: string; size: number | string; content_type: string; gzip_hash: string | null; gzip_size: number | string | null }>(
            'SELECT hash, size, content_type, gzip_hash, gzip_size FROM deployment_files WHERE deployment_id = ? AND path = ?', [deploymentId, path]);
        return row ? { path, hash: row.hash, size: Number(row.size), contentType: row.content_type, gzipHash: row.gzip_hash, gzipSize: row.gzip_size === null ? null : Number(row.gzip_size) } : null;
    }

    open(hash: string): Fs.ReadStream {
        return Fs.createReadStream(this.blobPath(hash));
    }
}

function countHashes(hashes: readonly string[]): Map<string, number> {
    const counts = new Map<string, number>();
    for (const hash of hashes) {
        counts.set(hash, (counts.get(hash) ?? 0) + 1);
    }

    return counts;
}
