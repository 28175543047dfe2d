import * as Fs from 'node:fs/promises';
import * as Path from 'node:path';

import type { Knex } from 'knex';

import { isUniqueViolation } from '../../db/errors';
import { DeploymentFailure } from '../driver';

// User code never runs as the control plane. A server running as root gives each resource its own uid and gid from
// RUNTIME_UID_RANGE (recorded in `runtime_uids`, one per resource, unique across every process), and its release
// folders are 0700 and owned by that uid, under a root folder that is root's and only traversable (0711); DATA_DIR
// stays 0700 root, so the tenant's processes cannot read the database or the secrets. Not as root, user code runs as
// the server's own user, which only laptop mode or RUNTIME_SAME_USER allow (the driver refuses to start otherwise).
export interface RunAs {
    uid: number;
    gid: number;
}

export class Users {
    private readonly cache = new Map<string, RunAs>();

    constructor(private readonly knex: Knex, private readonly options: { range: [number, number] }) { }

    /** Whether processes run under their own uid: whenever the server is root (same-user mode only applies otherwise). */
    get separate(): boolean {
        return process.getuid?.() === 0;
    }

    /** The uid and gid a resource's processes run as (null: the server's own user). */
    async of(resourceId: string): Promise<RunAs | null> {
        if (!this.separate) {
            return null;
        }

        const known = this.cache.get(resourceId) ?? await this.read(resourceId);
        if (known) {
            this.cache.set(resourceId, known);
            return known;
        }

        const [low, high] = this.options.range;
        for (let attempt = 0; attempt < 5; attempt++) {
            const row = await this.knex('runtime_uids').max<{ uid: number | null }>({ uid: 'uid' }).first();
            const uid = row?.uid ? Number(row.uid) + 1 : low;
            if (uid > high) {
                throw new DeploymentFailure(`RUNTIME_UID_RANGE (${low}-${high}) has no uid left for another resource: the operator must widen it`);
            }

            try {
                await this.knex('runtime_uids').insert({ resource_id: resourceId, uid });
                return this.of(resourceId);
            }
            catch (err) {
                if (!isUniqueViolation(err)) {
                    throw err;
                }
            }
        }

        throw new Error('No uid could be allocated: other processes took them at the same time; try again');
    }

    /** A fresh folder owned by the resource's user, 0700, under a root that is only traversable. */
    async folder(root: string, name: string, owner: RunAs | null): Promise<string> {
        await Fs.mkdir(root, { recursive: true, mode: 0o711 });
        await Fs.chmod(root, 0o711);
        if (owner) {
            await assertTraversable(root);
        }

        const dir = Path.join(root, name);
        await Fs.rm(dir, { recursive: true, force: true });
        await Fs.mkdir(dir, { mode: 0o700 });
        await this.own(dir, owner);
        return dir;
    }

    /** Gives a folder and everything in it to the resource's user. */
    async own(dir: string, owner: RunAs | null): Promise<void> {
        if (!owner) {
            return;
        }

        await Fs.chown(dir, owner.uid, owner.gid);
        for (const entry of await Fs.readdir(dir, { recursive: true })) {
            await Fs.lchown(Path.join(dir, entry), owner.uid, owner.gid);
        }
    }

    private async read(resourceId: string): Promise<RunAs | null> {
        const row = await this.knex('runtime_uids').where({ resource_id: resourceId }).first<{ uid: number } | undefined>('uid');
        return row ? { uid: Number(row.uid), gid: Number(row.uid) } : null;
    }
}

/** The resource's user must be able to enter its folder: every parent of the release root lets others traverse it. */
async function assertTraversable(root: string): Promise<void> {
    for (let dir = Path.dirname(root); ; dir = Path.dirname(dir)) {
        const stat = await Fs.stat(dir);
        if (!(stat.mode & 0o001)) {
            throw new DeploymentFailure(`The release folders (RUNTIME_DIR, ${root}) are inside ${dir}, which other users cannot enter: set RUNTIME_DIR to a folder whose parents they can traverse, such as /srv/hostless-runtime`);
        }

        if (dir === Path.dirname(dir)) {
            return;
        }
    }
}
