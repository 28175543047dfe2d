import { BaseModel } from '../../../lib/db/model';
import type { Scope } from '../../../lib/scopes';

export type ClientKind = 'registered' | 'assistant' | 'legacy' | 'document';
export type GrantRevocation = 'user' | 'client_deleted' | 'code_replay' | 'refresh_reuse' | 'token_revoked';

/** A connected AI app: what one user allowed one client, until revoked. Its access tokens name it in `grant_id`. */
export class Grant extends BaseModel {
    static override tableName = 'oauth_grants';
    static override jsonAttributes = ['scopes', 'projects'];

    id!: string;
    userId!: string;
    clientId!: string;
    clientName!: string;
    clientKind!: ClientKind;
    scopes!: Scope[];
    projects!: string[] | null;                                 // null: every project the user reaches
    resource!: string;
    createdAt!: string;
    lastUsedAt!: string | null;
    revokedAt!: string | null;
    revokedReason!: GrantRevocation | null;
}

/** Single use: a used one presented again revokes its grant. */
export class GrantRefreshToken extends BaseModel {
    static override tableName = 'oauth_refresh_tokens';

    id!: string;
    grantId!: string;
    tokenHash!: string;
    createdAt!: string;
    expiresAt!: string;
    usedAt!: string | null;
}
