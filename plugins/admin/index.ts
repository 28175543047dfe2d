import * as Boom from '@hapi/boom';
import type { Request, ResponseObject } from '@hapi/hapi';
import Joi from 'joi';
import type { Knex } from 'knex';

import { origin } from '../../lib/access';
import { AUDIT_OUTCOMES, auditView, recordAdminAccess, type AuditOutcome, type AuditRow } from '../../lib/admin/audit';
import { incidents, inspectQueue, inspectTemporal, TEMPORAL_TASK_QUEUES, triage, webhookDelivery } from '../../lib/admin/diagnostics';
import { billingOf, creditOf } from '../../lib/admin/finance';
import { accountOf, communicationsOf, RESOURCE_TABLES, resourceOf, timelineOf, usageOf } from '../../lib/admin/readers';
import { DEFAULT_LIMIT, MAX_LIMIT } from '../../lib/pagination';
import { bindRoutes, type FamilyPlugin } from '../../lib/route-table';
import { ADMIN_ROUTE_TOOLS, adminTable } from '../../manifest/routes/admin';

// The admin inspection routes behind the MCP admin tools (docs/mcp.md "Admin tools"): read-only, a platform admin's
// session only (the route tables' `admin` mode: the flag is read from the database on every request). Every call that
// passes the gate leaves exactly one access-audit record, written before the answer leaves: when that write fails,
// the answer is replaced by a 503 that carries none of the data.
export interface AdminPluginOptions {
    knex: Knex;
    enabled: boolean;                                           // MCP_ADMIN_TOOLS_ENABLED: off, every route answers 404
}

const id = (prefix: string) => Joi.string().pattern(new RegExp(`^${prefix}_[0-9A-Za-z]{16}$`)).messages({ 'string.pattern.base': `{{#label}} is not a valid ${prefix}_ id` });
const userId = id('usr').required();
const projectId = id('prj');
const limit = Joi.number().integer().min(1).max(MAX_LIMIT).default(DEFAULT_LIMIT);
const DISABLED = 'Admin tools are not enabled on this deployment (MCP_ADMIN_TOOLS_ENABLED)';
const DAY = 24 * 3600_000;

function outcomeOf(response: ResponseObject | Boom.Boom): AuditOutcome | null {
    if (Boom.isBoom(response)) {
        const status = response.output.statusCode;
        return status === 401 || status === 403 ? null : status === 404 ? 'not_found' : status === 400 ? 'invalid' : 'failed';
    }

    const outcome = (response.source as { outcome?: string } | null)?.outcome;
    return AUDIT_OUTCOMES.find((known) => known === outcome) ?? 'ok';
}

export const adminPlugin: FamilyPlugin<AdminPluginOptions> = {
    name: 'hostless-admin',
    table: adminTable,
    dependencies: ['hostless-auth', 'hostless-jobs'],
    register(server, options) {
        const { knex } = options;
        const queue = () => server.plugins['hostless-jobs'].queue;

        // The audit, for every answer of these routes to a caller the gate let through (an admin's session).
        server.ext('onPreResponse', async (request: Request, h) => {
            const tool = ADMIN_ROUTE_TOOLS[request.route.settings.id ?? ''];
            const credentials = request.auth.credentials;
            const outcome = tool && credentials?.user?.isAdmin && credentials.via === 'session' ? outcomeOf(request.response) : null;
            if (!outcome || !options.enabled) {
                return h.continue;
            }

            try {
                await recordAdminAccess(knex, {
                    adminId: credentials.user!.id, adminEmail: credentials.user!.email, credentialId: credentials.credentialId, tool,
                    route: request.route.settings.id!, args: { ...request.params, ...request.query as Record<string, unknown> }, outcome, ip: origin(request).ip
                });
            }
            catch (err) {
                request.log(['error', 'admin', 'audit'], err as Error);
                return h.response(Boom.serverUnavailable('The admin access audit could not be recorded, so this call is denied and returns no data').output.payload).code(503).takeover();
            }

            return h.continue;
        }, { sandbox: 'plugin' });

        const on = <T>(answer: () => Promise<T>) => async () => {
            if (!options.enabled) {
                throw Boom.notFound(DISABLED);
            }

            return answer();
        };
        const found = <T>(value: T | null, what: string): T => {
            if (value === null) {
                throw Boom.notFound(`${what} not found`);
            }

            return value;
        };

        bindRoutes(server, adminTable, {
            'admin.audit.list': {
                validate: { query: Joi.object({ limit, cursor: Joi.string().pattern(/^\d{1,18}$/).messages({ 'string.pattern.base': '"cursor" is not a valid cursor' }), adminId: id('usr') }) },
                handler: async (request, h) => {
                    if (!options.enabled) {
                        throw Boom.notFound(DISABLED);
                    }

                    const query = request.query as { limit: number; cursor?: string; adminId?: string };
                    const builder = knex('admin_access_audit').orderBy('seq', 'desc').limit(query.limit + 1);
                    if (query.cursor) {
                        builder.where('seq', '<', Number(query.cursor));
                    }

                    if (query.adminId) {
                        builder.where('admin_id', query.adminId);
                    }

                    const rows = await builder as AuditRow[];
                    const page = rows.slice(0, query.limit);
                    const response = h.response(page.map(auditView));
                    if (rows.length > query.limit) {
                        const url = new URL(request.url.href);
                        url.searchParams.set('cursor', String(page[page.length - 1].seq));
                        response.header('link', `<${url.pathname}${url.search}>; rel="next"`);
                    }

                    return response;
                }
            },
            'admin.account.get': {
                validate: { params: Joi.object({ userId }) },
                handler: (request) => on(async () => ({ outcome: 'ok', account: found(await accountOf(knex, (request.params as { userId: string }).userId), 'Account') }))()
            },
            'admin.resource.get': {
                validate: { params: Joi.object({ resourceType: Joi.string().valid(...Object.keys(RESOURCE_TABLES)).required(), resourceId: Joi.string().pattern(/^[a-z]{2,4}_[0-9A-Za-z]{16}$/).required().messages({ 'string.pattern.base': '"resourceId" is not a valid resource id' }) }) },
                handler: (request) => on(async () => {
                    const { resourceType, resourceId } = request.params as { resourceType: string; resourceId: string };
                    return { outcome: 'ok', resource: found(await resourceOf(knex, resourceType, resourceId), 'Resource') };
                })()
            },
            'admin.billing.get': {
                validate: { query: Joi.object({ invoiceId: id('inv'), userId: id('usr'), projectId, limit }).xor('invoiceId', 'userId', 'projectId') },
                handler: (request) => on(async () => {
                    const query = request.query as { invoiceId?: string; userId?: string; projectId?: string; limit: number };
                    const target = query.invoiceId ? { invoiceId: query.invoiceId } : query.userId ? { userId: query.userId } : { projectId: query.projectId! };
                    return found(await billingOf(knex, target, query.limit), query.invoiceId ? 'Invoice' : query.userId ? 'Account' : 'Project');
                })()
            },
            'admin.credit.get': {
                validate: { query: Joi.object({ userId: id('usr'), creditId: id('crd'), limit }).xor('userId', 'creditId') },
                handler: (request) => on(async () => {
                    const query = request.query as { userId?: string; creditId?: string; limit: number };
                    return found(await creditOf(knex, query.creditId ? { creditId: query.creditId } : { userId: query.userId! }, query.limit), query.creditId ? 'Credit entry' : 'Account');
                })()
            },
            'admin.usage.get': {
                validate: { query: Joi.object({ projectId: projectId.required(), from: Joi.date().iso(), to: Joi.date().iso() }) },
                handler: (request) => on(async () => {
                    const query = request.query as { projectId: string; from?: Date; to?: Date };
                    const to = query.to ?? new Date();
                    const from = query.from ?? new Date(to.getTime() - 30 * DAY);
                    if (from.getTime() >= to.getTime()) {
                        throw Boom.badRequest('"to" must be after "from"');
                    }

                    if (to.getTime() - from.getTime() > 366 * DAY) {
                        throw Boom.badRequest('"from" and "to" must be at most 366 days apart');
                    }

                    return { outcome: 'ok', usage: found(await usageOf(knex, query.projectId, from, to), 'Project') };
                })()
            },
            'admin.communications.list': {
                validate: { params: Joi.object({ userId }), query: Joi.object({ limit, before: Joi.string().max(80) }) },
                handler: (request) => on(async () => {
                    const { userId: user } = request.params as { userId: string };
                    const query = request.query as { limit: number; before?: string };
                    found(await knex('users').where('id', user).first<object | undefined>('id') ?? null, 'Account');
                    return { outcome: 'ok', userId: user, ...await communicationsOf(knex, user, query.limit, query.before ?? null) };
                })()
            },
            'admin.queue.inspect': {
                validate: {
                    query: Joi.object({
                        engine: Joi.string().valid('bullmq', 'temporal').default('bullmq'),
                        jobId: id('job'),
                        taskQueue: Joi.string().valid(...TEMPORAL_TASK_QUEUES),
                        workflowId: Joi.string().pattern(/^[\w.:-]{1,255}$/).messages({ 'string.pattern.base': '"workflowId" may hold letters, digits, _ . : - (at most 255)' }),
                        runId: Joi.string().guid()
                    })
                },
                handler: (request) => on(async () => {
                    const query = request.query as { engine: string; jobId?: string; taskQueue?: string; workflowId?: string; runId?: string };
                    const temporal = query.engine === 'temporal';
                    const misplaced = (temporal ? ['jobId'] : ['taskQueue', 'workflowId', 'runId']).filter((field) => query[field as keyof typeof query] !== undefined);
                    if (misplaced.length) {
                        throw Boom.badRequest(`${misplaced.map((field) => `"${field}"`).join(', ')} ${misplaced.length > 1 ? 'are' : 'is'} not used with engine ${query.engine}`);
                    }

                    const missing = temporal ? ['taskQueue', 'workflowId'].filter((field) => !query[field as keyof typeof query]) : [];
                    if (missing.length) {
                        throw Boom.badRequest(`engine temporal needs ${missing.map((field) => `"${field}"`).join(' and ')}`);
                    }

                    return query.engine === 'temporal' ? inspectTemporal(query.taskQueue!, query.workflowId!, query.runId ?? null) : inspectQueue(queue(), query.jobId ?? null);
                })()
            },
            'admin.webhookDeliveries.get': {
                validate: { params: Joi.object({ provider: Joi.string().pattern(/^[a-z0-9_-]{1,32}$/).required(), deliveryId: Joi.string().pattern(/^[\w.:-]{1,120}$/).required().messages({ 'string.pattern.base': '"deliveryId" may hold letters, digits, _ . : - (at most 120)' }) }) },
                handler: (request) => on(async () => {
                    const { provider, deliveryId } = request.params as { provider: string; deliveryId: string };
                    return webhookDelivery(knex, provider, deliveryId);
                })()
            },
            'admin.issueTriage': {
                validate: { query: Joi.object({ userId: id('usr'), projectId }).xor('userId', 'projectId') },
                handler: (request) => on(async () => {
                    const query = request.query as { userId?: string; projectId?: string };
                    const answer = await triage(knex, queue(), query.userId ? { userId: query.userId } : { projectId: query.projectId! });
                    return { outcome: 'ok', ...found(answer, query.userId ? 'Account' : 'Project') };
                })()
            },
            'admin.incidents': {
                validate: { query: Joi.object({ hours: Joi.number().integer().min(1).max(168).default(24) }) },
                handler: (request) => on(async () => ({ outcome: 'ok', ...await incidents(knex, queue(), (request.query as { hours: number }).hours) }))()
            },
            'admin.timeline': {
                validate: { params: Joi.object({ userId }), query: Joi.object({ limit }) },
                handler: (request) => on(async () => {
                    const { userId: user } = request.params as { userId: string };
                    found(await knex('users').where('id', user).first<object | undefined>('id') ?? null, 'Account');
                    return { outcome: 'ok', userId: user, entries: await timelineOf(knex, user, (request.query as { limit: number }).limit) };
                })()
            }
        });
    }
};
