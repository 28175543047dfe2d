import type { Knex } from 'knex';

import { bindRoutes, type FamilyPlugin } from '../../lib/route-table';
import { accountsTable } from '../../manifest/routes/accounts';
import { authRoutes } from './routes/auth';
import { userRoutes } from './routes/users';
import { createServices } from './services';

// Accounts and sessions: register, login, refresh, logout, introspection, the user's profile and SSH keys.
// Session tokens are signed with the access pipeline's signer, so the two always agree.
export interface AccountsPluginOptions {
    knex: Knex;
    passwordCost?: number;                                      // scrypt N; 16384 unless a test lowers it
    signupEnabled?: boolean;
}

export const accountsPlugin: FamilyPlugin<AccountsPluginOptions> = {
    name: 'hostless-accounts',
    table: accountsTable,
    dependencies: ['hostless-auth', 'hostless-notifications'],
    register(server, options) {
        const services = createServices(options.knex, server.plugins['hostless-auth'].signer, server.plugins['hostless-notifications'].outbox, {
            passwordCost: options.passwordCost ?? 16384,
            signupEnabled: options.signupEnabled ?? true
        });

        bindRoutes(server, accountsTable, { ...authRoutes(services), ...userRoutes(services) });
    }
};
