import type { Knex } from 'knex';

import { Delivery } from '../../lib/notifications/delivery';
import { DELIVER_JOB, Outbox } from '../../lib/notifications/outbox';
import { pruneNotifications } from '../../lib/notifications/retention';
import { SmtpMailer, type SmtpOptions } from '../../lib/notifications/smtp';
import { dailyJob } from '../../lib/queue/daily';
import { bindRoutes, type FamilyPlugin } from '../../lib/route-table';
import { notificationsTable } from '../../manifest/routes/notifications';
import { preferenceRoutes } from './routes';

// Notifications: the outbox other families send through (exposed as `outbox`), the job that delivers each message
// over SMTP (or records `not_configured` without SMTP_URL), a daily job that prunes past the retention period, and
// the user's preference routes.
export interface NotificationsPluginOptions {
    knex: Knex;
    publicUrl: string;
    smtp: SmtpOptions | null;
    retentionDays: number;
}

const PRUNE_JOB = 'notifications.prune';

export const notificationsPlugin: FamilyPlugin<NotificationsPluginOptions> = {
    name: 'hostless-notifications',
    table: notificationsTable,
    dependencies: ['hostless-auth', 'hostless-jobs'],
    register(server, options) {
        const queue = server.plugins['hostless-jobs'].queue;
        const mailer = options.smtp ? new SmtpMailer(options.smtp) : null;
        const delivery = new Delivery(options.knex, mailer);

        queue.handle(DELIVER_JOB, (payload: { notificationId: string }, job) => delivery.attempt(payload.notificationId, job));
        server.ext('onPostStart', dailyJob(queue, PRUNE_JOB, () => pruneNotifications(options.knex, options.retentionDays)));
        server.ext('onPostStop', () => mailer?.close());
        server.expose('outbox', new Outbox({ queue, publicUrl: options.publicUrl }));

        bindRoutes(server, notificationsTable, preferenceRoutes(options.knex));
    }
};
