import { BaseModel } from '../../../lib/db/model';
import type { FirewallRule } from '../../../lib/vm/firewall';

export type VmStatus = 'provisioning' | 'running' | 'stopped' | 'restarting' | 'deleting' | 'failed';

export interface VmSshKey {
    id: string;
    name: string;
    fingerprint: string;
    publicKey: string;
}

export class VirtualMachine extends BaseModel {
    static override tableName = 'virtual_machines';
    static override jsonAttributes = ['sshKeys', 'firewall'];

    id!: string;
    name!: string;
    projectId!: string;
    status!: VmStatus;
    driver!: string;
    size!: string;
    image!: string;
    region!: string;
    vcpus!: number;
    memoryMib!: number;
    diskGib!: number;
    pricingVersion!: string;
    sshKeys!: VmSshKey[];
    firewall!: FirewallRule[];
    firewallUpdatedAt!: string;
    ipv4!: string | null;
    error!: string | null;
    createdAt!: string;
    updatedAt!: string;
}
