import { BaseModel } from '../../../lib/db/model';

export class SshKey extends BaseModel {
    static override tableName = 'ssh_keys';

    id!: string;
    userId!: string;
    name!: string;
    publicKey!: string;
    fingerprint!: string;
    createdAt!: string;
}
