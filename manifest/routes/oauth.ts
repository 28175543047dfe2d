import type { RouteTable } from '../../lib/route-table';

// The OAuth 2.1 authorization server for AI connectors (api-contract.md section 11; mcp-server.md "OAuth 2.0"): the
// discovery documents, the authorize, token and revoke endpoints (public; token and revoke take form bodies, RFC
// 6749), the consent screen's calls (session), and the user's OAuth clients and connected AI apps (session).
const connector = 'https://connector.example/callback';
const challenge = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM';
const documentClient = encodeURIComponent('https://client.example/oauth/metadata.json');

export const oauthTable: RouteTable = {
    family: 'oauth',
    fixtures: { oauthClient: { route: 'oauthClients.create', payload: { name: 'fixture connector', redirectUris: [connector] }, value: 'client.id' } },
    rows: [
        {
            id: 'oauth.metadata', method: 'GET', path: '/.well-known/oauth-authorization-server', auth: 'public',
            description: 'Authorization server metadata (RFC 8414): endpoints, S256 PKCE, grant types, client authentication methods, read-only scopes.',
            example: {}
        },
        {
            id: 'oauth.jwks', method: 'GET', path: '/.well-known/jwks.json', auth: 'public',
            description: 'The public keys that verify access tokens (RS256), the previous one included until its tokens expire.',
            example: {}
        },
        {
            id: 'oauth.authorize', method: 'GET', path: '/v1/oauth/authorize', auth: 'public',
            description: 'Start an authorization (code flow with S256 PKCE): checks the client, redirect URI, scope and resource, then sends the browser to the consent screen.',
            example: {
                setup: ['oauthClient'],
                query: { response_type: 'code', client_id: '{oauthClient}', redirect_uri: connector, code_challenge: challenge, code_challenge_method: 'S256', state: 'xyz' },
                status: 302
            }
        },
        {
            id: 'oauth.authorizations.get', method: 'GET', path: '/v1/oauth/authorizations/{authorizationId}', auth: 'session',
            description: 'What a pending authorization asks for, as the consent screen shows it: the client, its redirect host and the scopes.',
            example: { params: { authorizationId: 'oaz_0000000000000000' }, status: 404 }
        },
        {
            id: 'oauth.authorizations.decide', method: 'POST', path: '/v1/oauth/authorizations/{authorizationId}', auth: 'session', secretOnce: true,
            description: 'Allow (with all projects or a chosen few) or deny a pending authorization; answers where to send the browser.',
            example: { params: { authorizationId: 'oaz_0000000000000000' }, payload: { decision: 'deny' }, status: 404 }
        },
        {
            id: 'oauth.token', method: 'POST', path: '/v1/oauth/token', auth: 'public', body: 'form',
            description: 'Exchange a code (with its PKCE verifier) or a refresh token (rotated on use) for an access token.',
            example: { payload: `grant_type=refresh_token&refresh_token=svor_unknown&client_id=${documentClient}`, status: 400 }
        },
        {
            id: 'oauth.token.get', method: 'GET', path: '/v1/oauth/token', auth: 'public',
            description: 'Not supported: token requests are POST (405).',
            example: { status: 405 }
        },
        {
            id: 'oauth.revoke', method: 'POST', path: '/v1/oauth/revoke', auth: 'public', body: 'form',
            description: 'Revoke a refresh or access token (RFC 7009), and with it the whole grant; 200 for unknown tokens too.',
            example: { payload: `token=svor_unknown&client_id=${documentClient}` }
        },
        {
            id: 'oauthClients.list', method: 'GET', path: '/v1/users/me/oauth-clients', auth: 'session',
            description: 'The signed-in user\'s OAuth clients for custom connectors, without secrets.',
            example: { setup: ['oauthClient'] }
        },
        {
            id: 'oauthClients.create', method: 'POST', path: '/v1/users/me/oauth-clients', auth: 'session', secretOnce: true,
            description: 'Register an OAuth client (`svoc_` id) with its redirect URIs; the client secret is in this response only.',
            example: { payload: { name: 'My connector', redirectUris: [connector] }, status: 201 }
        },
        {
            id: 'oauthClients.delete', method: 'DELETE', path: '/v1/users/me/oauth-clients/{clientId}', auth: 'session',
            description: 'Delete an OAuth client; every app connected through it loses access at its next request.',
            example: { setup: ['oauthClient'], params: { clientId: '{oauthClient}' } }
        },
        {
            id: 'connectedApps.list', method: 'GET', path: '/v1/users/me/connected-apps', auth: 'session',
            description: 'AI apps connected to the account through OAuth: client, scopes, projects, created, last used.',
            example: {}
        },
        {
            id: 'connectedApps.revoke', method: 'DELETE', path: '/v1/users/me/connected-apps/{grantId}', auth: 'session',
            description: 'Disconnect an AI app: its tokens are refused from the next request, on the API and the MCP server.',
            example: { params: { grantId: 'ogr_0000000000000000' }, status: 404 }
        }
    ]
};
