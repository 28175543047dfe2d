import type { Knex } from 'knex';

// Attempts, and the messages whose delivery is over, are kept for the retention period; a message still queued is
// kept whatever its age. Running it twice removes nothing more.
export async function pruneNotifications(knex: Knex, retentionDays: number): Promise<{ messages: number; attempts: number }> {
    const before = new Date(Date.now() - retentionDays * 24 * 3600 * 1000).toISOString();
    return knex.transaction(async (trx) => {
        const attempts = await trx('notification_attempts').where('attempted_at', '<', before).delete();
        const messages = await trx('notifications').where('created_at', '<', before).whereNot({ status: 'queued' }).delete();
        return { messages, attempts };
    });
}
