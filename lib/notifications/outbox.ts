import type { Knex } from 'knex';

import { newId } from '../ids';
import { User } from '../models/user';
import type { JobQueue } from '../queue/types';
import { nowIso } from '../time';
import { MESSAGE_TYPES, type NotificationType } from './catalogue';
import { Notification } from './models';
import { renderMessage, type MessageData } from './render';

// The outbox: a notification is a row written in the transaction of the change that causes it, with its delivery
// job enqueued in that same transaction, so a message exists exactly when its cause does and is never lost between
// the two. The job delivers it (see delivery.ts); the message's status says where it stands.
export const DELIVER_JOB = 'notifications.deliver';
const DELIVERY_ATTEMPTS = 12;                                   // about 15 to 30 minutes of backoff in all
const RETRYABLE_STATUSES = ['not_configured', 'failed'] as const;

export interface Notice {
    type: NotificationType;
    userId: string;                                             // the recipient: their account's email address
    data: MessageData;                                          // what the type's templates name; never a secret
}

export interface OutboxOptions {
    queue: JobQueue;
    publicUrl: string;                                          // links in messages point here
}

export class Outbox {
    constructor(private readonly options: OutboxOptions) { }

    /** Writes the message and enqueues its delivery in the caller's transaction; answers the message's id. */
    async send(trx: Knex.Transaction, notice: Notice): Promise<string> {
        const user = await User.query(trx).findById(notice.userId);
        if (!user) {
            throw new Error(`There is no user ${notice.userId} to send ${notice.type} to`);
        }

        const { subject, body } = renderMessage(notice.type, notice.data, { email: user.email, publicUrl: this.options.publicUrl });
        const id = newId('ntf');
        const now = nowIso();
        const job = await this.enqueue(trx, id);
        await Notification.query(trx).insert({
            id, userId: notice.userId, type: notice.type, category: MESSAGE_TYPES[notice.type].category, recipient: user.email,
            subject, body, status: 'queued', jobId: job, createdAt: now, updatedAt: now, sentAt: null
        });
        return id;
    }

    /** Queues every message that was not configured or failed for delivery again (once each, however often it is
     * asked concurrently); answers how many. */
    async retry(knex: Knex, filter: { userId?: string } = {}): Promise<number> {
        const query = knex('notifications').whereIn('status', RETRYABLE_STATUSES).orderBy('created_at');
        const ids = await (filter.userId ? query.where({ user_id: filter.userId }) : query).pluck('id') as string[];
        let queued = 0;
        for (const id of ids) {
            queued += await knex.transaction(async (trx) => {
                const claimed = await trx('notifications').where({ id }).whereIn('status', RETRYABLE_STATUSES).update({ status: 'queued', updated_at: nowIso() });
                if (!claimed) {
                    return 0;
                }

                await trx('notifications').where({ id }).update({ job_id: await this.enqueue(trx, id) });
                return 1;
            });
        }

        return queued;
    }

    private async enqueue(trx: Knex.Transaction, notificationId: string): Promise<string> {
        const job = await this.options.queue.enqueue(DELIVER_JOB, { notificationId }, { trx, maxAttempts: DELIVERY_ATTEMPTS });
        return job.id;
    }
}
