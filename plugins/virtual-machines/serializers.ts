import type { VirtualMachine } from './models/vm';

// The public shapes: a VM's body names its driver and holds its SSH keys' names and fingerprints (never more).
export function serializeVm(vm: VirtualMachine) {
    return {
        id: vm.id,
        name: vm.name,
        projectId: vm.projectId,
        status: vm.status,
        driver: vm.driver,
        size: vm.size,
        image: vm.image,
        region: vm.region,
        vcpus: vm.vcpus,
        memoryMiB: vm.memoryMib,
        diskGiB: vm.diskGib,
        ipv4: vm.ipv4,
        sshKeys: vm.sshKeys.map(({ id, name, fingerprint }) => ({ id, name, fingerprint })),
        pricingVersion: vm.pricingVersion,
        error: vm.error,
        createdAt: vm.createdAt,
        updatedAt: vm.updatedAt
    };
}

export function serializeFirewall(vm: VirtualMachine) {
    return {
        vmId: vm.id,
        driver: vm.driver,
        defaultInbound: 'deny' as const,
        defaultOutbound: 'allow' as const,
        rules: vm.firewall,
        updatedAt: vm.firewallUpdatedAt
    };
}
