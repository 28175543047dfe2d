import type { RouteTable } from '../../lib/route-table';

// Invitations (api-contract.md section 11): adding someone to a project or to a resource sends them an invitation
// (lib/invitations.ts), which they list, accept or decline with their session; admins see and withdraw the ones
// their project sent; any member may leave a project but its last owner. Session only: keys and OAuth tokens act
// for a user, never on who they work with.
export const invitationsTable: RouteTable = {
    fixtures: {
        invitation: {
            route: 'members.add', by: 'stranger', params: { projectId: '{strangerProject}' }, payload: { email: '{ownerEmail}', role: 'viewer' },
            value: 'id', invitation: 'pending'
        },
        sentInvitation: {
            route: 'members.add', params: { projectId: '{project}' }, payload: { email: '{spareEmail}', role: 'developer' }, value: 'id', invitation: 'pending'
        },
        joinedProject: {
            route: 'members.add', by: 'stranger', params: { projectId: '{strangerProject}' }, payload: { email: '{ownerEmail}', role: 'developer' },
            value: 'projectId', invitation: 'accepted'
        }
    },
    family: 'invitations',
    rows: [
        {
            id: 'invitations.list', method: 'GET', path: '/v1/users/me/invitations', auth: 'session',
            description: 'Invitations to the signed-in user (to a project, or to work on one resource), newest first; expired ones show `status: "expired"` until they are removed.',
            example: { setup: ['invitation'] }
        },
        {
            id: 'invitations.accept', method: 'POST', path: '/v1/users/me/invitations/{invitationId}/accept', auth: 'session',
            description: 'Accept an invitation: you become a member with its role (your collaborator grants in that project end), or a collaborator with its permissions.',
            example: { setup: ['invitation'], params: { invitationId: '{invitation}' } }
        },
        {
            id: 'invitations.decline', method: 'POST', path: '/v1/users/me/invitations/{invitationId}/decline', auth: 'session',
            description: 'Decline an invitation (or dismiss an expired one).',
            example: { setup: ['invitation'], params: { invitationId: '{invitation}' }, status: 204 }
        },
        {
            id: 'invitations.ofProject', method: 'GET', path: '/v1/projects/{projectId}/invitations', auth: 'session',
            policy: { role: 'admin' },
            description: 'Invitations the project sent that are not answered yet (admin or owner).',
            example: { setup: ['sentInvitation'], params: { projectId: '{project}' } }
        },
        {
            id: 'invitations.cancel', method: 'DELETE', path: '/v1/projects/{projectId}/invitations/{invitationId}', auth: 'session',
            policy: { role: 'admin' },
            description: 'Withdraw an invitation the project sent (admin or owner).',
            example: { setup: ['sentInvitation'], params: { projectId: '{project}', invitationId: '{sentInvitation}' }, status: 204 }
        },
        {
            id: 'projects.leave', method: 'POST', path: '/v1/projects/{projectId}/leave', auth: 'session',
            policy: { role: 'viewer' },
            description: 'Leave a project, whatever your role; its last owner cannot (409), nor the creator of a personal project.',
            example: { setup: ['joinedProject'], params: { projectId: '{joinedProject}' }, status: 204 }
        }
    ]
};
