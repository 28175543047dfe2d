import { keyRoute as r, type RouteTable } from '../../lib/route-table';

// Virtual machines, addressed by id: lifecycle, resources, firewall, pricing and measured metrics.
export const virtualMachinesTable: RouteTable = {
    family: 'virtual-machines',
    rows: [
        r('vms.list', 'GET', '/virtual-machines', 'virtual-machines:read', 'Virtual machines the caller can reach; `?projectId=` narrows to one project.', { policy: { project: 'query' } }),
        r('vms.pricing', 'GET', '/virtual-machines/pricing', 'virtual-machines:read', 'Sizes and prices on offer.'),
        r('vms.byProject', 'GET', '/virtual-machines/project/{projectId}', 'virtual-machines:read', 'Virtual machines of one project.'),
        r('vms.get', 'GET', '/virtual-machines/{id}', 'virtual-machines:read', 'One virtual machine.'),
        r('vms.metrics', 'GET', '/virtual-machines/{id}/metrics', 'virtual-machines:read', 'All metric series of a virtual machine.'),
        r('vms.metrics.cpuUsage', 'GET', '/virtual-machines/{id}/metrics/cpu-usage', 'virtual-machines:read', 'CPU usage over time.'),
        r('vms.metrics.memoryUsage', 'GET', '/virtual-machines/{id}/metrics/memory-usage', 'virtual-machines:read', 'Memory usage over time.'),
        r('vms.metrics.networkIn', 'GET', '/virtual-machines/{id}/metrics/network-in', 'virtual-machines:read', 'Inbound network traffic over time.'),
        r('vms.metrics.networkOut', 'GET', '/virtual-machines/{id}/metrics/network-out', 'virtual-machines:read', 'Outbound network traffic over time.'),
        r('vms.metrics.diskUsage', 'GET', '/virtual-machines/{id}/metrics/disk-usage', 'virtual-machines:read', 'Disk usage over time.'),
        r('vms.firewall.get', 'GET', '/virtual-machines/{id}/firewall', 'virtual-machines:read', 'Firewall rules of a virtual machine.'),
        r('vms.create', 'POST', '/virtual-machines', 'virtual-machines:write', 'Create a virtual machine.', { policy: { project: 'body', create: true } }),
        r('vms.start', 'POST', '/virtual-machines/{id}/start', 'virtual-machines:write', 'Start a stopped virtual machine.'),
        r('vms.stop', 'POST', '/virtual-machines/{id}/stop', 'virtual-machines:write', 'Stop a running virtual machine.'),
        r('vms.restart', 'POST', '/virtual-machines/{id}/restart', 'virtual-machines:write', 'Restart a virtual machine.'),
        r('vms.resources', 'PUT', '/virtual-machines/{id}/resources', 'virtual-machines:write', 'Change CPU, memory and disk.'),
        r('vms.firewall.put', 'PUT', '/virtual-machines/{id}/firewall', 'virtual-machines:write', 'Replace the firewall rules.'),
        r('vms.delete', 'DELETE', '/virtual-machines/{id}', 'virtual-machines:delete', 'Delete a virtual machine.')
    ]
};
