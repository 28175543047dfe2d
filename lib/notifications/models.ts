import { BaseModel } from '../db/model';

export type NotificationStatus = 'queued' | 'sent' | 'failed' | 'not_configured' | 'suppressed';
export type AttemptOutcome = Exclude<NotificationStatus, 'queued'>;

/** One delivery attempt: what happened, and what the server (or the outbox) said, never a secret. */
export class NotificationAttempt extends BaseModel {
    static override tableName = 'notification_attempts';

    id!: string;
    notificationId!: string;
    outcome!: AttemptOutcome;
    responseCode!: number | null;                               // the SMTP reply code, when a server answered
    response!: string;
    attemptedAt!: string;
}

/** A message to one user, rendered when its cause happened; `jobId` is the delivery job that owns it now. */
export class Notification extends BaseModel {
    static override tableName = 'notifications';

    id!: string;
    userId!: string;
    type!: string;
    category!: string;
    recipient!: string;
    subject!: string;
    body!: string;
    status!: NotificationStatus;
    jobId!: string | null;
    createdAt!: string;
    updatedAt!: string;
    sentAt!: string | null;
    attempts?: NotificationAttempt[];                          // filled by the reader
}
