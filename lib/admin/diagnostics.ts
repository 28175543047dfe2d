import type { Knex } from 'knex';

import type { JobQueue } from '../queue/types';
import { redact } from '../redact';
import { failedPayments, money } from './finance';

// The admin diagnostics: the job queue (on whichever backend runs it), webhook-delivery evidence, one account's or
// project's troubles, and the platform's failures over recent hours. What a source cannot answer is said so in
// `outcome` (unavailable, unsupported, inconclusive), never answered with an empty list that looks like "nothing".

type Row = Record<string, unknown>;

/** The Temporal task queues the platform registers workflows on: inspection validates against these. */
export const TEMPORAL_TASK_QUEUES = ['hostless-platform'] as const;
export const WEBHOOK_RETENTION_DAYS = 7;
const DAY = 24 * 3600_000;

const clean = (text: unknown) => typeof text === 'string' ? redact(text).slice(0, 500) : null;

function payloadOf(payload: unknown): unknown {
    try {
        return JSON.parse(redact(JSON.stringify(payload ?? null))) as unknown;
    }
    catch {
        return null;
    }
}

export async function inspectQueue(queue: JobQueue, jobId: string | null) {
    const counts = await queue.counts();
    const base = { engine: 'bullmq', backend: queue.backend, backendDescription: queue.backend === 'database' ? 'the database job queue (table jobs)' : 'BullMQ on Redis', counts };
    if (!jobId) {
        return { outcome: 'ok', ...base, job: null };
    }

    const job = await queue.get(jobId);
    if (!job) {
        return { outcome: 'unavailable', reason: `no job ${jobId} is held by the queue (never enqueued, or removed after it finished)`, ...base, job: null };
    }

    return {
        outcome: 'ok', ...base,
        job: {
            id: job.id, type: job.type, status: job.status, attempts: job.attempts, maxAttempts: job.maxAttempts, runAt: job.runAt,
            lastError: clean(job.lastError), createdAt: job.createdAt, updatedAt: job.updatedAt, finishedAt: job.finishedAt, payload: payloadOf(job.payload)
        }
    };
}

export function inspectTemporal(taskQueue: string, workflowId: string, runId: string | null) {
    return {
        outcome: 'unavailable', engine: 'temporal', taskQueue, workflowId, runId,
        reason: 'this deployment runs no Temporal client: workflow history cannot be read'
    };
}

export async function webhookDelivery(knex: Knex, provider: string, deliveryId: string, now = Date.now()) {
    const since = new Date(now - WEBHOOK_RETENTION_DAYS * DAY).toISOString();
    const base = { provider, deliveryId, retentionDays: WEBHOOK_RETENTION_DAYS };
    if (provider === 'stripe' || provider === 'paystack') {
        return paymentWebhook(knex, provider, deliveryId, since, base);
    }

    if (provider !== 'slack') {
        return { outcome: 'unsupported', ...base, reason: `provider ${provider} is not inspected: supported are slack, stripe and paystack` };
    }

    const delivery = await knex('integration_deliveries as d').join('integrations as i', 'i.id', 'd.integration_id').where('d.id', deliveryId).where('d.created_at', '>=', since)
        .first<Row | undefined>('d.id', 'd.integration_id', 'd.project_id', 'd.event_id', 'd.event_type', 'd.status', 'd.attempts', 'd.created_at', 'd.delivered_at', 'i.webhook_hint', 'i.channel');
    if (!delivery) {
        return { outcome: 'unavailable', ...base, reason: `no slack delivery ${deliveryId} within the last ${WEBHOOK_RETENTION_DAYS} days (unknown, or expired)` };
    }

    const attempts = await knex('integration_attempts').where('delivery_id', deliveryId).orderBy('attempted_at').limit(50)
        .select<Row[]>('outcome', 'response_code', 'response', 'attempted_at');
    return {
        outcome: 'ok', ...base, direction: 'outgoing',
        delivery: {
            id: delivery.id, integrationId: delivery.integration_id, projectId: delivery.project_id, eventId: delivery.event_id, eventType: delivery.event_type,
            status: delivery.status, attempts: Number(delivery.attempts), createdAt: delivery.created_at, deliveredAt: delivery.delivered_at ?? null,
            destination: clean(delivery.webhook_hint), channel: delivery.channel ?? null
        },
        attempts: attempts.map((a) => ({ outcome: a.outcome, responseCode: a.response_code ?? null, response: clean(a.response), attemptedAt: a.attempted_at }))
    };
}

/**
 * An incoming payment webhook by the event id the processor gave it (Stripe: evt_...; Paystack, whose events carry
 * none: `<event>:<its object's id or reference>`), from the billing family's record of every arrival (payment_webhooks,
 * kept seven days, no payload): each arrival with its outcome, and when the event was applied.
 */
async function paymentWebhook(knex: Knex, provider: 'stripe' | 'paystack', eventId: string, since: string, base: object) {
    const arrivals = await knex('payment_webhooks').where({ provider, event_id: eventId }).where('received_at', '>=', since).orderBy('seq').limit(50)
        .select<Row[]>('type', 'outcome', 'received_at');
    if (!arrivals.length) {
        return { outcome: 'unavailable', ...base, reason: `no ${provider} event ${eventId} arrived within the last ${WEBHOOK_RETENTION_DAYS} days (unknown, or expired)` };
    }

    const applied = await knex('payment_events').where({ provider, event_id: eventId }).first<Row | undefined>('processed_at');
    return {
        outcome: 'ok', ...base, direction: 'incoming',
        delivery: {
            eventId, type: arrivals[0].type ?? null, firstReceivedAt: arrivals[0].received_at, lastReceivedAt: arrivals.at(-1)!.received_at,
            arrivals: arrivals.length, appliedAt: applied?.processed_at ?? null
        },
        attempts: arrivals.map((a) => ({ outcome: a.outcome, attemptedAt: a.received_at })),
        note: 'refused arrivals (bad_signature, stale, not_configured) carry no event id, since nothing verified them: platform incidents count them'
    };
}

const EXAMPLES = 20;

/** Dead jobs whose payload names one of the ids, read through the queue's backend (database or BullMQ). */
async function deadJobsNaming(queue: JobQueue, ids: readonly string[], since: string | null) {
    const { jobs } = await queue.dead(since, 200);
    return jobs.filter((job) => !ids.length || ids.some((id) => JSON.stringify(job.payload ?? null).includes(id))).slice(0, EXAMPLES)
        .map((job) => ({ id: job.id, type: job.type, attempts: job.attempts, lastError: clean(job.lastError), at: job.updatedAt }));
}

/** One account's or one project's failures: deployments, payments, messages, Slack deliveries, dead jobs, security warnings. */
export async function triage(knex: Knex, queue: JobQueue, target: { userId: string } | { projectId: string }) {
    const userId = 'userId' in target ? target.userId : null;
    const projectIds = userId
        ? (await knex('memberships').where('user_id', userId).select<Array<{ project_id: string }>>('project_id')).map((row) => row.project_id)
        : [(target as { projectId: string }).projectId];
    const exists = await knex(userId ? 'users' : 'projects').where('id', userId ?? projectIds[0]).first<object | undefined>('id');
    if (!exists) {
        return null;
    }

    const [deployments, deliveries, messages, security] = await Promise.all([
        knex('deployments').whereIn('project_id', projectIds).where('status', 'failed').orderBy('created_at', 'desc').limit(EXAMPLES)
            .select('id', 'resource_type', 'resource_id', 'project_id', 'error', 'created_at'),
        knex('integration_deliveries').whereIn('project_id', projectIds).where('status', 'failed').orderBy('created_at', 'desc').limit(EXAMPLES)
            .select('id', 'project_id', 'event_type', 'attempts', 'created_at'),
        userId ? knex('notifications').where('user_id', userId).whereIn('status', ['failed', 'not_configured']).orderBy('created_at', 'desc').limit(EXAMPLES)
            .select('id', 'type', 'status', 'created_at') : Promise.resolve([]),
        userId ? knex('security_events').where('user_id', userId).whereIn('type', ['session.sign_in_failed', 'api_key.address_refused', 'api_key.leaked', 'api_key.previous_secret_used'])
            .orderBy('seq', 'desc').limit(EXAMPLES).select('type', 'ip', 'created_at') : Promise.resolve([])
    ]) as [Row[], Row[], Row[], Row[]];
    return {
        target: userId ? { userId, projectIds } : { projectId: projectIds[0] },
        failedDeployments: deployments.map((d) => ({ id: d.id, resourceType: d.resource_type, resourceId: d.resource_id, projectId: d.project_id, error: clean(d.error), at: d.created_at })),
        failedSlackDeliveries: deliveries.map((d) => ({ id: d.id, projectId: d.project_id, eventType: d.event_type, attempts: Number(d.attempts), at: d.created_at })),
        failedMessages: userId ? { outcome: 'ok', items: messages.map((m) => ({ id: m.id, type: m.type, status: m.status, at: m.created_at })) }
            : { outcome: 'unsupported', reason: 'messages are addressed to accounts: triage a userId to see them' },
        deadJobs: await deadJobsNaming(queue, [...userId ? [userId] : [], ...projectIds], null),
        securityWarnings: userId ? { outcome: 'ok', items: security.map((s) => ({ type: s.type, ip: s.ip ?? null, at: s.created_at })) }
            : { outcome: 'unsupported', reason: 'the security trail is kept per account: triage a userId to see it' },
        failedPayments: { outcome: 'ok', items: await failedPayments(knex, { ...userId ? { accountId: userId } : {}, projectIds }, EXAMPLES) }
    };
}

async function deadJobsSince(queue: JobQueue, since: string) {
    const { total, jobs } = await queue.dead(since, 5);
    return { count: total, latest: jobs.map((job) => ({ id: job.id, type: job.type, lastError: clean(job.lastError), at: job.updatedAt })) };
}

/** The platform's failures over the last `hours`: a count and the latest examples per source. */
export async function incidents(knex: Knex, queue: JobQueue, hours: number, now = Date.now()) {
    const since = new Date(now - hours * 3600_000).toISOString();
    const section = async (query: Knex.QueryBuilder, map: (row: Row) => object) => {
        const count = await query.clone().clearSelect().clearOrder().count({ n: '*' }).first<{ n: number | string }>();
        const rows = await query.clone().limit(5) as Row[];
        return { count: Number(count.n), latest: rows.map(map) };
    };
    return {
        period: { from: since, to: new Date(now).toISOString(), hours },
        deadJobs: await deadJobsSince(queue, since),
        failedDeployments: await section(knex('deployments').where('status', 'failed').where('created_at', '>=', since).orderBy('created_at', 'desc').select('id', 'resource_type', 'project_id', 'error', 'created_at'),
            (r) => ({ id: r.id, resourceType: r.resource_type, projectId: r.project_id, error: clean(r.error), at: r.created_at })),
        failedMessages: await section(knex('notifications').whereIn('status', ['failed', 'not_configured']).where('created_at', '>=', since).orderBy('created_at', 'desc').select('id', 'type', 'status', 'created_at'),
            (r) => ({ id: r.id, type: r.type, status: r.status, at: r.created_at })),
        failedSlackDeliveries: await section(knex('integration_deliveries').where('status', 'failed').where('created_at', '>=', since).orderBy('created_at', 'desc').select('id', 'project_id', 'event_type', 'created_at'),
            (r) => ({ id: r.id, projectId: r.project_id, eventType: r.event_type, at: r.created_at })),
        leakedKeys: await section(knex('security_events').where('type', 'api_key.leaked').where('created_at', '>=', since).orderBy('seq', 'desc').select('user_id', 'created_at'),
            (r) => ({ userId: r.user_id, at: r.created_at })),
        failedPayments: await section(knex('invoices').where('status', 'payment_failed').where('updated_at', '>=', since).orderBy('updated_at', 'desc')
            .select('id', 'project_id', 'currency', 'total', 'payment_provider', 'failure_reason', 'updated_at'),
        (r) => ({ invoiceId: r.id, projectId: r.project_id, total: money(Number(r.total), r.currency as string), provider: r.payment_provider ?? null, reason: clean(r.failure_reason), at: r.updated_at })),
        refusedPaymentWebhooks: await section(knex('payment_webhooks').whereIn('outcome', ['bad_signature', 'stale', 'not_configured']).where('received_at', '>=', since).orderBy('seq', 'desc')
            .select('provider', 'outcome', 'received_at'),
        (r) => ({ provider: r.provider, outcome: r.outcome, at: r.received_at }))
    };
}
