import * as ChildProcess from 'node:child_process';
import * as Crypto from 'node:crypto';
import * as Fs from 'node:fs';
import * as Os from 'node:os';
import * as Path from 'node:path';
import * as Util from 'node:util';

import { freePort } from '../../lib/free-port';

// A PostgreSQL cluster of a test's own: the machine's server trusts every local connection, so a test that must see
// a wrong password fail runs `initdb --auth=scram-sha-256` into a temporary folder as the `postgres` OS user, starts
// it on a free port of 127.0.0.1, and stops and deletes it after, even when the test failed (and, should the process
// exit first, on exit). TEST_PG_BIN names the folder of initdb and pg_ctl (e.g. /usr/lib/postgresql/15/bin); without
// it the tests that need a cluster report themselves skipped.
export const pgBin = process.env.TEST_PG_BIN ?? null;

const execFile = Util.promisify(ChildProcess.execFile);
const OS_USER = 'postgres';
const running = new Set<PgCluster>();

export interface PgCluster {
    host: string;
    port: number;
    adminPassword: string;
    url: string;                                                // the superuser `postgres`, with its password
    dir: string;
    /** The postmaster and every process it started, as seen now. */
    processes(): number[];
    stop(): Promise<void>;
}

export async function startCluster(): Promise<PgCluster> {
    if (!pgBin) {
        throw new Error('TEST_PG_BIN is not set');
    }

    const dir = Fs.mkdtempSync(Path.join(Os.tmpdir(), 'hostless-pg-'));
    const uid = Number((await execFile('id', ['-u', OS_USER])).stdout.trim());
    const gid = Number((await execFile('id', ['-g', OS_USER])).stdout.trim());
    Fs.chownSync(dir, uid, gid);
    Fs.chmodSync(dir, 0o700);
    const adminPassword = Crypto.randomBytes(18).toString('base64url');
    const pwfile = Path.join(dir, 'pw');
    Fs.writeFileSync(pwfile, `${adminPassword}\n`, { mode: 0o600 });
    Fs.chownSync(pwfile, uid, gid);
    const data = Path.join(dir, 'data');
    const socket = Path.join(dir, 'sock');
    Fs.mkdirSync(socket);
    Fs.chownSync(socket, uid, gid);
    const port = await freePort();
    const asPostgres = (binary: string, args: string[]) => execFile('runuser', ['-u', OS_USER, '--', Path.join(pgBin, binary), ...args], { timeout: 120_000 });

    let postmaster: number | null = null;
    const cluster: PgCluster = {
        host: '127.0.0.1',
        port,
        adminPassword,
        url: `postgres://postgres:${encodeURIComponent(adminPassword)}@127.0.0.1:${port}/postgres`,
        dir,
        processes: () => postmaster ? [postmaster, ...childrenOf(postmaster)] : [],
        stop: async () => {
            running.delete(cluster);
            try {
                if (postmaster) {
                    await asPostgres('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']).catch(() => undefined);
                    await gone(postmaster);
                }
            }
            finally {
                Fs.rmSync(dir, { recursive: true, force: true });
            }
        }
    };
    running.add(cluster);
    try {
        await asPostgres('initdb', ['-D', data, '--auth=scram-sha-256', '--username=postgres', `--pwfile=${pwfile}`, '--encoding=UTF8', '--no-sync']);
        await asPostgres('pg_ctl', ['-D', data, '-l', Path.join(dir, 'log'), '-w', '-t', '60',
            '-o', `-p ${port} -k ${socket} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=60`, 'start']);
        postmaster = Number(Fs.readFileSync(Path.join(data, 'postmaster.pid'), 'utf8').split('\n')[0]);
    }
    catch (err) {
        await cluster.stop();
        throw err;
    }

    return cluster;
}

/** Processes whose parent is `pid`, from /proc. */
export function childrenOf(pid: number): number[] {
    return Fs.readdirSync('/proc').filter((entry) => /^\d+$/.test(entry)).flatMap((entry) => {
        try {
            const stat = Fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
            const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
            return ppid === pid ? [Number(entry)] : [];
        }
        catch {
            return [];
        }
    });
}

/** Live processes whose command line holds `text`. */
export function processesMentioning(text: string): number[] {
    return Fs.readdirSync('/proc').filter((entry) => /^\d+$/.test(entry) && Number(entry) !== process.pid).flatMap((entry) => {
        try {
            return Fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(text) ? [Number(entry)] : [];
        }
        catch {
            return [];
        }
    });
}

export function alive(pid: number): boolean {
    try {
        process.kill(pid, 0);
        return true;
    }
    catch {
        return false;
    }
}

async function gone(pid: number): Promise<void> {
    for (let tries = 0; alive(pid) && tries < 300; ++tries) {
        await new Promise((resolve) => setTimeout(resolve, 20));
    }

    if (alive(pid)) {
        process.kill(pid, 'SIGKILL');
    }
}


// The last resort: a run that exits with a cluster still up stops it and removes its folder.
process.once('exit', () => {
    for (const cluster of running) {
        try {
            ChildProcess.execFileSync('runuser', ['-u', OS_USER, '--', Path.join(pgBin!, 'pg_ctl'), '-D', Path.join(cluster.dir, 'data'), '-m', 'immediate', 'stop'], { stdio: 'ignore' });
        }
        catch {
            // already stopped
        }

        Fs.rmSync(cluster.dir, { recursive: true, force: true });
    }
});
