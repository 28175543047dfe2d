import { checksum } from '../../lib/api-key-token';
import type { RouteTable } from '../../lib/route-table';

// Key management (rest-api.md "Key management"): JWT only, an API key gets 403. Beyond the spec's table
// (api-contract.md section 11, "key extras" and "leak reports"): rolling a key, its policy (address allow-list and
// overlap) and the health of every key, session only; and the leak reports of GitHub's secret scanning, a webhook
// whose signature is the credential.

// A well-formed token no key has: the leak report example is answered `false_positive` and changes nothing.
const EXAMPLE_BODY = 'Example0Leak0Report0Token0Nobody0Has0Ever00';
const EXAMPLE_TOKEN = `svk_Example000_${EXAMPLE_BODY}${checksum('Example000', EXAMPLE_BODY)}`;

export const apiKeysTable: RouteTable = {
    fixtures: { apiKey: { route: 'apiKeys.create', payload: { name: 'fixture', scopes: ['projects:read'] }, value: 'apiKey.id' } },
    family: 'api-keys',
    rows: [
        {
            id: 'apiKeys.create', method: 'POST', path: '/v1/users/me/api-keys', auth: 'session', secretOnce: true,
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
        },
        {
            id: 'apiKeys.roll', method: 'POST', path: '/v1/users/me/api-keys/{keyId}/roll', auth: 'session', secretOnce: true,
            description: 'Give a key a new secret (a new token for the same id, name and scopes); the old token keeps working for `overlapSeconds` (0 to 30 days).',
            example: { setup: ['apiKey'], params: { keyId: '{apiKey}' }, payload: { overlapSeconds: 3600 }, status: 200 }
        },
        {
            id: 'apiKeys.policy', method: 'GET', path: '/v1/users/me/api-keys/{keyId}/policy', auth: 'session',
            description: 'A key\'s address allow-list (`allowedCidrs`) and the overlap of its last roll.',
            example: { setup: ['apiKey'], params: { keyId: '{apiKey}' } }
        },
        {
            id: 'apiKeys.policy.update', method: 'PATCH', path: '/v1/users/me/api-keys/{keyId}/policy', auth: 'session',
            description: 'Set a key\'s address allow-list (up to 32 IPv4 and IPv6 CIDR ranges; empty: any address), or end its overlap now (`"overlap": null`).',
            example: { setup: ['apiKey'], params: { keyId: '{apiKey}' }, payload: { allowedCidrs: ['203.0.113.0/24', '2001:db8::/32'] } }
        },
        {
            id: 'apiKeys.health', method: 'GET', path: '/v1/users/me/api-keys/health', auth: 'session',
            description: 'Every live key with the address of its last use and its warnings: no expiry, unused for 90 days, scopes unused for 30 days.',
            example: { setup: ['apiKey'] }
        },
        {
            id: 'secretScanning.report', method: 'POST', path: '/v1/secret-scanning/report', auth: 'webhook',
            description: 'Leak reports of GitHub\'s secret scanning partner program, signed with its published key; a reported token whose secret matches revokes its key.',
            example: { payload: [{ token: EXAMPLE_TOKEN, type: 'hostless_api_key', url: 'https://github.com/octo/shop/blob/0123abc/.env', source: 'content' }] }
        }
    ]
};
