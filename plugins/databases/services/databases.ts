import * as Boom from '@hapi/boom';
import type { Knex } from 'knex';

import { decryptSecret, encryptSecret } from '../../../lib/crypto';
import { isUniqueViolation } from '../../../lib/db/errors';
import { newId } from '../../../lib/ids';
import type { PlanName } from '../../../lib/plans';
import type { DatabaseCredentials, DatabaseProvisioner, DatabaseTarget } from '../../../lib/provisioner/driver';
import { NotOursError, physicalName } from '../../../lib/provisioner/driver';
import type { DatabaseCreate, DatabasePatch } from '../../../lib/provisioner/fields';
import { DATABASE_TIERS } from '../../../lib/provisioner/tiers';
import { removeOwned } from '../../../lib/resources/cascade';
import { Lifecycle, type StateMachine } from '../../../lib/resources/lifecycle';
import { refOf, type ResourceRef } from '../../../lib/resources/model';
import type { RuntimeServices } from '../../../lib/resources/services';
import type { JobContext, JobQueue } from '../../../lib/queue/types';
import type { LogLevel } from '../../../lib/runtime/driver';
import { nowIso } from '../../../lib/time';
import { Database, type DatabaseStatus } from '../models/database';

// A database's life: created provisioning (a job asks the provisioner to make it), available, paused and back,
// importing (imports.ts), deleting (a job drops it, then the record and everything it owns go). Each change is
// checked against the state machine, recorded as an event line of the database and, where billing meters it
// (running, tier, storage), as an allocation event. The provisioner acts first; the record follows only if no
// other request moved the database meanwhile (the provisioner's change is undone otherwise).
export const PROVISION_JOB = 'databases.provision';
export const DELETE_JOB = 'databases.delete';

type Action = 'provisioned' | 'provisionFailed' | 'pause' | 'unpause' | 'resize' | 'import' | 'imported' | 'delete' | 'deleteFailed';

const MACHINE: StateMachine<DatabaseStatus, Action> = {
    provisioned: { from: ['provisioning'], to: 'available', verb: 'finish provisioning' },
    provisionFailed: { from: ['provisioning'], to: 'failed', verb: 'fail' },
    pause: { from: ['available'], to: 'paused' },
    unpause: { from: ['paused'], to: 'available' },
    resize: { from: ['available', 'paused'], verb: 'change the tier or storage of' },
    import: { from: ['available'], to: 'importing', verb: 'import into' },
    imported: { from: ['importing'], to: 'available', verb: 'finish the import into' },
    delete: { from: ['available', 'paused', 'failed'], to: 'deleting' },
    deleteFailed: { from: ['deleting'], to: 'failed', verb: 'fail' }
};

export interface DatabasesServiceOptions {
    services: RuntimeServices;
    queue: JobQueue;
    provisioner: DatabaseProvisioner;
    sealKey: Buffer;
}

export class DatabasesService {
    readonly lifecycle = new Lifecycle<DatabaseStatus, Action>('databases', MACHINE, (row) => `the database ${(row as Database).name}`);
    readonly knex: Knex;
    private readonly records: DatabaseProvisioner | null;

    constructor(readonly options: DatabasesServiceOptions, records: DatabaseProvisioner) {
        this.knex = options.services.knex;
        this.records = options.provisioner.name === 'records' ? null : records;
    }

    get provisionerName(): string {
        return this.options.provisioner.name;
    }

    ref(database: Database): ResourceRef {
        return refOf('database', database);
    }

    target(database: Pick<Database, 'id' | 'physicalName' | 'tier'>, tier: PlanName = database.tier): DatabaseTarget {
        return { id: database.id, physicalName: database.physicalName, connectionLimit: DATABASE_TIERS[tier].connections };
    }

    /** The provisioner that made the database: the configured one, or `records` for what it recorded before. */
    provisioner(database: Database): DatabaseProvisioner {
        if (database.driver === this.options.provisioner.name) {
            return this.options.provisioner;
        }

        if (database.driver === 'records' && this.records) {
            return this.records;
        }

        throw Boom.conflict(`The database ${database.name} was made by the ${database.driver} provisioner, which this platform is not configured with`);
    }

    /** What the database occupies on its server, when its provisioner measures it (null otherwise, or when it cannot be asked). */
    async size(database: Database): Promise<number | null> {
        if (database.status !== 'available' && database.status !== 'paused') {
            return null;
        }

        try {
            return await this.provisioner(database).size(this.target(database));
        }
        catch {
            return null;
        }
    }

    credentials(database: Database): DatabaseCredentials | null {
        return database.credentials ? JSON.parse(decryptSecret(database.credentials, this.options.sealKey)) as DatabaseCredentials : null;
    }

    seal(text: string): string {
        return encryptSecret(text, this.options.sealKey);
    }

    open(sealed: string): string {
        return decryptSecret(sealed, this.options.sealKey);
    }

    async create(projectId: string, input: DatabaseCreate): Promise<Database> {
        const versions = await act(() => this.options.provisioner.versions());
        const version = input.version ?? versions[0];
        if (!versions.includes(version)) {
            throw Boom.badRequest(`"version" must be one of ${versions.join(', ')}: the PostgreSQL versions this platform offers`);
        }

        const tier = input.tier ?? 'starter';
        const storageGib = input.storageGiB ?? 1;
        if (storageGib > DATABASE_TIERS[tier].maxStorageGiB) {
            throw Boom.badRequest(`"storageGiB" must be at most ${DATABASE_TIERS[tier].maxStorageGiB} on the ${tier} tier`);
        }

        const id = newId('db');
        const now = nowIso();
        try {
            return await this.knex.transaction(async (trx) => {
                const database = await Database.query(trx).insertAndFetch({
                    id, name: input.name, projectId, status: 'provisioning', engine: 'postgres', version, tier, storageGib,
                    driver: this.options.provisioner.name, physicalName: physicalName(id), credentials: null, error: null, createdAt: now, updatedAt: now
                });
                await this.options.queue.enqueue(PROVISION_JOB, { databaseId: id }, { trx, idempotencyKey: `database:provision:${id}` });
                await this.options.services.allocation.record(trx, this.ref(database), 'created', { running: false, instances: 1, plan: tier, storageGiB: storageGib });
                await this.event(trx, database, 'info', `Database ${database.name} created: PostgreSQL ${version}, ${tier} tier, ${storageGib} GiB (${database.driver} provisioner)`);
                return database;
            });
        }
        catch (err) {
            throw isUniqueViolation(err) ? Boom.conflict(`The name ${input.name} is taken`) : err;
        }
    }

    /** The job: asks the provisioner for the database, then makes it available (or failed, on its last attempt). */
    async provision(databaseId: string, job: JobContext): Promise<void> {
        const database = await Database.query(this.knex).findById(databaseId);
        if (database?.status !== 'provisioning') {
            return;
        }

        let credentials: DatabaseCredentials | null;
        try {
            credentials = await this.provisioner(database).create(this.target(database));
        }
        catch (err) {
            if (err instanceof NotOursError || job.attempt >= job.maxAttempts) {
                const reason = err instanceof NotOursError ? err.message : 'The provisioner could not make the database; it was retried and gave up';
                await this.knex.transaction(async (trx) => {
                    await this.lifecycle.move(trx, database, 'provisionFailed', { error: reason });
                    await this.event(trx, database, 'error', `Provisioning failed: ${reason}`);
                });
                return;
            }

            throw err;
        }

        await this.knex.transaction(async (trx) => {
            await this.lifecycle.move(trx, database, 'provisioned', { credentials: credentials ? this.seal(JSON.stringify(credentials)) : null, error: null });
            await this.options.services.allocation.record(trx, this.ref(database), 'started', { running: true });
            await this.event(trx, database, 'info', credentials ? `Available: role and database ${database.physicalName} made` : 'Available (the records provisioner made nothing)');
        });
    }

    async change(database: Database, input: DatabasePatch): Promise<Database> {
        const tier = input.tier ?? database.tier;
        const storageGib = input.storageGiB ?? database.storageGib;
        if (storageGib < database.storageGib) {
            throw Boom.conflict(`Storage can only grow: the database ${database.name} has ${database.storageGib} GiB`);
        }

        if (storageGib > DATABASE_TIERS[tier].maxStorageGiB) {
            throw Boom.conflict(`The ${tier} tier holds at most ${DATABASE_TIERS[tier].maxStorageGiB} GiB, and the database ${database.name} would have ${storageGib} GiB`);
        }

        this.lifecycle.next(database, 'resize');
        if (tier === database.tier && storageGib === database.storageGib) {
            return database;
        }

        const provisioner = this.provisioner(database);
        if (tier !== database.tier) {
            await act(() => provisioner.resize(this.target(database, tier)));
        }

        return this.undoing(() => provisioner.resize(this.target(database)), tier !== database.tier, async (trx) => {
            await this.lifecycle.move(trx, database, 'resize', { tier, storage_gib: storageGib });
            const ref = this.ref(database);
            if (tier !== database.tier) {
                await this.options.services.allocation.record(trx, ref, 'plan', { plan: tier });
                await this.event(trx, database, 'info', `Tier changed from ${database.tier} to ${tier} (${DATABASE_TIERS[tier].connections} connections)`);
            }

            if (storageGib !== database.storageGib) {
                await this.options.services.allocation.record(trx, ref, 'storage', { storageGiB: storageGib });
                await this.event(trx, database, 'info', `Storage grown from ${database.storageGib} GiB to ${storageGib} GiB`);
            }
        }, database);
    }

    async pause(database: Database): Promise<Database> {
        this.lifecycle.next(database, 'pause');
        const provisioner = this.provisioner(database);
        await act(() => provisioner.pause(this.target(database)));
        return this.undoing(() => provisioner.unpause(this.target(database)), true, async (trx) => {
            await this.lifecycle.move(trx, database, 'pause');
            await this.options.services.allocation.record(trx, this.ref(database), 'stopped', { running: false });
            await this.event(trx, database, 'info', 'Paused: connections are refused');
        }, database);
    }

    async unpause(database: Database): Promise<Database> {
        this.lifecycle.next(database, 'unpause');
        const provisioner = this.provisioner(database);
        await act(() => provisioner.unpause(this.target(database)));
        return this.undoing(() => provisioner.pause(this.target(database)), true, async (trx) => {
            await this.lifecycle.move(trx, database, 'unpause');
            await this.options.services.allocation.record(trx, this.ref(database), 'started', { running: true });
            await this.event(trx, database, 'info', 'Unpaused: connections are accepted');
        }, database);
    }

    /** Marks the database deleting; a job drops it and removes the record. */
    async remove(database: Database): Promise<Database> {
        this.provisioner(database);
        return this.knex.transaction(async (trx) => {
            await this.lifecycle.move(trx, database, 'delete', { error: null });
            await this.options.queue.enqueue(DELETE_JOB, { databaseId: database.id }, { trx, idempotencyKey: `database:delete:${database.id}:${nowIso()}` });
            await this.event(trx, database, 'info', 'Deletion requested');
            return (await Database.query(trx).findById(database.id))!;
        });
    }

    /** The job: drops the database on its server, then removes the record and what it owns, in one transaction. */
    async destroy(databaseId: string, job: JobContext): Promise<void> {
        const database = await Database.query(this.knex).findById(databaseId);
        if (database?.status !== 'deleting') {
            return;
        }

        try {
            await this.provisioner(database).drop(this.target(database));
        }
        catch (err) {
            if (err instanceof NotOursError || job.attempt >= job.maxAttempts) {
                const reason = err instanceof NotOursError ? err.message : 'The provisioner could not drop the database; it was retried and gave up';
                await this.knex.transaction(async (trx) => {
                    await this.lifecycle.move(trx, database, 'deleteFailed', { error: reason });
                    await this.event(trx, database, 'error', `Deletion failed: ${reason}`);
                });
                return;
            }

            throw err;
        }

        await this.knex.transaction(async (trx) => {
            await removeOwned(trx, this.ref(database));
            await Database.query(trx).deleteById(database.id);     // its imports and links follow by foreign key
            await this.options.services.allocation.record(trx, this.ref(database), 'deleted', { running: false, instances: 0, storageGiB: 0 });
        });
    }

    async event(db: Knex | Knex.Transaction, database: Database, level: LogLevel, message: string): Promise<void> {
        await this.options.services.logs.write(db, { resourceType: 'database', resourceId: database.id, projectId: database.projectId, stream: 'event', level, message });
    }

    /**
     * Records a change the provisioner already made; should another request have moved the database first (the record
     * refuses with 409), the provisioner's change is undone before the refusal is passed on.
     */
    private async undoing(undo: () => Promise<void>, made: boolean, record: (trx: Knex.Transaction) => Promise<void>, database: Database): Promise<Database> {
        try {
            await this.knex.transaction(record);
        }
        catch (err) {
            if (made) {
                await undo().catch(() => { });
            }

            throw err;
        }

        return (await Database.query(this.knex).findById(database.id))!;
    }
}

/**
 * A provisioner's change made in a request: what it refuses to touch is a 409 naming it; a server that cannot be
 * reached (or fails) is a 503 that says nothing was changed, without the server's own words.
 */
async function act<T>(work: () => Promise<T>): Promise<T> {
    try {
        return await work();
    }
    catch (err) {
        if (err instanceof NotOursError) {
            throw Boom.conflict(err.message);
        }

        throw Boom.isBoom(err) ? err : Boom.serverUnavailable('The database server did not make the change (it could not be reached, or refused it): nothing was changed; try again', { cause: String(err) });
    }
}
