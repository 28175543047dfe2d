import type { Knex } from 'knex';

import { newId } from '../ids';
import type { JobContext } from '../queue/types';
import { nowIso } from '../time';
import { isCategory } from './catalogue';
import { Notification, NotificationAttempt, type AttemptOutcome, type NotificationStatus } from './models';
import { receives } from './preferences';
import { MailFailure, type Mailer } from './smtp';

// One delivery attempt of one message, run by its job. Every attempt is recorded with its outcome: `sent`,
// `failed` (retried with the queue's backoff: a transient failure until the job's last attempt, a permanent refusal
// up to PERMANENT_FAILURE_ATTEMPTS times), `not_configured` (no SMTP_URL: kept until an operator queues it again)
// or `suppressed` (the user switched its category off). Only the job that owns the message may attempt it.
export const PERMANENT_FAILURE_ATTEMPTS = 3;

export class Delivery {
    constructor(private readonly knex: Knex, private readonly mailer: Mailer | null) { }

    async attempt(notificationId: string, job: JobContext): Promise<void> {
        const message = await Notification.query(this.knex).findById(notificationId);
        if (!message || message.status !== 'queued' || message.jobId !== job.id) {
            return;                                             // delivered, given up, or queued again under another job
        }

        if (isCategory(message.category) && !await receives(this.knex, message.userId, message.category)) {
            return this.record(message, job, { outcome: 'suppressed', response: `The recipient switched ${message.category} messages off`, responseCode: null });
        }

        if (!this.mailer) {
            return this.record(message, job, { outcome: 'not_configured', response: 'SMTP_URL is not set: nothing was sent', responseCode: null });
        }

        let receipt;
        try {
            receipt = await this.mailer.send({ to: message.recipient, subject: message.subject, text: message.body }, job.signal);
        }
        catch (err) {
            if (!(err instanceof MailFailure)) {
                throw err;
            }

            const last = job.attempt >= (err.permanent ? Math.min(PERMANENT_FAILURE_ATTEMPTS, job.maxAttempts) : job.maxAttempts);
            await this.record(message, job, { outcome: 'failed', response: err.response, responseCode: err.responseCode }, last ? 'failed' : 'queued');
            if (last) {
                return;
            }

            throw err;                                          // the queue runs the job again after its backoff
        }

        await this.record(message, job, { outcome: 'sent', ...receipt });
    }

    private async record(message: Notification, job: JobContext, attempt: { outcome: AttemptOutcome; response: string; responseCode: number | null }, status: NotificationStatus = attempt.outcome): Promise<void> {
        const now = nowIso();
        await this.knex.transaction(async (trx) => {
            await NotificationAttempt.query(trx).insert({ id: newId('nta'), notificationId: message.id, ...attempt, response: attempt.response.slice(0, 500), attemptedAt: now });
            await Notification.query(trx).patch({ status, updatedAt: now, ...(attempt.outcome === 'sent' ? { sentAt: now } : {}) }).where({ id: message.id, job_id: job.id });
        });
    }
}
