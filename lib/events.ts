import type { Knex } from 'knex';

import { randomBase62 } from './base62';
import { nowIso } from './time';

// Platform events: what happened to a project's resources (a deployment went live, a cron run failed, a database
// is ready), told to whoever listens (the integrations deliver them to Slack). An event is emitted inside the
// transaction of the change it reports, and listeners write what they need (a delivery and its job) in that same
// transaction: an event exists exactly when its change is committed, and is never lost between the two.
//
// Emitting one, from any family:   await events.emit(trx, { type: 'cron-run.failed', projectId, resource, data })
// where `events` is `server.plugins['hostless-events'].events` (or `services.events` in lib/resources).

export const EVENT_TYPES = {
    'deployment.live': 'A deployment went live',
    'deployment.failed': 'A deployment failed',
    'cron-run.succeeded': 'A cron job run ended with exit code 0',
    'cron-run.failed': 'A cron job run failed',
    'database.ready': 'A database is ready to accept connections',
    'database.failed': 'A database could not be provisioned or stopped working',
    'database.deleted': 'A database was deleted'
} as const;

export type EventType = keyof typeof EVENT_TYPES;
export const EVENT_NAMES = Object.keys(EVENT_TYPES) as EventType[];

export interface EventInput {
    type: EventType;
    projectId: string;
    resource: { type: string; id: string; name: string };      // what it happened to: `app`, `site`, `cron-job`, `database`...
    /** What a message needs beyond the resource: ids, a status, a reason. Never a secret: listeners send it out. */
    data?: Readonly<Record<string, string | number | boolean | null>>;
}

export interface PlatformEvent extends Required<EventInput> {
    id: string;
    occurredAt: string;
}

export type EventListener = (trx: Knex.Transaction, event: PlatformEvent) => Promise<void>;

export class PlatformEvents {
    private readonly listeners: EventListener[] = [];

    subscribe(listener: EventListener): void {
        this.listeners.push(listener);
    }

    /** Tells every listener, in the caller's transaction; a listener that fails fails the change. */
    async emit(trx: Knex.Transaction, input: EventInput): Promise<PlatformEvent> {
        const event: PlatformEvent = { data: {}, ...input, id: `evt_${randomBase62(16)}`, occurredAt: nowIso() };
        for (const listener of this.listeners) {
            await listener(trx, event);
        }

        return event;
    }
}
