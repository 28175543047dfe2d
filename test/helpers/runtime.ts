import * as ChildProcess from 'node:child_process';
import * as Fs from 'node:fs';
import * as Os from 'node:os';
import * as Path from 'node:path';

import type { Config } from '../../manifest/config';
import { processTable } from '../../lib/runtime/process/sampler';

// Helpers for the process runtime's tests: a local Git repository holding a small Node.js HTTP server, the
// configuration of the `process` driver, and the check that no process a test started is left behind.

/** The app the tests deploy: answers its version, pid, port, uid and traceparent; `/read?file=` tries to read a file,
 * `/grow?mib=` holds that much memory, and an upgrade is answered 101 and echoed. */
export function serverSource(version: string): string {
    return `
const http = require('node:http');
const fs = require('node:fs');
const VERSION = ${JSON.stringify(version)};
http.createServer((req, res) => {
    const url = new URL(req.url, 'http://app');
    console.log('GET ' + url.pathname + ' from the app');
    if (url.pathname === '/read') {
        try { fs.readFileSync(url.searchParams.get('file')); res.end('read'); }
        catch (err) { res.end(err.code); }
        return;
    }
    if (url.pathname === '/databases') { res.setHeader('content-type', 'application/json'); res.end(JSON.stringify(Object.fromEntries(Object.entries(process.env).filter(([name]) => name.startsWith('DATABASE_URL'))))); return; }
    if (url.pathname === '/warn') { console.error('something went wrong'); }
    if (url.pathname === '/slow') { setTimeout(() => res.end(JSON.stringify({ version: VERSION, slow: true })), Number(url.searchParams.get('ms'))); return; }
    if (url.pathname === '/grow') { globalThis.ballast = Buffer.alloc(Number(url.searchParams.get('mib')) * 1024 * 1024, 1); }
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ version: VERSION, pid: process.pid, port: process.env.PORT, uid: process.getuid(), traceparent: req.headers.traceparent || null, greeting: process.env.GREETING || null, env: Object.keys(process.env).sort() }));
}).on('upgrade', (req, socket) => {
    // A WebSocket-like upgrade: answer 101, then echo every byte back.
    socket.write('HTTP/1.1 101 Switching Protocols\\r\\nupgrade: websocket\\r\\nconnection: Upgrade\\r\\nx-version: ' + VERSION + '\\r\\n\\r\\n');
    socket.pipe(socket);
}).listen(Number(process.env.PORT), '127.0.0.1');
`;
}

/** A worker: a line every 100 ms until stopped. */
export function workerSource(): string {
    return `
let n = 0;
setInterval(() => console.log('tick ' + (++n) + ' ' + (process.env.WORKER_GREETING || '')), 100);
process.on('SIGTERM', () => { console.log('worker stopping'); process.exit(0); });
`;
}

const git = (cwd: string, ...args: string[]) => ChildProcess.execFileSync('git', args, { cwd, stdio: 'pipe', env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@example.com', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@example.com' } }).toString().trim();

export interface TestRepository {
    dir: string;
    url: string;
    commit(files: Record<string, string>, message?: string): string;
    head(): string;
    remove(): void;
}

/** A Git repository on the local disk (branch main), reachable as a file:// URL. */
export function testRepository(files: Record<string, string>): TestRepository {
    const dir = Fs.mkdtempSync(Path.join(Os.tmpdir(), 'hostless-repo-'));
    git(dir, 'init', '--quiet', '--initial-branch=main');
    const repository: TestRepository = {
        dir,
        url: `file://${dir}`,
        commit(changed, message = 'change') {
            for (const [name, content] of Object.entries(changed)) {
                Fs.writeFileSync(Path.join(dir, name), content);
            }

            git(dir, 'add', '-A');
            git(dir, 'commit', '--quiet', '-m', message);
            return git(dir, 'rev-parse', 'HEAD');
        },
        head: () => git(dir, 'rev-parse', 'HEAD'),
        remove: () => Fs.rmSync(dir, { recursive: true, force: true })
    };
    repository.commit(files, 'first');
    return repository;
}

/** The `process` driver's configuration for a test (file:// repositories allowed; a short health deadline; release
 * folders beside the data folder, `<dataDir>-runtime`). */
export function processRuntime(overrides: Partial<Config['runtime']> = {}): Config['runtime'] {
    return {
        driver: 'process', recordsStepDelayMs: 0, allowFileGit: true, sameUser: false, uidRange: [23000, 23999],
        healthPath: '/', healthTimeoutMs: 5000, buildTimeoutMs: 60_000, metricsRetentionDays: 14, ...overrides
    };
}

/** The processes still running in any of these process groups (none once a test is over; zombies have exited). */
export async function leftovers(groups: Iterable<number>): Promise<number[]> {
    const wanted = new Set(groups);
    return (await processTable()).filter((proc) => proc.state !== 'Z' && (wanted.has(proc.pgrp) || wanted.has(proc.pid))).map((proc) => proc.pid);
}
