import * as Boom from '@hapi/boom';
import type { AuthCredentials } from '@hapi/hapi';

import type { CompiledRow } from '../../lib/route-table';

// Steps 2 and 3 of the precedence (api-contract.md section 2), run inside authenticate() before the body is read:
// a JWT-only route called with a key or OAuth token, then a scope the credential lacks.
export const gateMessages = {
    sessionOnly: 'This route requires a user session token (JWT); API keys and OAuth tokens are not accepted',
    adminOnly: 'This route requires a platform admin session'
};

export function gate(row: CompiledRow | undefined, credentials: AuthCredentials): Boom.Boom | null {
    if (!row) {
        return null;
    }

    if (row.auth === 'session' || row.auth === 'admin') {
        if (credentials.via !== 'session') {
            return Boom.forbidden(gateMessages.sessionOnly);
        }

        if (row.auth === 'admin' && !credentials.user?.isAdmin) {
            return Boom.forbidden(gateMessages.adminOnly);
        }

        return null;
    }

    if (row.scope && !credentials.scopes.includes(row.scope)) {
        return Boom.forbidden(`Missing required scope(s): ${row.scope}`);
    }

    return null;
}
