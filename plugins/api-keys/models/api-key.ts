import { BaseModel } from '../../../lib/db/model';
import type { Scope } from '../../../lib/scopes';

/** Only the SHA-256 of the secret is stored; the token exists once, in the create response. */
export class ApiKey extends BaseModel {
    static override tableName = 'api_keys';
    static override jsonAttributes = ['scopes'];

    id!: string;
    userId!: string;
    name!: string;
    prefix!: string;
    secretHash!: string;
    scopes!: Scope[];
    expiresAt!: string | null;
    lastUsedAt!: string | null;
    revokedAt!: string | null;
    createdAt!: string;
}
