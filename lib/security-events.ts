import type { Knex } from 'knex';

import { newId } from './ids';
import { redact } from './redact';
import { nowIso } from './time';

// The security event log: append-only, written in the caller's transaction so an event exists exactly when the
// change it records does, and never holding a secret (data is a flat record of short values, redacted again here).
export const SECURITY_EVENT_TYPES = [
    'user.registered',
    'session.signed_in',
    'session.sign_in_failed',
    'session.revoked',
    'user.password_changed',
    'api_key.created',
    'api_key.revoked',
    'api_key.rolled',
    'api_key.previous_secret_used',
    'api_key.policy_changed',
    'api_key.address_refused',
    'api_key.new_address',
    'api_key.leaked',
    'user.disabled',
    'user.enabled',
    'user.admin_granted',
    'user.admin_revoked',
    'collaborator.granted',
    'collaborator.removed',
    'collaborator.ended',
    'invitation.sent',
    'invitation.accepted',
    'invitation.declined',
    'invitation.canceled',
    'project.left',
    'oauth_client.created',
    'oauth_client.deleted',
    'oauth_grant.created',
    'oauth_grant.revoked'
] as const;

export type SecurityEventType = typeof SECURITY_EVENT_TYPES[number];

type Value = string | number | boolean | null | readonly string[];

export interface SecurityEvent {
    type: SecurityEventType;
    userId: string | null;                                      // whose account the event is about
    actor: string;                                              // the user who acted, or `cli` for an operator command
    credentialId?: string | null;                               // the key or session involved (an id, never a secret)
    ip?: string | null;
    data?: Readonly<Record<string, Value>>;
}

/** Where a change came from, passed from the route to the service that records it. */
export interface RequestOrigin {
    ip: string | null;
}

const MAX_STRING = 200;

function clean(value: Value): Value {
    if (typeof value === 'string') {
        return redact(value).slice(0, MAX_STRING);
    }

    if (Array.isArray(value)) {
        return value.slice(0, 64).map((item) => redact(String(item)).slice(0, MAX_STRING));
    }

    return value;
}

function row(event: SecurityEvent, at: string) {
    const data = Object.fromEntries(Object.entries(event.data ?? {}).map(([key, value]) => [key, clean(value)]));
    return {
        id: newId('evt'),
        type: event.type,
        user_id: event.userId,
        actor: event.actor,
        credential_id: event.credentialId ?? null,
        ip: event.ip ?? null,
        data: JSON.stringify(data),
        created_at: at
    };
}

export async function recordSecurityEvent(db: Knex | Knex.Transaction, event: SecurityEvent): Promise<void> {
    await db('security_events').insert(row(event, nowIso()));
}

/** Several events in one statement per hundred (events noted on the request path and written after it), each at its own time. */
export async function recordSecurityEvents(db: Knex | Knex.Transaction, events: ReadonlyArray<{ event: SecurityEvent; at: string }>): Promise<void> {
    for (let start = 0; start < events.length; start += 100) {
        await db('security_events').insert(events.slice(start, start + 100).map(({ event, at }) => row(event, at)));
    }
}

/** Removes events older than the retention period; the only deletion the log ever sees. */
export async function pruneSecurityEvents(db: Knex, retentionDays: number): Promise<number> {
    const before = new Date(Date.now() - retentionDays * 24 * 3600 * 1000).toISOString();
    return db('security_events').where('created_at', '<', before).delete();
}
