import * as Boom from '@hapi/boom';
import type { Knex } from 'knex';

import { decryptSecret, encryptSecret } from '../crypto';
import { isUniqueViolation } from '../db/errors';
import { EVENT_NAMES, EVENT_TYPES, type EventType, type PlatformEvent } from '../events';
import { newId } from '../ids';
import type { JobContext, JobQueue } from '../queue/types';
import { nowIso } from '../time';
import { eventMessage, testMessage } from './messages';
import { Integration, IntegrationAttempt, IntegrationDelivery, type DeliveryStatus } from './models';
import { SlackWebhook, type SlackAnswer, type SlackMessage } from './slack';
import { scrubWebhook, webhookHint, webhookProblem, type WebhookRules } from './webhook-url';

// A project's integrations. Slack receives the events it chose: each event a project's change emits becomes a
// delivery, written with its job in the change's transaction (the platform event hook, lib/events.ts), and the job
// posts it to the webhook, retried with the queue's backoff while Slack answers 5xx or 429 or cannot be reached.
// Every attempt is recorded without the URL; attempts, and deliveries that are over, are kept RETENTION_DAYS.
export const DELIVER_JOB = 'integrations.deliver';
export const PRUNE_JOB = 'integrations.prune';
export const RETENTION_DAYS = 7;
export const DELIVERY_ATTEMPTS = 10;                            // about eight minutes of backoff in all
const RECENT_ATTEMPTS = 10;

export interface IntegrationsOptions {
    knex: Knex;
    queue: JobQueue;
    sealKey: Buffer;
    publicUrl: string;
    slack: WebhookRules;
    allowlist: readonly string[];
}

export interface SlackInput {
    webhookUrl: string;
    channel?: string | null;
    events?: EventType[];
}

export type SlackChange = Partial<SlackInput>;

interface AttemptRow {
    delivery_id: string;
    event_type: string;
    outcome: string;
    response_code: number | string | null;
    response: string;
    attempted_at: string;
}

/** Where the test message landed. */
export interface TestResult {
    delivered: true;
    responseCode: number | null;
    response: string;
    attemptedAt: string;
}

export class Integrations {
    private readonly slack: SlackWebhook;

    constructor(private readonly options: IntegrationsOptions) {
        this.slack = new SlackWebhook({ allowlist: options.allowlist });
    }

    /** The catalogue: what this deployment can connect, and the events each can receive. */
    available() {
        return [{
            type: 'slack',
            name: 'Slack',
            description: 'Messages in a Slack channel through an incoming webhook.',
            webhookHosts: this.options.slack.webhookHosts,
            events: EVENT_NAMES.map((type) => ({ type, description: EVENT_TYPES[type] }))
        }];
    }

    async list(projectId: string) {
        const integrations = await Integration.query(this.options.knex).where({ project_id: projectId }).orderBy('type');
        return Promise.all(integrations.map(async (integration) => this.serialize(integration)));
    }

    async create(projectId: string, input: SlackInput, userId: string) {
        const now = nowIso();
        try {
            const integration = await Integration.query(this.options.knex).insertAndFetch({
                id: newId('int'), projectId, type: 'slack', ...this.webhook(input.webhookUrl), channel: input.channel ?? null,
                events: input.events ?? [...EVENT_NAMES], createdBy: userId, createdAt: now, updatedAt: now
            });
            return this.serialize(integration);
        }
        catch (err) {
            throw isUniqueViolation(err) ? Boom.conflict('The project already has a Slack integration: change it with PUT, or remove it first') : err;
        }
    }

    async update(projectId: string, change: SlackChange) {
        const integration = await this.slackOf(projectId);
        const updated = await Integration.query(this.options.knex).patchAndFetchById(integration.id, {
            ...(change.webhookUrl !== undefined ? this.webhook(change.webhookUrl) : {}),
            ...(change.channel !== undefined ? { channel: change.channel } : {}),
            ...(change.events !== undefined ? { events: change.events } : {}),
            updatedAt: nowIso()
        });
        return this.serialize(updated);
    }

    async remove(projectId: string): Promise<void> {
        const integration = await this.slackOf(projectId);
        await Integration.query(this.options.knex).deleteById(integration.id);
    }

    /** Posts a test message now, recorded like any delivery; 502 with Slack's words when it did not take it. */
    async test(projectId: string, projectName: string): Promise<TestResult> {
        const integration = await this.slackOf(projectId);
        const message = testMessage(projectName, integration.channel);
        const now = nowIso();
        const delivery = await IntegrationDelivery.query(this.options.knex).insertAndFetch({
            id: newId('idl'), integrationId: integration.id, projectId, eventId: newId('evt'), eventType: 'test', message: JSON.stringify(message),
            status: 'queued', jobId: null, attempts: 0, createdAt: now, updatedAt: now, deliveredAt: null
        });
        const { answer, attemptedAt } = await this.attempt(integration, delivery, () => 'final');
        if (!answer.delivered) {
            throw Boom.badGateway(`Slack did not take the test message: ${answer.responseCode ? `${answer.responseCode} ` : ''}${answer.response}`);
        }

        return { delivered: true, responseCode: answer.responseCode, response: answer.response, attemptedAt };
    }

    /** The event hook's listener: a delivery, and its job, for each of the project's integrations that chose the event. */
    async onEvent(trx: Knex.Transaction, event: PlatformEvent): Promise<void> {
        const integrations = await Integration.query(trx).where({ project_id: event.projectId });
        for (const integration of integrations.filter((candidate) => candidate.events.includes(event.type))) {
            const id = newId('idl');
            const job = await this.options.queue.enqueue(DELIVER_JOB, { deliveryId: id }, { trx, maxAttempts: DELIVERY_ATTEMPTS, idempotencyKey: `integration:${integration.id}:${event.id}` });
            const now = nowIso();
            await IntegrationDelivery.query(trx).insert({
                id, integrationId: integration.id, projectId: event.projectId, eventId: event.id, eventType: event.type,
                message: JSON.stringify(eventMessage(event, this.options.publicUrl, integration.channel)),
                status: 'queued', jobId: job.id, attempts: 0, createdAt: now, updatedAt: now, deliveredAt: null
            });
        }
    }

    /** The delivery job: one attempt; a transient failure is thrown so the queue runs it again after its backoff. */
    async deliver(deliveryId: string, job: JobContext): Promise<void> {
        const delivery = await IntegrationDelivery.query(this.options.knex).findById(deliveryId);
        const integration = delivery && await Integration.query(this.options.knex).findById(delivery.integrationId);
        if (!delivery || !integration || delivery.status !== 'queued' || delivery.jobId !== job.id) {
            return;
        }

        const last = job.attempt >= job.maxAttempts;
        const { answer } = await this.attempt(integration, delivery, (retryable) => retryable && !last ? 'again' : 'final');
        if (!answer.delivered && answer.retryable && !last) {
            throw new Error(`Slack did not take delivery ${delivery.id} (${answer.responseCode ?? 'no answer'}): it is attempted again`);
        }
    }

    async prune(): Promise<{ attempts: number; deliveries: number }> {
        const before = new Date(Date.now() - RETENTION_DAYS * 24 * 3600_000).toISOString();
        return this.options.knex.transaction(async (trx) => {
            const attempts = await trx('integration_attempts').where('attempted_at', '<', before).delete();
            const deliveries = await trx('integration_deliveries').where('created_at', '<', before).whereNot({ status: 'queued' }).delete();
            return { attempts, deliveries };
        });
    }

    /** Posts a delivery's message and records the attempt; `next` says whether a failure will be attempted again. */
    private async attempt(integration: Integration, delivery: IntegrationDelivery, next: (retryable: boolean) => 'again' | 'final'): Promise<{ answer: SlackAnswer; attemptedAt: string }> {
        const url = decryptSecret(integration.webhookUrl, this.options.sealKey);
        const answer = await this.slack.post(url, JSON.parse(delivery.message) as SlackMessage);
        const attemptedAt = nowIso();
        const status: DeliveryStatus = answer.delivered ? 'delivered' : next(answer.retryable) === 'again' ? 'queued' : 'failed';
        await this.options.knex.transaction(async (trx) => {
            await IntegrationAttempt.query(trx).insert({
                id: newId('iat'), deliveryId: delivery.id, integrationId: integration.id, outcome: answer.delivered ? 'delivered' : 'failed',
                responseCode: answer.responseCode, response: scrubWebhook(answer.response, url).slice(0, 300), attemptedAt
            });
            await IntegrationDelivery.query(trx).patch({
                status, attempts: delivery.attempts + 1, updatedAt: attemptedAt, ...(answer.delivered ? { deliveredAt: attemptedAt } : {})
            }).where({ id: delivery.id });
        });
        delivery.attempts += 1;
        return { answer, attemptedAt };
    }

    private webhook(value: string) {
        const problem = webhookProblem(value, this.options.slack);
        if (problem) {
            throw Boom.badRequest(problem);
        }

        return { webhookUrl: encryptSecret(value, this.options.sealKey), webhookHint: webhookHint(value) };
    }

    private async slackOf(projectId: string): Promise<Integration> {
        const integration = await Integration.query(this.options.knex).findOne({ project_id: projectId, type: 'slack' });
        if (!integration) {
            throw Boom.notFound('The project has no Slack integration: add one with POST');
        }

        return integration;
    }

    private async serialize(integration: Integration) {
        const attempts = await this.options.knex('integration_attempts as a')
            .join('integration_deliveries as d', 'd.id', 'a.delivery_id')
            .where('a.integration_id', integration.id)
            .orderBy([{ column: 'a.attempted_at', order: 'desc' }, { column: 'a.id', order: 'desc' }])
            .limit(RECENT_ATTEMPTS)
            .select<AttemptRow[]>('a.delivery_id', 'd.event_type', 'a.outcome', 'a.response_code', 'a.response', 'a.attempted_at');
        return {
            id: integration.id,
            type: integration.type,
            name: integration.type,
            projectId: integration.projectId,
            status: 'active',
            webhookUrl: integration.webhookHint,
            channel: integration.channel,
            events: integration.events,
            recentAttempts: attempts.map((row) => ({
                deliveryId: row.delivery_id, event: row.event_type, outcome: row.outcome,
                responseCode: row.response_code === null ? null : Number(row.response_code), response: row.response, attemptedAt: row.attempted_at
            })),
            createdAt: integration.createdAt,
            updatedAt: integration.updatedAt
        };
    }
}
