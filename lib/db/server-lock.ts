import * as Fs from 'node:fs';

// SQLite is one server: the process that opens a port on a SQLite database holds `<database>.server-lock` (its pid),
// and a second process that would open a port on the same database is refused at boot. Processes that open no port
// (`npm run cli`, a JOBS_MODE=worker process) take no lock and run beside it; SQLite's own locking keeps their writes
// safe. A lock whose process is gone (killed, crashed) is taken over.

const held = new Map<string, number>();                         // lock file -> servers of this process holding it

const alive = (pid: number): boolean => {
    try {
        process.kill(pid, 0);
        return true;
    }
    catch (err) {
        return (err as NodeJS.ErrnoException).code === 'EPERM'; // someone else's process
    }
};

export function serverLockFile(databaseFile: string): string {
    return `${databaseFile}.server-lock`;
}

/** Takes the lock for this process: answers its release, or the pid of the live process that holds it. */
export function acquireServerLock(databaseFile: string): { release: () => void } | { holder: number } {
    const file = serverLockFile(databaseFile);
    const release = () => {
        const count = (held.get(file) ?? 1) - 1;
        if (count > 0) {
            held.set(file, count);
            return;
        }

        held.delete(file);
        if (readHolder(file) === process.pid) {
            Fs.rmSync(file, { force: true });
        }
    };

    if (held.has(file)) {
        held.set(file, held.get(file)! + 1);
        return { release };
    }

    for (let attempt = 0; attempt < 2; ++attempt) {
        try {
            Fs.writeFileSync(file, `${process.pid}\n`, { flag: 'wx', mode: 0o600 });
            held.set(file, 1);
            return { release };
        }
        catch (err) {
            if ((err as NodeJS.ErrnoException).code !== 'EEXIST') {
                throw err;
            }
        }

        const holder = readHolder(file);
        if (holder && holder !== process.pid && alive(holder)) {
            return { holder };
        }

        Fs.rmSync(file, { force: true });                       // a stale lock: its process is gone
    }

    return { holder: readHolder(file) ?? 0 };
}

function readHolder(file: string): number | null {
    try {
        const pid = Number.parseInt(Fs.readFileSync(file, 'utf8'), 10);
        return Number.isInteger(pid) && pid > 0 ? pid : null;
    }
    catch {
        return null;
    }
}

/** Releases this process's locks when it exits without stopping its servers. */
process.once('exit', () => {
    for (const file of held.keys()) {
        if (readHolder(file) === process.pid) {
            Fs.rmSync(file, { force: true });
        }
    }
});
