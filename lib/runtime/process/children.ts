import * as ChildProcess from 'node:child_process';

import type { RuntimeClock } from './clock';

// User code as supervised child processes: each command runs through `sh -c` as the leader of its own process
// group (so a stop reaches everything it started), wrapped by `prlimit` (open files, processes, no core dumps),
// under the resource's uid and gid when the server runs as root, with exactly the environment it is given. Its
// stdout and stderr come back line by line (a longer line is cut after 32 KiB and one character, which the log
// store cuts at 32 KiB and marks `truncated`). Every group started here is tracked,
// so a stopping server leaves none behind.
export const MAX_LINE = 32 * 1024;

export interface SpawnOptions {
    command: string;
    cwd: string;
    env: Record<string, string>;
    user?: { uid: number; gid: number } | null;
    limits?: { nofile?: number; nproc?: number };
    onLine(stream: 'stdout' | 'stderr', line: string): void;
}

export interface Exit {
    code: number | null;
    signal: NodeJS.Signals | null;
}

export class Group {
    readonly exited: Promise<Exit>;
    private done = false;

    constructor(readonly child: ChildProcess.ChildProcess, private readonly onDone: (group: Group) => void) {
        this.exited = new Promise<Exit>((resolve) => {
            child.once('error', () => this.finish(resolve, { code: 127, signal: null }));
            child.once('close', (code, signal) => this.finish(resolve, { code, signal }));
        });
    }

    get pid(): number {
        return this.child.pid ?? 0;
    }

    get running(): boolean {
        return !this.done;
    }

    /** Signals the whole group (the leader and everything it started); a group already gone is left alone. */
    signal(signal: NodeJS.Signals): void {
        if (this.pid) {
            try {
                process.kill(-this.pid, signal);
            }
            catch { /* already gone */ }
        }
    }

    /** SIGTERM, then SIGKILL after `graceMs`; resolves when the leader exited. */
    async stop(clock: RuntimeClock, graceMs: number): Promise<Exit> {
        this.signal('SIGTERM');
        const timer = new AbortController();
        const exit = await Promise.race([this.exited, clock.sleep(graceMs, timer.signal).then(() => null, () => null)]);
        timer.abort();
        if (exit) {
            this.signal('SIGKILL');                             // what the leader left behind in its group
            return exit;
        }

        this.signal('SIGKILL');
        return this.exited;
    }

    private finish(resolve: (exit: Exit) => void, exit: Exit): void {
        if (!this.done) {
            this.done = true;
            this.onDone(this);
            resolve(exit);
        }
    }
}

export class Children {
    private readonly groups = new Set<Group>();

    constructor(private readonly options: { prlimit: string | null }) { }

    get count(): number {
        return this.groups.size;
    }

    pids(): number[] {
        return [...this.groups].map((group) => group.pid).filter(Boolean);
    }

    spawn(options: SpawnOptions): Group {
        const limits = options.limits ?? {};
        const argv = this.options.prlimit
            ? [this.options.prlimit, `--nofile=${limits.nofile ?? 4096}`, '--core=0', ...(limits.nproc ? [`--nproc=${limits.nproc}`] : []), '--', '/bin/sh', '-c', options.command]
            : ['/bin/sh', '-c', options.command];
        const child = ChildProcess.spawn(argv[0], argv.slice(1), {
            cwd: options.cwd, env: options.env, detached: true, stdio: ['ignore', 'pipe', 'pipe'],
            ...(options.user ? { uid: options.user.uid, gid: options.user.gid } : {})
        });
        const group = new Group(child, (done) => this.groups.delete(done));
        this.groups.add(group);
        lines(child.stdout, (line) => options.onLine('stdout', line));
        lines(child.stderr, (line) => options.onLine('stderr', line));
        return group;
    }

    /** Stops every group still running (the server is stopping). */
    async stopAll(clock: RuntimeClock, graceMs: number): Promise<void> {
        await Promise.all([...this.groups].map((group) => group.stop(clock, graceMs)));
    }
}

/** Splits a stream into lines; a line longer than MAX_LINE is passed on cut (MAX_LINE + 1 characters), the rest dropped. */
export function lines(stream: NodeJS.ReadableStream, onLine: (line: string) => void): void {
    let buffer = '';
    let skipping = false;
    stream.setEncoding('utf8');
    stream.on('data', (chunk: string) => {
        buffer += chunk;
        let at: number;
        while ((at = buffer.indexOf('\n')) !== -1) {
            const line = buffer.slice(0, at).replace(/\r$/, '');
            buffer = buffer.slice(at + 1);
            if (!skipping) {
                onLine(line.length > MAX_LINE ? line.slice(0, MAX_LINE + 1) : line);
            }

            skipping = false;
        }

        if (buffer.length > MAX_LINE) {
            if (!skipping) {
                onLine(buffer.slice(0, MAX_LINE + 1));
            }

            skipping = true;
            buffer = '';
        }
    });
    stream.on('end', () => {
        if (buffer && !skipping) {
            onLine(buffer);
        }
    });
}
