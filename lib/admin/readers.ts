import type { Knex } from 'knex';

// What the admin inspection routes read: accounts, resources, allocation, the outbox and an account's activity,
// straight from the platform's own tables and never a secret (hashes, sealed values and message bodies stay out).
// Each reader answers null for an id that names nothing; the route turns that into a 404.

type Row = Record<string, unknown>;

export const RESOURCE_TABLES: Readonly<Record<string, string>> = {
    app: 'apps', site: 'sites', worker: 'workers', cron_job: 'cron_jobs', database: 'databases', virtual_machine: 'virtual_machines'
};

// The columns of a resource row an admin sees; credentials, commands and sealed fields are not among them.
const RESOURCE_FIELDS: Readonly<Record<string, string>> = {
    id: 'id', name: 'name', project_id: 'projectId', status: 'status', plan: 'plan', tier: 'tier', engine: 'engine', version: 'version',
    region: 'region', instances: 'instances', live_deployment_id: 'liveDeploymentId', created_at: 'createdAt', updated_at: 'updatedAt'
};

export async function accountOf(knex: Knex, userId: string) {
    const user = await knex('users').where('id', userId).first<Row | undefined>('id', 'email', 'name', 'admin_since', 'disabled_at', 'created_at');
    if (!user) {
        return null;
    }

    const projects = await knex('memberships as m').join('projects as p', 'p.id', 'm.project_id').where('m.user_id', userId)
        .orderBy('m.created_at').limit(100).select<Row[]>('p.id', 'p.name', 'p.kind', 'p.status', 'm.role');
    const keys = await knex('api_keys').where('user_id', userId).orderBy('created_at', 'desc').limit(50)
        .select<Row[]>('id', 'name', 'prefix', 'expires_at', 'last_used_at', 'revoked_at', 'created_at');
    const sessions = await knex('sessions').where('user_id', userId).whereNull('revoked_at').where('expires_at', '>', new Date().toISOString()).count({ n: '*' }).first<{ n: number | string }>();
    const grants = await knex('oauth_grants').where('user_id', userId).whereNull('revoked_at').count({ n: '*' }).first<{ n: number | string }>();
    const preferences = await knex('notification_preferences').where('user_id', userId).select<Row[]>('category', 'enabled');
    return {
        id: user.id, email: user.email, name: user.name, createdAt: user.created_at,
        isAdmin: !!user.admin_since, adminSince: user.admin_since ?? null, disabled: !!user.disabled_at, disabledAt: user.disabled_at ?? null,
        projects: projects.map((p) => ({ id: p.id, name: p.name, kind: p.kind, status: p.status, role: p.role })),
        apiKeys: keys.map((k) => ({ id: k.id, name: k.name, prefix: k.prefix, expiresAt: k.expires_at ?? null, lastUsedAt: k.last_used_at ?? null, revokedAt: k.revoked_at ?? null, createdAt: k.created_at })),
        activeSessions: Number(sessions.n),
        activeOAuthGrants: Number(grants.n),
        notificationPreferences: Object.fromEntries(preferences.map((p) => [p.category as string, !!p.enabled]))
    };
}

export async function resourceOf(knex: Knex, type: string, id: string) {
    const row = await knex(RESOURCE_TABLES[type]).where('id', id).first<Row | undefined>();
    if (!row) {
        return null;
    }

    const fields = Object.fromEntries(Object.entries(RESOURCE_FIELDS).filter(([column]) => column in row).map(([column, name]) => [name, row[column] ?? null]));
    const deployments = await knex('deployments').where('resource_id', id).orderBy('created_at', 'desc').limit(10)
        .select<Row[]>('id', 'status', 'trigger', 'commit_sha', 'error', 'created_at', 'finished_at');
    const allocation = await knex('allocation_events').where('resource_id', id).orderBy('seq', 'desc').limit(10)
        .select<Row[]>('reason', 'running', 'instances', 'plan', 'storage_gib', 'at');
    return {
        resourceType: type, ...fields,
        deployments: deployments.map((d) => ({ id: d.id, status: d.status, trigger: d.trigger, commitSha: d.commit_sha ?? null, error: d.error ?? null, createdAt: d.created_at, finishedAt: d.finished_at ?? null })),
        allocationEvents: allocation.map((a) => ({ reason: a.reason, running: !!a.running, instances: Number(a.instances), plan: a.plan ?? null, storageGiB: Number(a.storage_gib), at: a.at }))
    };
}

const HOUR = 3600_000;

/** Instance-hours and GiB-hours per resource over [from, to), integrated from the allocation events. */
export async function usageOf(knex: Knex, projectId: string, from: Date, to: Date) {
    const project = await knex('projects').where('id', projectId).first<Row | undefined>('id', 'name');
    if (!project) {
        return null;
    }

    const events = await knex('allocation_events').where('project_id', projectId).where('at', '<', to.toISOString())
        .orderBy('seq').limit(10_000).select<Row[]>('resource_type', 'resource_id', 'running', 'instances', 'storage_gib', 'plan', 'at');
    const resources = new Map<string, { resourceType: string; resourceId: string; instanceHours: number; storageGiBHours: number; last: Row | null; plans: Set<string> }>();
    const accrue = (entry: { instanceHours: number; storageGiBHours: number; last: Row | null }, until: number) => {
        if (entry.last) {
            const start = Math.max(Date.parse(entry.last.at as string), from.getTime());
            const hours = Math.max(0, until - start) / HOUR;
            entry.instanceHours += entry.last.running ? Number(entry.last.instances) * hours : 0;
            entry.storageGiBHours += Number(entry.last.storage_gib) * hours;
        }
    };
    for (const event of events) {
        const key = event.resource_id as string;
        const entry = resources.get(key) ?? { resourceType: event.resource_type as string, resourceId: key, instanceHours: 0, storageGiBHours: 0, last: null, plans: new Set<string>() };
        accrue(entry, Date.parse(event.at as string));
        entry.last = event;
        if (event.plan && Date.parse(event.at as string) < to.getTime()) {
            entry.plans.add(event.plan as string);
        }

        resources.set(key, entry);
    }

    const rows = [...resources.values()].map((entry) => {
        accrue(entry, to.getTime());
        return { resourceType: entry.resourceType, resourceId: entry.resourceId, plans: [...entry.plans], instanceHours: round(entry.instanceHours), storageGiBHours: round(entry.storageGiBHours) };
    }).filter((row) => row.instanceHours > 0 || row.storageGiBHours > 0);
    return {
        projectId, projectName: project.name,
        period: { from: from.toISOString(), to: to.toISOString() },
        units: { instanceHours: 'instance-hours (running instances x hours)', storageGiBHours: 'GiB-hours of reserved storage' },
        truncated: events.length === 10_000,
        resources: rows
    };
}

const round = (value: number) => Math.round(value * 1000) / 1000;

/** The outbox's messages for an account, newest first, each with its attempts; subjects only, never bodies. */
export async function communicationsOf(knex: Knex, userId: string, limit: number, before: string | null) {
    const query = knex('notifications').where('user_id', userId).orderBy([{ column: 'created_at', order: 'desc' }, { column: 'id', order: 'desc' }]).limit(limit + 1)
        .select('id', 'type', 'category', 'recipient', 'subject', 'status', 'created_at', 'sent_at');
    if (before) {
        const [at, id] = before.split('|');
        query.where((q) => void q.where('created_at', '<', at).orWhere((same) => void same.where('created_at', at).where('id', '<', id ?? '')));
    }

    const rows = await query as Row[];
    const page = rows.slice(0, limit);
    const attempts = page.length ? await knex('notification_attempts').whereIn('notification_id', page.map((row) => row.id as string)).orderBy('attempted_at')
        .select<Row[]>('notification_id', 'outcome', 'response_code', 'response', 'attempted_at') : [];
    return {
        messages: page.map((row) => ({
            id: row.id, type: row.type, category: row.category, recipient: row.recipient, subject: row.subject, status: row.status, createdAt: row.created_at, sentAt: row.sent_at ?? null,
            attempts: attempts.filter((a) => a.notification_id === row.id).map((a) => ({ outcome: a.outcome, responseCode: a.response_code ?? null, response: a.response, attemptedAt: a.attempted_at }))
        })),
        next: rows.length > limit ? `${page[page.length - 1].created_at as string}|${page[page.length - 1].id as string}` : null
    };
}

/** An account's activity, newest first: its security events, its projects' deployments and the messages it was sent. */
export async function timelineOf(knex: Knex, userId: string, limit: number) {
    const projects = knex('memberships').where('user_id', userId).select('project_id');
    const [events, deployments, messages] = await Promise.all([
        knex('security_events').where('user_id', userId).orderBy('seq', 'desc').limit(limit).select('type', 'actor', 'ip', 'created_at'),
        knex('deployments').whereIn('project_id', projects).orderBy('created_at', 'desc').limit(limit).select('id', 'resource_type', 'resource_id', 'project_id', 'status', 'created_at'),
        knex('notifications').where('user_id', userId).orderBy('created_at', 'desc').limit(limit).select('id', 'type', 'status', 'created_at')
    ]) as [Row[], Row[], Row[]];
    const entries = [
        ...events.map((e) => ({ at: e.created_at as string, source: 'security', what: e.type, detail: { actor: e.actor, ip: e.ip ?? null } })),
        ...deployments.map((d) => ({ at: d.created_at as string, source: 'deployment', what: `deployment.${d.status as string}`, detail: { id: d.id, resourceType: d.resource_type, resourceId: d.resource_id, projectId: d.project_id } })),
        ...messages.map((m) => ({ at: m.created_at as string, source: 'notification', what: m.type, detail: { id: m.id, status: m.status } }))
    ];
    return entries.sort((a, b) => b.at.localeCompare(a.at)).slice(0, limit);
}
