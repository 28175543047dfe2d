import { BaseModel } from '../../../lib/db/model';

export class Session extends BaseModel {
    static override tableName = 'sessions';

    id!: string;
    userId!: string;
    createdAt!: string;
    expiresAt!: string;
    revokedAt!: string | null;
    revokedReason!: 'logout' | 'refresh_reuse' | 'password_changed' | 'user_disabled' | 'signed_out_by_user' | 'signed_out_elsewhere' | null;
}

/** Refresh tokens are stored as SHA-256 digests; a used one presented again ends its whole session. */
export class RefreshToken extends BaseModel {
    static override tableName = 'refresh_tokens';

    id!: string;
    sessionId!: string;
    tokenHash!: string;
    createdAt!: string;
    usedAt!: string | null;
}
