import type { RouteTable } from '../../lib/route-table';

// Key management (rest-api.md "Key management"): JWT only, an API key gets 403.
export const apiKeysTable: RouteTable = {
    fixtures: { apiKey: { route: 'apiKeys.create', payload: { name: 'fixture', scopes: ['projects:read'] }, value: 'apiKey.id' } },
    family: 'api-keys',
    rows: [
        {
            id: 'apiKeys.create', method: 'POST', path: '/v1/users/me/api-keys', auth: 'session',
            description: 'Create an API key; the token is in this response only.',
            example: { payload: { name: 'ci', scopes: ['apps:read', 'deployments:write'], expiresAt: null }, status: 201 }
        },
        {
            id: 'apiKeys.list', method: 'GET', path: '/v1/users/me/api-keys', auth: 'session',
            description: 'The signed-in user\'s live and expired keys, without secrets.',
            example: { setup: ['apiKey'] }
        },
        {
            id: 'apiKeys.revoke', method: 'DELETE', path: '/v1/users/me/api-keys/{keyId}', auth: 'session',
            description: 'Revoke a key; it stops working at the next request.',
            example: { setup: ['apiKey'], params: { keyId: '{apiKey}' } }
        }
    ]
};
