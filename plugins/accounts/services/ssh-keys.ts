import * as Boom from '@hapi/boom';
import type { Knex } from 'knex';

import { isUniqueViolation } from '../../../lib/db/errors';
import { newId } from '../../../lib/ids';
import { nowIso } from '../../../lib/time';
import { SshKey } from '../models/ssh-key';
import { parseSshPublicKey } from '../ssh-public-key';

export const MAX_SSH_KEYS = 50;

export class SshKeysService {
    constructor(private readonly knex: Knex) { }

    async list(userId: string): Promise<SshKey[]> {
        return await SshKey.query(this.knex).where({ user_id: userId }).orderBy('created_at', 'desc').orderBy('id', 'desc');
    }

    async add(userId: string, input: { name?: string | undefined; publicKey: string }): Promise<SshKey> {
        const parsed = parseSshPublicKey(input.publicKey);
        if ('error' in parsed) {
            throw Boom.badRequest(`"publicKey" ${parsed.error}`);
        }

        const comment = input.publicKey.trim().split(/\s+/).slice(2).join(' ');
        try {
            return await this.knex.transaction(async (trx) => {
                const count = await SshKey.query(trx).where({ user_id: userId }).resultSize();
                if (count >= MAX_SSH_KEYS) {
                    throw Boom.conflict(`An account holds at most ${MAX_SSH_KEYS} SSH keys`);
                }

                return SshKey.query(trx).insertAndFetch({
                    id: newId('ssh'), userId, name: input.name ?? (comment || parsed.type), publicKey: parsed.normalized, fingerprint: parsed.fingerprint, createdAt: nowIso()
                });
            });
        }
        catch (err) {
            if (isUniqueViolation(err)) {
                throw Boom.conflict('This SSH key is already on your account');
            }

            throw err;
        }
    }

    async remove(userId: string, id: string): Promise<void> {
        const deleted = await SshKey.query(this.knex).delete().where({ id, user_id: userId });
        if (!deleted) {
            throw Boom.notFound('SSH key not found');
        }
    }
}
