import type { Knex } from 'knex';

import type { Lists, PageRequest } from '../lists';
import type { Page } from '../pagination';
import { Notification, NotificationAttempt } from './models';

// What was sent to a user and how each attempt went, newest first, attempts in the order they were made: the
// communications inspection of the admin tools reads it. Messages hold no secret by construction (see render.ts),
// and attempts only what the server said.
export async function listNotifications(lists: Lists, knex: Knex, userId: string, page: PageRequest): Promise<Page<Notification>> {
    const messages = await lists.page({ table: 'notifications', scope: { user_id: userId }, load: (row) => Notification.fromDatabaseJson(row) }, page);
    const attempts = messages.items.length
        ? await NotificationAttempt.query(knex).whereIn('notification_id', messages.items.map((message) => message.id)).orderBy('attempted_at').orderBy('id')
        : [];
    for (const message of messages.items) {
        message.attempts = attempts.filter((attempt) => attempt.notificationId === message.id);
    }

    return messages;
}
