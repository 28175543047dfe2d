import type { RouteTable } from '../../lib/route-table';

// Projects and members (api-contract.md section 4). Reads take projects:read; changes and members are JWT only.
export const projectsTable: RouteTable = {
    fixtures: {
        teamProject: { route: 'projects.create', payload: { name: 'Team {unique}' }, value: 'id', project: true },
        member: { route: 'members.add', params: { projectId: '{project}' }, payload: { email: '{spareEmail}', role: 'developer' }, value: 'userId', invitation: 'accepted' }
    },
    family: 'projects',
    rows: [
        {
            id: 'projects.list', method: 'GET', path: '/v1/projects', auth: 'key', scope: 'projects:read',
            policy: { project: 'query' },
            description: 'Projects the caller is a member of, newest first; `?projectId=` narrows to one.',
            example: {}
        },
        {
            id: 'projects.get', method: 'GET', path: '/v1/projects/{projectId}', auth: 'key', scope: 'projects:read',
            description: 'One project, with the caller\'s role in it.',
            example: { params: { projectId: '{project}' } }
        },
        {
            id: 'projects.create', method: 'POST', path: '/v1/projects', auth: 'session',
            description: 'Create a team project; the caller becomes its owner.',
            example: { payload: { name: 'Team {unique}' }, status: 201 }
        },
        {
            id: 'projects.patch', method: 'PATCH', path: '/v1/projects/{projectId}', auth: 'session',
            policy: { role: 'admin' },
            description: 'Rename a project (admin or owner).',
            example: { params: { projectId: '{project}' }, payload: { name: 'Renamed' } }
        },
        {
            id: 'projects.delete', method: 'DELETE', path: '/v1/projects/{projectId}', auth: 'session',
            policy: { role: 'owner' },
            description: 'Delete an empty team project (owner); 409 while it holds resources.',
            example: { setup: ['teamProject'], params: { projectId: '{teamProject}' }, status: 204 }
        },
        {
            id: 'members.list', method: 'GET', path: '/v1/projects/{projectId}/members', auth: 'session',
            description: 'Members of a project with their roles.',
            example: { params: { projectId: '{project}' } }
        },
        {
            id: 'members.add', method: 'POST', path: '/v1/projects/{projectId}/members', auth: 'session',
            policy: { role: 'admin' },
            description: 'Invite an account to a project by email with a role (admin or owner; only owners grant owner): 202, the same answer whether or not the account exists; they become a member when they accept.',
            example: { params: { projectId: '{project}' }, payload: { email: '{spareEmail}', role: 'developer' }, status: 202 }
        },
        {
            id: 'members.patch', method: 'PATCH', path: '/v1/projects/{projectId}/members/{userId}', auth: 'session',
            policy: { role: 'admin' },
            description: 'Change a member\'s role; a project always keeps one owner.',
            example: { setup: ['member'], params: { projectId: '{project}', userId: '{member}' }, payload: { role: 'viewer' } }
        },
        {
            id: 'members.remove', method: 'DELETE', path: '/v1/projects/{projectId}/members/{userId}', auth: 'session',
            policy: { role: 'admin' },
            description: 'Remove a member; a project always keeps one owner.',
            example: { setup: ['member'], params: { projectId: '{project}', userId: '{member}' }, status: 204 }
        }
    ]
};
