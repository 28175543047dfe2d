import type { Knex } from 'knex';

import { bindRoutes, type FamilyPlugin } from '../../lib/route-table';
import { apiKeysTable } from '../../manifest/routes/api-keys';
import { apiKeyRoutes } from './routes/api-keys';
import { ApiKeysService } from './services/api-keys';

// Key management: create (token shown once), list, revoke. The access pipeline authenticates keys.
export interface ApiKeysPluginOptions {
    knex: Knex;
}

export const apiKeysPlugin: FamilyPlugin<ApiKeysPluginOptions> = {
    name: 'hostless-api-keys',
    table: apiKeysTable,
    dependencies: ['hostless-auth', 'hostless-notifications'],
    register(server, options) {
        bindRoutes(server, apiKeysTable, apiKeyRoutes(new ApiKeysService(options.knex, server.plugins['hostless-auth'].lists, server.plugins['hostless-notifications'].outbox)));
    }
};
