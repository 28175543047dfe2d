import type { Knex } from 'knex';

import { ClientMetadataDocuments } from '../../lib/oauth/client-metadata';
import { SigningKeys } from '../../lib/oauth/signing-keys';
import { bindRoutes, type FamilyPlugin } from '../../lib/route-table';
import { oauthTable } from '../../manifest/routes/oauth';
import { accountRoutes } from './routes/account';
import { endpointRoutes } from './routes/endpoints';
import { AuthorizationsService } from './services/authorizations';
import { ClientRegistry, type ClientSettings } from './services/clients';
import { GrantsService } from './services/grants';
import { RegisteredClientsService } from './services/registered-clients';
import { TokensService } from './services/tokens';

// The OAuth 2.1 authorization server for AI connectors: discovery, authorize (then the dashboard's consent screen),
// token and revoke; the user's OAuth clients and connected AI apps. The access pipeline verifies the access tokens
// it issues and checks their grant on every request.
export interface OAuthPluginOptions {
    knex: Knex;
    encryptionKey: string;                                      // seals the signing keys
    issuer: string;                                             // PUBLIC_URL: the issuer, and the API's audience
    resource: string;                                           // the MCP server's resource (`<MCP_PUBLIC_URL>/mcp`)
    consentPath?: string;                                       // the consent screen (the dashboard's /oauth/authorize)
    assistant: ClientSettings['assistant'];
    legacy: ClientSettings['legacy'];
    metadataDocuments: { allowlist: readonly string[]; allowHttpLoopback: boolean } | null;
}

export const oauthPlugin: FamilyPlugin<OAuthPluginOptions> = {
    name: 'hostless-oauth',
    table: oauthTable,
    dependencies: ['hostless-auth'],
    register(server, options) {
        const keys = new SigningKeys(options.knex, options.encryptionKey);
        const clients = new ClientRegistry(options.knex, {
            assistant: options.assistant,
            legacy: options.legacy,
            documents: options.metadataDocuments ? new ClientMetadataDocuments(options.metadataDocuments) : null
        });
        const { lists } = server.plugins['hostless-auth'];
        const grants = new GrantsService(options.knex, lists);
        const authorizations = new AuthorizationsService(options.knex, clients, {
            issuer: options.issuer, resource: options.resource, consentPath: options.consentPath ?? '/oauth/authorize'
        });
        const tokens = new TokensService(options.knex, keys, grants, server.plugins['hostless-auth'].accessTokens, {
            issuer: options.issuer, audience: [options.resource, options.issuer]
        });

        bindRoutes(server, oauthTable, {
            ...endpointRoutes({ issuer: options.issuer, keys, clients, authorizations, tokens }),
            ...accountRoutes({ authorizations, clients: new RegisteredClientsService(options.knex, lists, grants), grants })
        });
    }
};
