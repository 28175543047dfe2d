import { keyRoute as r, type RouteTable } from '../../lib/route-table';

// Managed databases: details and credentials, tiers, pause and unpause, imports and the apps linked to them.
export const databasesTable: RouteTable = {
    family: 'databases',
    rows: [
        r('databases.list', 'GET', '/databases', 'databases:read', 'Databases the caller can reach; `?projectId=` narrows to one project.', { policy: { project: 'query' } }),
        r('databases.search', 'GET', '/databases/{databaseName}/search', 'databases:read', 'Search a database\'s events and import logs.'),
        r('databases.details', 'GET', '/databases/{databaseName}/details', 'databases:read', 'One database with its connection details (secrets only to those allowed).'),
        r('databases.linkedApps', 'GET', '/databases/{databaseName}/linked-apps', 'databases:read', 'Apps linked to a database.'),
        r('databases.imports.status', 'GET', '/databases/{databaseName}/import/{cloneId}/status', 'databases:read', 'Status of an import.'),
        r('databases.imports.logs', 'GET', '/databases/{databaseName}/import/{cloneId}/logs', 'logs:read', 'Log lines of an import.'),
        r('databases.create', 'POST', '/databases', 'databases:write', 'Create a database.', { policy: { project: 'body', create: true } }),
        r('databases.patch', 'PATCH', '/databases/{databaseName}', 'databases:write', 'Change a database\'s settings.'),
        r('databases.tier', 'PATCH', '/databases/{databaseName}/tier', 'databases:write', 'Change a database\'s tier.'),
        r('databases.pause', 'POST', '/databases/{databaseName}/pause', 'databases:write', 'Pause a database.'),
        r('databases.unpause', 'POST', '/databases/{databaseName}/unpause', 'databases:write', 'Resume a paused database.'),
        r('databases.imports.start', 'POST', '/databases/{databaseName}/import', 'databases:write', 'Import data from another database.'),
        r('databases.delete', 'DELETE', '/databases/{databaseName}', 'databases:delete', 'Delete a database.')
    ]
};
