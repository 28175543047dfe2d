import type { Knex } from 'knex';

import { deriveKey } from '../../lib/crypto';
import { bindRoutes, type FamilyPlugin } from '../../lib/route-table';
import { sessionSigner } from '../../lib/session-token';
import { accountsTable } from '../../manifest/routes/accounts';
import { authRoutes } from './routes/auth';
import { userRoutes } from './routes/users';
import { createServices } from './services';

// Accounts and sessions: register, login, refresh, logout, introspection, the user's profile and SSH keys.
export interface AccountsPluginOptions {
    knex: Knex;
    sessionSecret: string;
    issuer: string;
    passwordCost?: number;                                      // scrypt N; 16384 unless a test lowers it
    signupEnabled?: boolean;
}

export const accountsPlugin: FamilyPlugin<AccountsPluginOptions> = {
    name: 'hostless-accounts',
    table: accountsTable,
    dependencies: ['hostless-auth'],
    register(server, options) {
        const signer = sessionSigner({ secret: deriveKey(options.sessionSecret, 'session-jwt'), issuer: options.issuer });
        const services = createServices(options.knex, signer, {
            passwordCost: options.passwordCost ?? 16384,
            signupEnabled: options.signupEnabled ?? true
        });

        bindRoutes(server, accountsTable, { ...authRoutes(services), ...userRoutes(services) });
    }
};
