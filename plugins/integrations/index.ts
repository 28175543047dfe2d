import type { Knex } from 'knex';
import Joi from 'joi';

import { access } from '../../lib/access';
import { deriveKey } from '../../lib/crypto';
import { EVENT_NAMES, type EventType } from '../../lib/events';
import { DELIVER_JOB, Integrations, PRUNE_JOB, type SlackChange, type SlackInput } from '../../lib/integrations/service';
import type { WebhookRules } from '../../lib/integrations/webhook-url';
import { dailyJob } from '../../lib/queue/daily';
import { bindRoutes, route, type FamilyPlugin } from '../../lib/route-table';
import { fields } from '../../lib/validation';
import { integrationsTable } from '../../manifest/routes/integrations';

// Project integrations: the catalogue, a project's integrations, and Slack (configure, change, remove, test). The
// deliveries are jobs on the core queue, fed by the platform event hook; a daily job prunes the records after
// seven days. The integrations are exposed (`integrations`) for other families that want to read them.
export interface IntegrationsPluginOptions {
    knex: Knex;
    encryptionKey: string;
    publicUrl: string;
    slack: WebhookRules;
    outboundAllowlist: readonly string[];
}

const projectParams = Joi.object<{ projectId: string }, true>({ projectId: fields.projectId().required() });
const channel = Joi.string().trim().pattern(/^[#@]?[a-z0-9][a-z0-9._-]{0,79}$/i, 'Slack channel such as #deploys').allow(null)
    .description('The channel to post in, for webhooks that may choose (`#deploys`); a webhook made for one channel posts there whatever this says.');
const events = Joi.array().items(Joi.string().valid(...EVENT_NAMES)).min(1).unique()
    .description(`The events to send, among ${EVENT_NAMES.join(', ')} (default: all).`);
const webhookUrl = Joi.string().trim().max(2000).description('The incoming webhook URL Slack gave you (https://hooks.slack.com/services/...); stored sealed, never shown again.');

export const integrationsPlugin: FamilyPlugin<IntegrationsPluginOptions> = {
    name: 'hostless-integrations',
    table: integrationsTable,
    dependencies: ['hostless-auth', 'hostless-jobs', 'hostless-events'],
    register(server, options) {
        const { queue } = server.plugins['hostless-jobs'];
        const integrations = new Integrations({
            knex: options.knex, queue, sealKey: deriveKey(options.encryptionKey, 'secrets-at-rest'), publicUrl: options.publicUrl,
            slack: options.slack, allowlist: options.outboundAllowlist
        });
        server.plugins['hostless-events'].events.subscribe((trx, event) => integrations.onEvent(trx, event));
        queue.handle(DELIVER_JOB, (payload: { deliveryId: string }, job) => integrations.deliver(payload.deliveryId, job));
        server.ext('onPostStart', dailyJob(queue, PRUNE_JOB, () => integrations.prune()));
        server.expose('integrations', integrations);

        bindRoutes(server, integrationsTable, {
            'integrations.available': route({ handler: () => integrations.available() }),
            'integrations.list': route({ params: projectParams, handler: (request) => integrations.list(access(request).project!.id) }),
            'integrations.slack.create': route({
                params: projectParams,
                payload: Joi.object<SlackInput, true>({ webhookUrl: webhookUrl.required(), channel, events }),
                handler: async (request, h) => h.response(await integrations.create(access(request).project!.id, request.payload, access(request).user.id)).code(201)
            }),
            'integrations.slack.update': route({
                params: projectParams,
                payload: Joi.object<SlackChange, true>({ webhookUrl, channel, events: events as Joi.ArraySchema<EventType[]> }).min(1),
                handler: (request) => integrations.update(access(request).project!.id, request.payload)
            }),
            'integrations.slack.delete': route({
                params: projectParams,
                handler: async (request, h) => {
                    await integrations.remove(access(request).project!.id);
                    return h.response().code(204);
                }
            }),
            'integrations.slack.test': route({
                params: projectParams,
                handler: async (request) => {
                    const project = access(request).rows.project as { name: string };
                    return integrations.test(access(request).project!.id, project.name);
                }
            })
        });
    }
};
