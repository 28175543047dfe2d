import type { Knex } from 'knex';

import { newId } from '../ids';
import { redact } from '../redact';
import { nowIso } from '../time';

// The admin access audit: who read what through an admin tool, with which explicit ids, when, and what came of it.
// Written before the answer leaves the API; when the write fails the caller is denied and told nothing of the data.
// Append-only (a trigger refuses updates and deletes: migration 105); arguments are short values, redacted here.

export const AUDIT_OUTCOMES = ['ok', 'not_found', 'invalid', 'failed', 'unavailable', 'unsupported', 'inconclusive'] as const;
export type AuditOutcome = typeof AUDIT_OUTCOMES[number];

export interface AccessRecord {
    adminId: string;
    adminEmail: string;
    credentialId: string;
    tool: string;
    route: string;
    args: Readonly<Record<string, unknown>>;
    outcome: AuditOutcome;
    ip: string | null;
}

export interface AuditRow {
    seq: number | string;
    id: string;
    admin_id: string;
    admin_email: string;
    credential_id: string;
    tool: string;
    route: string;
    arguments: string;
    outcome: string;
    ip: string | null;
    created_at: string;
}

const MAX_STRING = 200;

/** The arguments as recorded: scalars only, strings redacted and cut short; anything else is named, not kept. */
export function cleanArguments(args: Readonly<Record<string, unknown>>): Record<string, string | number | boolean | null> {
    const clean: Record<string, string | number | boolean | null> = {};
    for (const [name, value] of Object.entries(args).slice(0, 32)) {
        if (value === undefined) {
            continue;
        }

        clean[name.slice(0, 64)] = typeof value === 'string' ? redact(value).slice(0, MAX_STRING)
            : typeof value === 'number' || typeof value === 'boolean' || value === null ? value
                : '[not recorded]';
    }

    return clean;
}

/** Writes one record; throws when the database refuses it (the caller then denies the call). */
export async function recordAdminAccess(db: Knex, record: AccessRecord): Promise<string> {
    const id = newId('aud');
    await db('admin_access_audit').insert({
        id,
        admin_id: record.adminId,
        admin_email: record.adminEmail,
        credential_id: record.credentialId,
        tool: record.tool,
        route: record.route,
        arguments: JSON.stringify(cleanArguments(record.args)),
        outcome: record.outcome,
        ip: record.ip,
        created_at: nowIso()
    });
    return id;
}

export function auditView(row: AuditRow) {
    return {
        id: row.id,
        adminId: row.admin_id,
        adminEmail: row.admin_email,
        credentialId: row.credential_id,
        tool: row.tool,
        route: row.route,
        arguments: JSON.parse(row.arguments) as unknown,
        outcome: row.outcome,
        ip: row.ip,
        createdAt: row.created_at
    };
}
