import type { RouteTable } from '../../lib/route-table';

// Probes: plain /livez and /readyz for load balancers, a detailed report for signed-in users under /v1.
export const healthTable: RouteTable = {
    family: 'health',
    rows: [
        {
            id: 'health.live', method: 'GET', path: '/livez', auth: 'public',
            description: 'The process is up.',
            example: {}
        },
        {
            id: 'health.ready', method: 'GET', path: '/readyz', auth: 'public',
            description: 'The process can serve: its database answers, every migration is applied and none is running, and it is not stopping (503 with the reason otherwise).',
            example: {}
        },
        {
            id: 'health.detail', method: 'GET', path: '/v1/health', auth: 'session',
            description: 'Readiness with its reason, database dialect and latency, migrations applied and pending, version, uptime, memory and requests in flight.',
            example: {}
        }
    ]
};
