import type { ResourceKind } from '../../lib/resources/kinds';
import { keyRoute as r, type RouteTable } from '../../lib/route-table';

export const DATABASE_KIND: ResourceKind = { kind: 'database', param: 'databaseName', table: 'databases', column: 'name', projectColumn: 'project_id', label: 'Database' };
export const DATABASE_IMPORT_KIND: ResourceKind = {
    kind: 'database-import', param: 'cloneId', table: 'database_imports', column: 'id', projectColumn: 'project_id', parent: { kind: 'database', column: 'database_id' }, label: 'Import'
};

const database = { databaseName: '{database}' };
const ready = ['database', 'databaseAvailable'];
// A source the examples import from: its host does not resolve here, so the import ends failed with that reason.
const source = 'postgres://reader:secret@db.example.com:5432/shop';

// Managed databases: details and credentials, tiers, pause and unpause, imports and the apps linked to them. Work
// that takes a while (provisioning, deleting, importing) runs as jobs: the fixtures wait for a database to be
// available before acting on it.
export const databasesTable: RouteTable = {
    family: 'databases',
    kinds: [DATABASE_KIND, DATABASE_IMPORT_KIND],
    fixtures: {
        database: { route: 'databases.create', payload: { name: '{unique}', projectId: '{project}' }, value: 'name' },
        databaseAvailable: { route: 'databases.details', params: database, value: 'name', until: { field: 'status', equals: 'available' } },
        databasePaused: { route: 'databases.pause', params: database, value: 'name' },
        databaseImport: { route: 'databases.imports.start', params: database, payload: { sourceUrl: source }, value: 'id' }
    },
    rows: [
        r('databases.list', 'GET', '/databases', 'databases:read', 'Databases the caller can reach, newest first; `?projectId=` narrows to one project. No credentials.',
            { policy: { project: 'query' }, example: { setup: ['database'] } }),
        r('databases.search', 'GET', '/databases/{databaseName}/search', 'databases:read', 'Search a database\'s events and import logs.', { example: { setup: ['database'], params: database, query: { q: 'created' } } }),
        r('databases.details', 'GET', '/databases/{databaseName}/details', 'databases:read', 'One database with its connection details (the password and connection string only to those allowed to see secrets).',
            { example: { setup: ['database'], params: database } }),
        r('databases.linkedApps', 'GET', '/databases/{databaseName}/linked-apps', 'databases:read', 'Apps linked to a database (`PATCH /apps/{appName} {databases: [...]}` links them).', { example: { setup: ['database'], params: database } }),
        r('databases.imports.status', 'GET', '/databases/{databaseName}/import/{cloneId}/status', 'databases:read', 'Status of an import.',
            { example: { setup: [...ready, 'databaseImport'], params: { ...database, cloneId: '{databaseImport}' } } }),
        r('databases.imports.logs', 'GET', '/databases/{databaseName}/import/{cloneId}/logs', 'logs:read', 'Log lines of an import, oldest first, filtered by text, level and time.',
            { example: { setup: [...ready, 'databaseImport'], params: { ...database, cloneId: '{databaseImport}' } } }),
        r('databases.create', 'POST', '/databases', 'databases:write', 'Create a database (PostgreSQL): it is provisioning, then available.', {
            policy: { project: 'body', create: true }, example: { payload: { name: '{unique}', projectId: '{project}', tier: 'starter', storageGiB: 1 }, status: 201 }
        }),
        r('databases.patch', 'PATCH', '/databases/{databaseName}', 'databases:write', 'Change a database\'s tier or storage; fields left out stay as they are.', { example: { setup: ready, params: database, payload: { storageGiB: 2 } } }),
        r('databases.tier', 'PATCH', '/databases/{databaseName}/tier', 'databases:write', 'Change a database\'s tier.', { example: { setup: ready, params: database, payload: { tier: 'standard' } } }),
        r('databases.pause', 'POST', '/databases/{databaseName}/pause', 'databases:write', 'Pause a database: connections are refused, and open ones ended.', { example: { setup: ready, params: database } }),
        r('databases.unpause', 'POST', '/databases/{databaseName}/unpause', 'databases:write', 'Resume a paused database.', { example: { setup: [...ready, 'databasePaused'], params: database } }),
        r('databases.imports.start', 'POST', '/databases/{databaseName}/import', 'databases:write', 'Replace a database\'s contents with a copy of another PostgreSQL database (`{sourceUrl}`).',
            { example: { setup: ready, params: database, payload: { sourceUrl: source }, status: 202 } }),
        r('databases.delete', 'DELETE', '/databases/{databaseName}', 'databases:delete', 'Delete a database, its data and its credentials: it is deleting, then gone.',
            { example: { setup: ready, params: database, status: 202 } })
    ]
};
