import { BaseModel } from '../../../lib/db/model';
import type { Scope } from '../../../lib/scopes';

/** Only the SHA-256 of the secret is stored; the token exists once, in the create (or roll) response. */
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
    // Beyond the spec's seven fields (docs/authentication.md), on their own routes only.
    previousSecretHash?: string | null;                         // the secret a roll replaced, while its overlap lasts
    previousExpiresAt?: string | null;
    previousNotifiedAt?: string | null;
    rolledAt?: string | null;
    allowedCidrs?: string | null;                               // JSON list of canonical ranges; null: any address
    lastUsedIp?: string | null;
    scopeUses?: string | null;                                  // JSON {scope: day last exercised}
    expiryReminder?: string | null;
    revokedReason?: string | null;
    leakedAt?: string | null;
    leakUrl?: string | null;
    leakSource?: string | null;
    addressNotifiedAt?: string | null;
}
