import { BaseModel } from '../db/model';
import type { GitProviderName } from './provider';

/**
 * A project's connection to a Git host, made by the connect flow (connect.ts). The access and refresh tokens are
 * sealed with ENCRYPTION_KEY; `generation` grows with each refresh, so two processes refreshing at once keep one
 * result. `status` is `reconnect` once the host refused the token: it was revoked, or its refresh was refused.
 */
export class GitConnection extends BaseModel {
    static override tableName = 'git_connections';

    id!: string;
    projectId!: string;
    provider!: GitProviderName;
    accountLogin!: string;
    accountName!: string | null;
    token!: string;
    refreshToken!: string | null;
    expiresAt!: string | null;
    scopes!: string | null;
    status!: 'connected' | 'reconnect';
    generation!: number;
    createdBy!: string | null;
    createdAt!: string;
    updatedAt!: string;
}

/** One start of the connect flow: the state (only its SHA-256 kept) is bound to the session, the project and the host. */
export class GitConnectState extends BaseModel {
    static override tableName = 'git_connect_states';

    id!: string;
    stateHash!: string;
    provider!: GitProviderName;
    projectId!: string;
    userId!: string;
    sessionId!: string;
    expiresAt!: string;
    usedAt!: string | null;
    createdAt!: string;
}

/** A connection as the API shows it: never a token. */
export function publicConnection(connection: GitConnection) {
    return {
        id: connection.id,
        provider: connection.provider,
        projectId: connection.projectId,
        accountLogin: connection.accountLogin,
        accountName: connection.accountName,
        status: connection.status,
        scopes: connection.scopes ? connection.scopes.split(/[\s,]+/).filter(Boolean) : [],
        tokenExpiresAt: connection.expiresAt,
        connectedBy: connection.createdBy,
        createdAt: connection.createdAt,
        updatedAt: connection.updatedAt
    };
}
