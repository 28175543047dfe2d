import { bindRoutes, type FamilyPlugin } from '../../lib/route-table';
import type { VmCatalogue } from '../../lib/vm/catalogue';
import type { VmDriver } from '../../lib/vm/driver';
import { virtualMachinesTable } from '../../manifest/routes/virtual-machines';
import { VirtualMachine } from './models/vm';
import { vmRoutes } from './routes/vms';
import { DELETE_JOB, PROVISION_JOB, RESTART_JOB, VmsService } from './services/vms';

// The virtual machines family: machines of a catalogue's sizes and images, through a VM driver (lib/vm: `records`
// keeps state; a hypervisor driver implements the same interface), with the runtime-resource mechanisms for lists,
// metrics, the cascade on delete and the allocation history billing meters. Creating, restarting and deleting run
// as jobs.
export interface VirtualMachinesPluginOptions {
    driver: VmDriver;
    catalogue: VmCatalogue;
}

export const virtualMachinesPlugin: FamilyPlugin<VirtualMachinesPluginOptions> = {
    name: 'hostless-virtual-machines',
    table: virtualMachinesTable,
    dependencies: ['hostless-auth', 'hostless-jobs', 'hostless-resources'],
    register(server, options) {
        const { services } = server.plugins['hostless-resources'];
        const { queue } = server.plugins['hostless-jobs'];
        const vms = new VmsService({ services, queue, driver: options.driver, catalogue: options.catalogue });
        queue.handle(PROVISION_JOB, (payload: { vmId: string }, context) => vms.provision(payload.vmId, context));
        queue.handle(RESTART_JOB, (payload: { vmId: string }, context) => vms.restarted(payload.vmId, context));
        queue.handle(DELETE_JOB, (payload: { vmId: string }, context) => vms.destroy(payload.vmId, context));
        bindRoutes(server, virtualMachinesTable, vmRoutes(vms), { vm: VirtualMachine });
    }
};
