import { BaseModel } from '../../../lib/db/model';

/** A user's confidential client for a custom connector: only the SHA-256 of its secret is stored. */
export class RegisteredClient extends BaseModel {
    static override tableName = 'oauth_clients';
    static override jsonAttributes = ['redirectUris'];

    id!: string;
    userId!: string;
    name!: string;
    secretHash!: string;
    redirectUris!: string[];
    createdAt!: string;
}
