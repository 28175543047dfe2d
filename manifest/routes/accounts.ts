import type { RouteTable } from '../../lib/route-table';

// Accounts and sessions (api-contract.md section 3): JWT-only except register, login and refresh.
export const accountsTable: RouteTable = {
    fixtures: {
        sshKey: { route: 'sshKeys.create', payload: { name: 'laptop', publicKey: '{sshPublicKey}' }, value: 'id' },
        session: { route: '', seed: 'session', value: 'id' }
    },
    family: 'accounts',
    rows: [
        {
            id: 'auth.register', method: 'POST', path: '/v1/auth/register', auth: 'public', rateLimit: 'signUp',
            description: 'Create an account and its personal project; answers with a session.',
            example: { payload: { email: '{email}', password: 'correct horse battery', name: 'New User' }, status: 201 }
        },
        {
            id: 'auth.login', method: 'POST', path: '/v1/auth/login', auth: 'public', rateLimit: 'signIn',
            description: 'Sign in with email and password; answers with a session.',
            example: { payload: { email: '{ownerEmail}', password: '{ownerPassword}' } }
        },
        {
            id: 'auth.refresh', method: 'POST', path: '/v1/auth/refresh', auth: 'public',
            description: 'Exchange a refresh token for a new pair; the old one stops working, and presenting it again ends the session.',
            example: { payload: { refreshToken: '{refreshToken}' } }
        },
        {
            id: 'auth.logout', method: 'POST', path: '/v1/auth/logout', auth: 'session',
            description: 'End the current session; its access tokens stop working at the next request.',
            example: { status: 204 }
        },
        {
            id: 'auth.introspect', method: 'GET', path: '/v1/auth/introspect', auth: 'key', scope: null,
            description: 'Describe the credential of this request (API key, session or OAuth token).',
            example: {}
        },
        {
            id: 'users.me.get', method: 'GET', path: '/v1/users/me', auth: 'session',
            description: 'The signed-in user.',
            example: {}
        },
        {
            id: 'users.me.patch', method: 'PATCH', path: '/v1/users/me', auth: 'session',
            description: 'Change the signed-in user\'s name or password (a new password ends the other sessions).',
            example: { payload: { name: 'Renamed User' } }
        },
        {
            id: 'sessions.list', method: 'GET', path: '/v1/users/me/sessions', auth: 'session',
            description: 'The signed-in user\'s live sessions, newest first: when and from where each was opened, and which one is asking.',
            example: { setup: ['session'] }
        },
        {
            id: 'sessions.delete', method: 'DELETE', path: '/v1/users/me/sessions/{sessionId}', auth: 'session',
            description: 'Sign one session out (recorded in the security trail); its tokens stop working at their next request.',
            example: { setup: ['session'], params: { sessionId: '{session}' }, status: 204 }
        },
        {
            id: 'sessions.revokeOthers', method: 'POST', path: '/v1/users/me/sessions/revoke-others', auth: 'session',
            description: 'Sign out every session but this one (each recorded in the security trail); answers how many ended.',
            example: {}
        },
        {
            id: 'sshKeys.list', method: 'GET', path: '/v1/users/me/ssh-keys', auth: 'session',
            description: 'The signed-in user\'s SSH public keys with their fingerprints.',
            example: { setup: ['sshKey'] }
        },
        {
            id: 'sshKeys.create', method: 'POST', path: '/v1/users/me/ssh-keys', auth: 'session',
            description: 'Add an SSH public key (ssh-ed25519, ecdsa-sha2-nistp256/384/521 or ssh-rsa of 2048 bits or more).',
            example: { payload: { name: 'laptop', publicKey: '{sshPublicKey}' }, status: 201 }
        },
        {
            id: 'sshKeys.delete', method: 'DELETE', path: '/v1/users/me/ssh-keys/{id}', auth: 'session',
            description: 'Remove one of the signed-in user\'s SSH keys.',
            example: { setup: ['sshKey'], params: { id: '{sshKey}' }, status: 204 }
        }
    ]
};
