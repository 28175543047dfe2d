import * as Http from 'node:http';
import * as Zlib from 'node:zlib';

import type { Server, ServerInjectResponse } from '@hapi/hapi';

import { caller, type TestUser } from './api';
import { eventually } from './apps';
import { multipartBody } from './route-cases';

// Helpers for the sites tests: archives made byte by byte (so a test can make the entries no tool would: `..`,
// absolute paths, links, device files), uploads, and requests to the edge over real HTTP with a tenant's Host.
export interface TarEntry {
    name: string;
    content?: string | Buffer;
    type?: '0' | '1' | '2' | '3' | '4' | '5' | '6';          // file, hard link, symlink, char device, block device, folder, fifo
    linkname?: string;
}

function header(entry: TarEntry, size: number): Buffer {
    const block = Buffer.alloc(512);
    const field = (offset: number, length: number, value: string) => block.write(value, offset, length, 'utf8');
    const octal = (offset: number, length: number, value: number) => field(offset, length, `${value.toString(8).padStart(length - 1, '0')}\0`);
    field(0, 100, entry.name);
    octal(100, 8, entry.type === '5' ? 0o755 : 0o644);
    octal(108, 8, 0);
    octal(116, 8, 0);
    octal(124, 12, size);
    octal(136, 12, 0);
    block.write('        ', 148, 8, 'utf8');
    field(156, 1, entry.type ?? '0');
    field(157, 100, entry.linkname ?? '');
    field(257, 6, 'ustar\0');
    field(263, 2, '00');
    let sum = 0;
    for (const byte of block) {
        sum += byte;
    }

    field(148, 8, `${sum.toString(8).padStart(6, '0')}\0 `);
    return block;
}

/** A tar.gz of the entries, written by hand. */
export function tarGz(entries: readonly TarEntry[]): Buffer {
    const blocks: Buffer[] = [];
    for (const entry of entries) {
        const content = entry.type && entry.type !== '0' ? Buffer.alloc(0) : Buffer.from(entry.content ?? '');
        blocks.push(header(entry, content.length), content, Buffer.alloc((512 - (content.length % 512)) % 512));
    }

    blocks.push(Buffer.alloc(1024));
    return Zlib.gzipSync(Buffer.concat(blocks));
}

/** A zip (stored, no compression) of files; `mode` sets the unix mode in the external attributes. */
export function zip(entries: ReadonlyArray<{ name: string; content?: string; mode?: number }>): Buffer {
    const locals: Buffer[] = [];
    const centrals: Buffer[] = [];
    let offset = 0;
    for (const entry of entries) {
        const name = Buffer.from(entry.name);
        const data = Buffer.from(entry.content ?? '');
        const crc = Zlib.crc32(data);
        const local = Buffer.alloc(30);
        local.writeUInt32LE(0x04034b50, 0);
        local.writeUInt16LE(20, 4);
        local.writeUInt16LE(0x800, 6);
        local.writeUInt32LE(crc, 14);
        local.writeUInt32LE(data.length, 18);
        local.writeUInt32LE(data.length, 22);
        local.writeUInt16LE(name.length, 26);
        const central = Buffer.alloc(46);
        central.writeUInt32LE(0x02014b50, 0);
        central.writeUInt16LE(0x031e, 4);
        central.writeUInt16LE(20, 6);
        central.writeUInt16LE(0x800, 8);
        central.writeUInt32LE(crc, 16);
        central.writeUInt32LE(data.length, 20);
        central.writeUInt32LE(data.length, 24);
        central.writeUInt16LE(name.length, 28);
        central.writeUInt32LE(((entry.mode ?? 0o100644) << 16) >>> 0, 38);
        central.writeUInt32LE(offset, 42);
        locals.push(local, name, data);
        centrals.push(central, name);
        offset += local.length + name.length + data.length;
    }

    const directory = Buffer.concat(centrals);
    const end = Buffer.alloc(22);
    end.writeUInt32LE(0x06054b50, 0);
    end.writeUInt16LE(entries.length, 8);
    end.writeUInt16LE(entries.length, 10);
    end.writeUInt32LE(directory.length, 12);
    end.writeUInt32LE(offset, 16);
    return Buffer.concat([...locals, directory, end]);
}

export function uploadForm(metadata: object | null, archive: Buffer, filename = 'site.tar.gz'): { payload: Buffer; headers: Record<string, string> } {
    const body = multipartBody([
        ...(metadata ? [{ name: 'metadata', json: metadata }] : []),
        { name: 'archive', filename, contentType: 'application/octet-stream', base64: archive.toString('base64') }
    ]);
    return { payload: body.payload, headers: { 'content-type': body.contentType } };
}

export async function createSiteFromUpload(server: Server, user: TestUser, name: string, archive: Buffer, extra: object = {}): Promise<ServerInjectResponse<any>> {
    const form = uploadForm({ name, ...extra }, archive);
    return server.inject({ method: 'POST', url: '/v1/sites/from-upload', headers: { ...form.headers, authorization: user.session }, payload: form.payload });
}

export async function siteLive(server: Server, user: TestUser, name: string, deploymentId: string): Promise<any> {
    const call = caller(() => server);
    await eventually(async () => (await call('GET', `/v1/sites/${name}/deployments/${deploymentId}`, user.session)).result,
        (deployment: any) => ['live', 'failed', 'superseded', 'canceled'].includes(deployment.status), `deployment ${deploymentId}`);
    return (await call('GET', `/v1/sites/${name}`, user.session)).result;
}

export interface EdgeResponse {
    status: number;
    headers: Http.IncomingHttpHeaders;
    body: Buffer;
}

/** A request over real HTTP to the server's port, with the Host header a browser would send. */
export function edgeRequest(port: number, host: string, path: string, options: { method?: string; headers?: Record<string, string> } = {}): Promise<EdgeResponse> {
    return new Promise((resolve, reject) => {
        const request = Http.request({ host: '127.0.0.1', port, path, method: options.method ?? 'GET', headers: { host: `${host}:${port}`, ...options.headers }, agent: false }, (response) => {
            const chunks: Buffer[] = [];
            response.on('data', (chunk: Buffer) => chunks.push(chunk));
            response.on('end', () => resolve({ status: response.statusCode!, headers: response.headers, body: Buffer.concat(chunks) }));
            response.on('error', reject);
        });
        request.on('error', reject);
        request.end();
    });
}
