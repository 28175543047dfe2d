import { BaseModel } from '../../../lib/db/model';
import type { Scope } from '../../../lib/scopes';
import type { ClientKind } from './grant';

/**
 * One authorization request, checked and waiting for the user's answer on the consent screen; once allowed, the
 * code it issued (bound to the client, redirect URI, PKCE challenge and resource), and the grant that code became.
 */
export class Authorization extends BaseModel {
    static override tableName = 'oauth_authorizations';
    static override jsonAttributes = ['scopes', 'projects'];

    id!: string;
    clientId!: string;
    clientName!: string;
    clientKind!: ClientKind;
    clientHost!: string | null;
    redirectUri!: string;
    scopes!: Scope[];
    resource!: string;
    state!: string | null;
    codeChallenge!: string;
    expiresAt!: string;
    decidedAt!: string | null;
    userId!: string | null;
    projects!: string[] | null;
    codeHash!: string | null;
    codeExpiresAt!: string | null;
    codeUsedAt!: string | null;
    grantId!: string | null;
    createdAt!: string;
}
