import { once } from 'node:events';
import * as Fs from 'node:fs';
import * as Path from 'node:path';
import { Readable, Transform } from 'node:stream';

import { Parser, type ReadEntry } from 'tar';
import * as Yauzl from 'yauzl';

// Reads an uploaded archive (tar.gz, plain tar or zip, told apart by their first bytes) entry by entry, refusing
// before anything is kept: more compressed bytes, unpacked bytes, entries, or bytes in one file than the limits
// allow (413), and entries that would leave the archive's folder, absolute paths, links and device files (400,
// naming the entry). tar.gz streams through node-tar's parser; a zip needs its central directory, which sits at
// the end, so it is first written to the caller's staging folder (within the compressed limit) and read with yauzl.
export interface ArchiveLimits {
    compressedBytes: number;
    totalBytes: number;
    entries: number;
    fileBytes: number;
}

export const ARCHIVE_LIMITS: ArchiveLimits = { compressedBytes: 100 * 1024 ** 2, totalBytes: 500 * 1024 ** 2, entries: 10_000, fileBytes: 25 * 1024 ** 2 };

/** Why an archive is refused: 400 for what it holds, 413 for its size. */
export class ArchiveRefusal extends Error {
    constructor(readonly status: 400 | 413, message: string) {
        super(message);
    }
}

export interface ArchiveSummary {
    format: 'tar' | 'zip';
    compressedBytes: number;
    entries: number;
    bytes: number;
}

/** Called with each file's normalized path (`/a/b.html`) and content; the stream must be consumed. */
export type OnFile = (path: string, content: Readable) => Promise<void>;

const mib = (bytes: number) => `${Math.round(bytes / 1024 ** 2)} MiB`;
const shown = (name: string) => JSON.stringify(name.length > 200 ? `${name.slice(0, 200)}...` : name);

/** The normalized path of an entry, or the reason it is refused. */
export function entryPath(name: string): string {
    const unix = name.replace(/\\/g, '/');
    if (/[\u0000-\u001f\u007f]/.test(unix)) {
        throw new ArchiveRefusal(400, `The archive entry ${shown(name)} has control characters in its name`);
    }

    if (unix.startsWith('/') || /^[a-zA-Z]:/.test(unix)) {
        throw new ArchiveRefusal(400, `The archive entry ${shown(name)} is an absolute path: entries must be relative to the archive's folder`);
    }

    const segments = unix.split('/').filter((segment) => segment !== '' && segment !== '.');
    if (segments.includes('..')) {
        throw new ArchiveRefusal(400, `The archive entry ${shown(name)} leaves the archive's folder (".."): it is refused`);
    }

    const path = `/${segments.join('/')}`;
    if (path.length > 1024) {
        throw new ArchiveRefusal(400, `The archive entry ${shown(name)} has a path longer than 1024 characters`);
    }

    return path;
}

class Counter {
    entries = 0;
    bytes = 0;

    constructor(readonly limits: ArchiveLimits) { }

    entry(): void {
        if (++this.entries > this.limits.entries) {
            throw new ArchiveRefusal(413, `The archive has more than ${this.limits.entries} entries`);
        }
    }

    /** Checks a file's declared size before its content is read. */
    declared(name: string, size: number): void {
        if (size > this.limits.fileBytes) {
            throw new ArchiveRefusal(413, `The archive entry ${shown(name)} is larger than ${mib(this.limits.fileBytes)}, the limit for one file`);
        }

        if (this.bytes + size > this.limits.totalBytes) {
            throw new ArchiveRefusal(413, `The archive unpacks to more than ${mib(this.limits.totalBytes)}`);
        }
    }

    /** Counts a file's content as it streams, whatever its header said. */
    counting(name: string, content: Readable): Readable {
        let own = 0;
        return content.pipe(new Transform({
            transform: (chunk: Buffer, _encoding, done) => {
                own += chunk.length;
                this.bytes += chunk.length;
                if (own > this.limits.fileBytes) {
                    return done(new ArchiveRefusal(413, `The archive entry ${shown(name)} is larger than ${mib(this.limits.fileBytes)}, the limit for one file`));
                }

                if (this.bytes > this.limits.totalBytes) {
                    return done(new ArchiveRefusal(413, `The archive unpacks to more than ${mib(this.limits.totalBytes)}`));
                }

                done(null, chunk);
            }
        }));
    }
}

/** Reads an archive from a stream; `staging` is a folder the caller removes afterwards. */
export async function readArchive(input: Readable, staging: string, onFile: OnFile, limits: ArchiveLimits = ARCHIVE_LIMITS): Promise<ArchiveSummary> {
    let compressedBytes = 0;
    const chunks = input[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
    const first = await chunks.next();
    const head: Buffer = first.done ? Buffer.alloc(0) : first.value;
    if (head.length === 0) {
        throw new ArchiveRefusal(400, 'The archive is empty');
    }

    const counted = Readable.from((async function* () {
        for (let next: IteratorResult<Buffer> = { done: false, value: head }; !next.done; next = await chunks.next()) {
            compressedBytes += next.value.length;
            if (compressedBytes > limits.compressedBytes) {
                throw new ArchiveRefusal(413, `The archive is larger than ${mib(limits.compressedBytes)}`);
            }

            yield next.value;
        }
    })());
    const counter = new Counter(limits);
    const isZip = head.length >= 4 && head.readUInt32LE(0) === 0x04034b50;
    if (isZip) {
        const file = Path.join(staging, 'upload.zip');
        await new Promise<void>((resolve, reject) => {
            const out = Fs.createWriteStream(file, { mode: 0o600 });
            counted.on('error', (err) => {
                out.destroy();
                reject(err);
            });
            counted.pipe(out).on('finish', resolve).on('error', reject);
        });
        await readZip(file, counter, onFile);
    }
    else {
        await readTar(counted, counter, onFile);
    }

    return { format: isZip ? 'zip' : 'tar', compressedBytes, entries: counter.entries, bytes: counter.bytes };
}

async function readTar(input: Readable, counter: Counter, onFile: OnFile): Promise<void> {
    const pending: Array<Promise<void>> = [];
    let failure: Error | null = null;
    const parser = new Parser({
        strict: true,
        onReadEntry: (entry: ReadEntry) => {
            try {
                counter.entry();
                const path = entryPath(entry.path);
                switch (entry.type) {
                    case 'File':
                    case 'OldFile':
                    case 'ContiguousFile':
                        counter.declared(entry.path, entry.size ?? 0);
                        pending.push(onFile(path, counter.counting(entry.path, entry as unknown as Readable)).catch((err: Error) => {
                            failure ??= err;
                            parser.abort(err);
                        }));
                        return;
                    case 'Directory':
                    case 'GNUDumpDir':
                        entry.resume();
                        return;
                    case 'SymbolicLink':
                    case 'Link':
                        throw new ArchiveRefusal(400, `The archive entry ${shown(entry.path)} is a link: links are refused, put the file itself in the archive`);
                    case 'CharacterDevice':
                    case 'BlockDevice':
                    case 'FIFO':
                        throw new ArchiveRefusal(400, `The archive entry ${shown(entry.path)} is a device file or pipe: only files and folders are accepted`);
                    default:
                        throw new ArchiveRefusal(400, `The archive entry ${shown(entry.path)} is of a kind that is not accepted (${entry.type})`);
                }
            }
            catch (err) {
                failure ??= err as Error;
                entry.resume();
                parser.abort(err as Error);
            }
        }
    });
    const ended = new Promise<void>((resolve, reject) => {
        parser.on('end', resolve);
        parser.on('abort', (err: Error) => reject(failure ?? err));
        parser.on('error', (err: Error) => reject(failure ?? err));
    });
    ended.catch(() => { });
    try {
        for await (const chunk of input) {
            if (failure) {
                break;
            }

            if (!parser.write(chunk as Buffer)) {
                await Promise.race([once(parser, 'drain'), ended]);
            }
        }

        if (!failure) {
            parser.end();
        }

        await ended;
        await Promise.all(pending);
    }
    catch (err) {
        await Promise.allSettled(pending);
        throw failure ?? unreadable(err as Error);
    }

    if (failure) {
        throw failure as Error;
    }
}

async function readZip(file: string, counter: Counter, onFile: OnFile): Promise<void> {
    let zip: Yauzl.ZipFile;
    try {
        zip = await new Promise<Yauzl.ZipFile>((resolve, reject) => Yauzl.open(file, { lazyEntries: true, decodeStrings: false, validateEntrySizes: true, autoClose: false }, (err, opened) => err ? reject(err) : resolve(opened)));
    }
    catch (err) {
        throw unreadable(err as Error);
    }

    try {
        if (zip.entryCount > counter.limits.entries) {
            throw new ArchiveRefusal(413, `The archive has more than ${counter.limits.entries} entries`);
        }

        for (; ;) {
            zip.readEntry();
            const next = await Promise.race([once(zip, 'entry').then(([entry]) => entry as Yauzl.Entry), once(zip, 'end').then(() => null)]);
            if (!next) {
                return;
            }

            counter.entry();
            const raw = next.fileName as unknown as Buffer;
            const name = raw.toString(next.generalPurposeBitFlag & 0x800 ? 'utf8' : 'latin1');
            const path = entryPath(name);
            const mode = (next.externalFileAttributes >>> 16) & 0o170000;
            if (mode === 0o120000) {
                throw new ArchiveRefusal(400, `The archive entry ${shown(name)} is a link: links are refused, put the file itself in the archive`);
            }

            if (mode === 0o020000 || mode === 0o060000 || mode === 0o010000 || mode === 0o140000) {
                throw new ArchiveRefusal(400, `The archive entry ${shown(name)} is a device file or pipe: only files and folders are accepted`);
            }

            if (name.endsWith('/') || mode === 0o040000) {
                continue;
            }

            counter.declared(name, next.uncompressedSize);
            const content = await new Promise<Readable>((resolve, reject) => zip.openReadStream(next, (err, stream) => err ? reject(unreadable(err)) : resolve(stream)));
            await onFile(path, counter.counting(name, content));
        }
    }
    finally {
        zip.close();
    }
}

function unreadable(err: Error): Error {
    if (err instanceof ArchiveRefusal) {
        return err;
    }

    return new ArchiveRefusal(400, `The archive could not be read as a tar.gz or zip file (${err.message.split('\n')[0].slice(0, 200)})`);
}
