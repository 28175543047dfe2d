import * as Boom from '@hapi/boom';
import type { Knex } from 'knex';

import { newId } from '../../../lib/ids';
import type { JobContext, JobQueue } from '../../../lib/queue/types';
import { removeOwned } from '../../../lib/resources/cascade';
import { Lifecycle, type StateMachine } from '../../../lib/resources/lifecycle';
import { refOf, type ResourceRef } from '../../../lib/resources/model';
import type { RuntimeServices } from '../../../lib/resources/services';
import { nowIso } from '../../../lib/time';
import type { VmCatalogue, VmSize } from '../../../lib/vm/catalogue';
import { VmFailure, type VmDriver, type VmTarget } from '../../../lib/vm/driver';
import { DEFAULT_RULES, type FirewallRule } from '../../../lib/vm/firewall';
import { VirtualMachine, type VmSshKey, type VmStatus } from '../models/vm';

// A virtual machine's life: created provisioning (a job has the driver boot it), running, stopped and started again,
// restarting (a job), deleting (a job has the driver remove it, then the record goes). Every move is checked against
// the state machine; what billing meters (running, size, disk) is recorded as allocation events in the move's
// transaction. The driver acts before the record changes; a move another request made first undoes it.
export const PROVISION_JOB = 'vms.provision';
export const RESTART_JOB = 'vms.restart';
export const DELETE_JOB = 'vms.delete';

type Action = 'provisioned' | 'provisionFailed' | 'start' | 'stop' | 'restart' | 'restarted' | 'resize' | 'firewall' | 'delete' | 'deleteFailed';

const MACHINE: StateMachine<VmStatus, Action> = {
    provisioned: { from: ['provisioning'], to: 'running', verb: 'finish provisioning' },
    provisionFailed: { from: ['provisioning'], to: 'failed', verb: 'fail' },
    start: { from: ['stopped'], to: 'running' },
    stop: { from: ['running'], to: 'stopped' },
    restart: { from: ['running'], to: 'restarting' },
    restarted: { from: ['restarting'], to: 'running', verb: 'finish restarting' },
    resize: { from: ['stopped'], verb: 'change the resources of' },
    firewall: { from: ['provisioning', 'running', 'stopped', 'restarting'], verb: 'change the firewall of' },
    delete: { from: ['running', 'stopped', 'failed'], to: 'deleting' },
    deleteFailed: { from: ['deleting'], to: 'failed', verb: 'fail' }
};

export interface VmCreate {
    projectId?: string;
    name: string;
    size: string;
    image: string;
    region: string;
    sshKeys?: string[];
}

export interface VmsServiceOptions {
    services: RuntimeServices;
    queue: JobQueue;
    driver: VmDriver;
    catalogue: VmCatalogue;
}

export class VmsService {
    readonly lifecycle = new Lifecycle<VmStatus, Action>('virtual_machines', MACHINE, (row) => `the virtual machine ${row.id}`);
    readonly knex: Knex;

    constructor(readonly options: VmsServiceOptions) {
        this.knex = options.services.knex;
    }

    ref(vm: VirtualMachine): ResourceRef {
        return refOf('vm', vm);
    }

    target(vm: VirtualMachine): VmTarget {
        return {
            id: vm.id, name: vm.name, size: vm.size, image: vm.image, region: vm.region, vcpus: vm.vcpus, memoryMiB: vm.memoryMib, diskGiB: vm.diskGib,
            sshKeys: vm.sshKeys.map(({ name, fingerprint, publicKey }) => ({ name, fingerprint, publicKey })), firewall: vm.firewall
        };
    }

    size(slug: string): VmSize {
        return this.options.catalogue.sizes.find((size) => size.slug === slug)!;
    }

    /** The machine's record (provisioning) and the job that boots it; SSH keys are the caller's own, copied in. */
    async create(projectId: string, userId: string, input: VmCreate): Promise<VirtualMachine> {
        const size = this.size(input.size);
        const keys = await this.sshKeys(userId, input.sshKeys);
        const now = nowIso();
        return this.knex.transaction(async (trx) => {
            const vm = await VirtualMachine.query(trx).insertAndFetch({
                id: newId('vm'), name: input.name, projectId, status: 'provisioning', driver: this.options.driver.name,
                size: size.slug, image: input.image, region: input.region, vcpus: size.vcpus, memoryMib: size.memoryMiB, diskGib: size.diskGiB,
                pricingVersion: this.options.catalogue.version, sshKeys: keys, firewall: [...DEFAULT_RULES], firewallUpdatedAt: now,
                ipv4: null, error: null, createdAt: now, updatedAt: now
            });
            await this.options.queue.enqueue(PROVISION_JOB, { vmId: vm.id }, { trx, idempotencyKey: `vm:provision:${vm.id}` });
            await this.options.services.allocation.record(trx, this.ref(vm), 'created', { running: false, instances: 1, plan: size.slug, storageGiB: size.diskGiB });
            return vm;
        });
    }

    async provision(vmId: string, job: JobContext): Promise<void> {
        const vm = await VirtualMachine.query(this.knex).findById(vmId);
        if (vm?.status !== 'provisioning') {
            return;
        }

        let ipv4: string | null;
        try {
            ({ ipv4 } = await this.options.driver.create(this.target(vm), { signal: job.signal }));
        }
        catch (err) {
            if (err instanceof VmFailure || job.attempt >= job.maxAttempts) {
                await this.lifecycle.move(this.knex, vm, 'provisionFailed', { error: err instanceof VmFailure ? err.message : 'The driver could not create the machine; it was retried and gave up' });
                return;
            }

            throw err;
        }

        await this.knex.transaction(async (trx) => {
            await this.lifecycle.move(trx, vm, 'provisioned', { ipv4, error: null });
            await this.options.services.allocation.record(trx, this.ref(vm), 'started', { running: true });
        });
    }

    async start(vm: VirtualMachine): Promise<VirtualMachine> {
        this.lifecycle.next(vm, 'start');
        await this.options.driver.start(this.target(vm));
        return this.recording(vm, () => this.options.driver.stop(this.target(vm)), async (trx) => {
            await this.lifecycle.move(trx, vm, 'start');
            await this.options.services.allocation.record(trx, this.ref(vm), 'started', { running: true });
        });
    }

    async stop(vm: VirtualMachine): Promise<VirtualMachine> {
        this.lifecycle.next(vm, 'stop');
        await this.options.driver.stop(this.target(vm));
        return this.recording(vm, () => this.options.driver.start(this.target(vm)), async (trx) => {
            await this.lifecycle.move(trx, vm, 'stop');
            await this.options.services.allocation.record(trx, this.ref(vm), 'stopped', { running: false });
        });
    }

    async restart(vm: VirtualMachine): Promise<VirtualMachine> {
        return this.knex.transaction(async (trx) => {
            await this.lifecycle.move(trx, vm, 'restart');
            await this.options.queue.enqueue(RESTART_JOB, { vmId: vm.id }, { trx });
            return (await VirtualMachine.query(trx).findById(vm.id))!;
        });
    }

    async restarted(vmId: string, job: JobContext): Promise<void> {
        const vm = await VirtualMachine.query(this.knex).findById(vmId);
        if (vm?.status !== 'restarting') {
            return;
        }

        try {
            await this.options.driver.restart(this.target(vm), { signal: job.signal });
        }
        catch (err) {
            if (!(err instanceof VmFailure) && job.attempt < job.maxAttempts) {
                throw err;
            }

            // A machine that did not come back is still there: it is recorded running, with what went wrong.
            await this.lifecycle.move(this.knex, vm, 'restarted', { error: err instanceof VmFailure ? err.message : 'The driver could not restart the machine; it was retried and gave up' });
            return;
        }

        await this.lifecycle.move(this.knex, vm, 'restarted', { error: null });
    }

    /** A new size (CPU and memory) and disk for a stopped machine: the disk only grows, and holds at least the size's own. */
    async resize(vm: VirtualMachine, input: { size?: string; diskGiB?: number }): Promise<VirtualMachine> {
        const size = this.size(input.size ?? vm.size);
        const diskGib = input.diskGiB ?? Math.max(vm.diskGib, size.diskGiB);
        if (diskGib < vm.diskGib) {
            throw Boom.conflict(`A disk can only grow: the virtual machine ${vm.id} has ${vm.diskGib} GiB`);
        }

        if (diskGib < size.diskGiB) {
            throw Boom.conflict(`The ${size.slug} size comes with a ${size.diskGiB} GiB disk: "diskGiB" must be at least that`);
        }

        this.lifecycle.next(vm, 'resize');
        if (size.slug === vm.size && diskGib === vm.diskGib) {
            return vm;
        }

        const resized = { ...vm, size: size.slug, vcpus: size.vcpus, memoryMib: size.memoryMiB, diskGib } as VirtualMachine;
        await this.options.driver.resize(this.target(resized));
        return this.recording(vm, () => this.options.driver.resize(this.target(vm)), async (trx) => {
            await this.lifecycle.move(trx, vm, 'resize', { size: size.slug, vcpus: size.vcpus, memory_mib: size.memoryMiB, disk_gib: diskGib });
            if (size.slug !== vm.size) {
                await this.options.services.allocation.record(trx, this.ref(vm), 'plan', { plan: size.slug });
            }

            if (diskGib !== vm.diskGib) {
                await this.options.services.allocation.record(trx, this.ref(vm), 'storage', { storageGiB: diskGib });
            }
        });
    }

    async setFirewall(vm: VirtualMachine, rules: FirewallRule[]): Promise<VirtualMachine> {
        this.lifecycle.next(vm, 'firewall');
        const changed = { ...vm, firewall: rules } as VirtualMachine;
        await this.options.driver.firewall(this.target(changed));
        return this.recording(vm, () => this.options.driver.firewall(this.target(vm)), async (trx) => {
            await this.lifecycle.move(trx, vm, 'firewall', { firewall: JSON.stringify(rules), firewall_updated_at: nowIso() });
        });
    }

    async remove(vm: VirtualMachine): Promise<VirtualMachine> {
        return this.knex.transaction(async (trx) => {
            await this.lifecycle.move(trx, vm, 'delete', { error: null });
            await this.options.queue.enqueue(DELETE_JOB, { vmId: vm.id }, { trx });
            return (await VirtualMachine.query(trx).findById(vm.id))!;
        });
    }

    async destroy(vmId: string, job: JobContext): Promise<void> {
        const vm = await VirtualMachine.query(this.knex).findById(vmId);
        if (vm?.status !== 'deleting') {
            return;
        }

        try {
            await this.options.driver.destroy(this.target(vm), { signal: job.signal });
        }
        catch (err) {
            if (err instanceof VmFailure || job.attempt >= job.maxAttempts) {
                await this.lifecycle.move(this.knex, vm, 'deleteFailed', { error: err instanceof VmFailure ? err.message : 'The driver could not delete the machine; it was retried and gave up' });
                return;
            }

            throw err;
        }

        await this.knex.transaction(async (trx) => {
            await removeOwned(trx, this.ref(vm));
            await VirtualMachine.query(trx).deleteById(vm.id);
            await this.options.services.allocation.record(trx, this.ref(vm), 'deleted', { running: false, instances: 0, storageGiB: 0 });
        });
    }

    /** The caller's own SSH keys by id (every one of them when none are named); another's key is as unknown as a missing one. */
    private async sshKeys(userId: string, ids: readonly string[] | undefined): Promise<VmSshKey[]> {
        const query = this.knex('ssh_keys').where('user_id', userId).orderBy('created_at');
        const rows: Array<{ id: string; name: string; fingerprint: string; public_key: string }> = await (ids ? query.whereIn('id', ids) : query)
            .select('id', 'name', 'fingerprint', 'public_key');
        const missing = (ids ?? []).filter((id) => !rows.some((row) => row.id === id));
        if (missing.length) {
            throw Boom.badRequest(`"sshKeys" must name SSH keys of your account (GET /v1/users/me/ssh-keys), and ${missing.join(', ')} ${missing.length > 1 ? 'are' : 'is'} not`);
        }

        return rows.map((row) => ({ id: row.id, name: row.name, fingerprint: row.fingerprint, publicKey: row.public_key }));
    }

    private async recording(vm: VirtualMachine, undo: () => Promise<void>, record: (trx: Knex.Transaction) => Promise<void>): Promise<VirtualMachine> {
        try {
            await this.knex.transaction(record);
        }
        catch (err) {
            await undo().catch(() => { });
            throw err;
        }

        return (await VirtualMachine.query(this.knex).findById(vm.id))!;
    }
}
