import type { RouteTable } from '../../lib/route-table';

// The security trail of the signed-in user (api-contract.md section 11): session only.
export const securityEventsTable: RouteTable = {
    family: 'security-events',
    rows: [
        {
            id: 'securityEvents.list', method: 'GET', path: '/v1/users/me/security-events', auth: 'session',
            description: 'Sign-ins, failed sign-ins, ended sessions, key changes, invitations and their answers, and operator actions on your account, newest first.',
            example: {}
        }
    ]
};
