import type { ResourceKind } from '../../lib/resources/kinds';
import { keyRoute as r, type RouteTable } from '../../lib/route-table';

// A VM is addressed by its id under /virtual-machines only: elsewhere `{id}` names other things (SSH keys, invoices).
export const VM_KIND: ResourceKind = { kind: 'vm', param: 'id', table: 'virtual_machines', column: 'id', projectColumn: 'project_id', under: '/virtual-machines', label: 'Virtual machine' };

const vm = { id: '{vm}' };
const running = ['vm', 'vmRunning'];
const stopped = [...running, 'vmStopped'];
const metric = (id: string, name: string, description: string) =>
    r(`vms.metrics.${id}`, 'GET', `/virtual-machines/{id}/metrics/${name}`, 'virtual-machines:read', description, { example: { setup: ['vm'], params: vm } });

// Virtual machines, addressed by id: lifecycle, resources, firewall, pricing and metrics. Creating, restarting and
// deleting run as jobs (provisioning, restarting and deleting are states one can see); the fixtures wait for a VM
// to run before acting on it.
export const virtualMachinesTable: RouteTable = {
    family: 'virtual-machines',
    kinds: [VM_KIND],
    fixtures: {
        vm: { route: 'vms.create', payload: { name: '{unique}', projectId: '{project}', size: 's-1vcpu-1gb', image: 'debian-12', region: 'eu-west' }, value: 'id' },
        vmRunning: { route: 'vms.get', params: vm, value: 'id', until: { field: 'status', equals: 'running' } },
        vmStopped: { route: 'vms.stop', params: vm, value: 'id' }
    },
    rows: [
        r('vms.list', 'GET', '/virtual-machines', 'virtual-machines:read', 'Virtual machines the caller can reach, newest first; `?projectId=` narrows to one project.',
            { policy: { project: 'query' }, example: { setup: ['vm'] } }),
        r('vms.pricing', 'GET', '/virtual-machines/pricing', 'virtual-machines:read', 'Sizes, images, regions and prices on offer (a versioned catalogue).', { example: {} }),
        r('vms.byProject', 'GET', '/virtual-machines/project/{projectId}', 'virtual-machines:read', 'Virtual machines of one project, newest first.', { example: { setup: ['vm'], params: { projectId: '{project}' } } }),
        r('vms.get', 'GET', '/virtual-machines/{id}', 'virtual-machines:read', 'One virtual machine.', { example: { setup: ['vm'], params: vm } }),
        r('vms.metrics', 'GET', '/virtual-machines/{id}/metrics', 'virtual-machines:read', 'All metric series of a virtual machine.', { example: { setup: ['vm'], params: vm } }),
        metric('cpuUsage', 'cpu-usage', 'CPU usage over time.'),
        metric('memoryUsage', 'memory-usage', 'Memory usage over time.'),
        metric('networkIn', 'network-in', 'Inbound network traffic over time.'),
        metric('networkOut', 'network-out', 'Outbound network traffic over time.'),
        metric('diskUsage', 'disk-usage', 'Disk usage over time.'),
        r('vms.firewall.get', 'GET', '/virtual-machines/{id}/firewall', 'virtual-machines:read', 'Firewall rules of a virtual machine.', { example: { setup: ['vm'], params: vm } }),
        r('vms.create', 'POST', '/virtual-machines', 'virtual-machines:write', 'Create a virtual machine from a size, an image and a region, with your SSH keys.', {
            policy: { project: 'body', create: true }, example: { payload: { name: '{unique}', projectId: '{project}', size: 's-1vcpu-1gb', image: 'debian-12', region: 'eu-west' }, status: 201 }
        }),
        r('vms.start', 'POST', '/virtual-machines/{id}/start', 'virtual-machines:write', 'Start a stopped virtual machine.', { example: { setup: stopped, params: vm } }),
        r('vms.stop', 'POST', '/virtual-machines/{id}/stop', 'virtual-machines:write', 'Stop a running virtual machine (its disk is kept).', { example: { setup: running, params: vm } }),
        r('vms.restart', 'POST', '/virtual-machines/{id}/restart', 'virtual-machines:write', 'Restart a running virtual machine: it is restarting, then running.', { example: { setup: running, params: vm, status: 202 } }),
        r('vms.resources', 'PUT', '/virtual-machines/{id}/resources', 'virtual-machines:write', 'Change the size (CPU and memory) and the disk of a stopped virtual machine.',
            { example: { setup: stopped, params: vm, payload: { size: 's-1vcpu-2gb', diskGiB: 60 } } }),
        r('vms.firewall.put', 'PUT', '/virtual-machines/{id}/firewall', 'virtual-machines:write', 'Replace the firewall\'s inbound rules.',
            { example: { setup: ['vm'], params: vm, payload: { rules: [{ protocol: 'tcp', ports: '443', source: '0.0.0.0/0' }] } } }),
        r('vms.delete', 'DELETE', '/virtual-machines/{id}', 'virtual-machines:delete', 'Delete a virtual machine and its disk: it is deleting, then gone.', { example: { setup: running, params: vm, status: 202 } })
    ]
};
