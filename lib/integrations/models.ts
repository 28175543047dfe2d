import { BaseModel } from '../db/model';
import type { EventType } from '../events';

/** A project's integration: its webhook URL sealed, a hint of it without the secret path, and the events it receives. */
export class Integration extends BaseModel {
    static override tableName = 'integrations';
    static override jsonAttributes = ['events'];

    id!: string;
    projectId!: string;
    type!: 'slack';
    webhookUrl!: string;
    webhookHint!: string;
    channel!: string | null;
    events!: EventType[];
    createdBy!: string | null;
    createdAt!: string;
    updatedAt!: string;
}

export type DeliveryStatus = 'queued' | 'delivered' | 'failed';

/** One event (or test message) to deliver to one integration. */
export class IntegrationDelivery extends BaseModel {
    static override tableName = 'integration_deliveries';

    id!: string;
    integrationId!: string;
    projectId!: string;
    eventId!: string;
    eventType!: string;
    message!: string;
    status!: DeliveryStatus;
    jobId!: string | null;
    attempts!: number;
    createdAt!: string;
    updatedAt!: string;
    deliveredAt!: string | null;
}

/** One attempt at a delivery: when, how it ended, the receiver's status code and words; never the URL. */
export class IntegrationAttempt extends BaseModel {
    static override tableName = 'integration_attempts';

    id!: string;
    deliveryId!: string;
    integrationId!: string;
    outcome!: 'delivered' | 'failed';
    responseCode!: number | null;
    response!: string;
    attemptedAt!: string;
}
