import type { Knex } from 'knex';

import { publicPrefix } from '../../../lib/api-key-token';
import type { Outbox } from '../../../lib/notifications/outbox';
import { toIso } from '../../../lib/time';

// Expiry reminders, 7 days and 1 day before a key expires (GitLab's schedule), through the notifications outbox. Each
// stage is sent once per key: the stage is set in the transaction that writes the message, only if nobody set it
// since. A stage is skipped for a key whose whole life is shorter than it (a key made to last 3 days gets no
// "7 days left" message). Revoked keys and disabled accounts get none.
const DAY_MS = 24 * 3600_000;
const STAGES = [{ name: '1d', before: DAY_MS }, { name: '7d', before: 7 * DAY_MS }] as const;

interface Candidate {
    id: string;
    user_id: string;
    name: string;
    prefix: string;
    expires_at: string;
    created_at: string;
    expiry_reminder: string | null;
}

function when(left: number): string {
    return left >= 2 * DAY_MS ? `in ${Math.floor(left / DAY_MS)} days` : `in ${Math.max(1, Math.floor(left / 3600_000))} hours`;
}

/** Sends the reminders due at `now`; answers how many were sent. */
export async function sendExpiryReminders(knex: Knex, outbox: Outbox, now: number): Promise<number> {
    const candidates = await knex('api_keys as k').join('users as u', 'u.id', 'k.user_id')
        .whereNull('k.revoked_at').whereNull('u.disabled_at')
        .where('k.expires_at', '>', toIso(now)).where('k.expires_at', '<=', toIso(now + 7 * DAY_MS))
        .andWhere((q) => {
            void q.whereNull('k.expiry_reminder').orWhereNot('k.expiry_reminder', '1d');
        })
        .select<Candidate[]>('k.id', 'k.user_id', 'k.name', 'k.prefix', 'k.expires_at', 'k.created_at', 'k.expiry_reminder');

    let sent = 0;
    for (const key of candidates) {
        const left = Date.parse(key.expires_at) - now;
        const stage = STAGES.find((candidate) => left <= candidate.before)!;
        if (key.expiry_reminder === stage.name || Date.parse(key.expires_at) - Date.parse(key.created_at) <= stage.before) {
            continue;
        }

        sent += await knex.transaction(async (trx) => {
            const query = trx('api_keys').where({ id: key.id });
            const claimed = await (key.expiry_reminder === null ? query.whereNull('expiry_reminder') : query.where('expiry_reminder', key.expiry_reminder))
                .update({ expiry_reminder: stage.name });
            if (!claimed) {
                return 0;
            }

            await outbox.send(trx, {
                type: 'security.api_key_expiring', userId: key.user_id,
                data: { name: key.name, prefix: publicPrefix(key.prefix), expiresAt: key.expires_at, when: when(left) }
            });
            return 1;
        });
    }

    return sent;
}
