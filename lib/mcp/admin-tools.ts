import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import * as z from 'zod';

import { idPattern } from '../ids';
import { MAX_LIMIT } from '../pagination';
import { ApiUnreachableError, type ApiClient, type ApiRequest } from './api-client';
import { failure, success, type Tool, type ToolDefinition } from './tool';

// The admin tools (api-contract.md section 12, docs/mcp.md "Admin tools"): read-only inspection by explicit ids, each
// one GET on a `/v1/admin/*` route with the caller's own session. They are offered only to a platform admin's session
// when MCP_ADMIN_TOOLS_ENABLED is set (plugins/mcp-platform), never to API keys or OAuth tokens, never on /mcp/docs.
// The API rechecks the admin flag on the call itself and writes the access audit before it answers.

export const ADMIN_GROUP = 'admin';

export interface AdminToolDefinition extends ToolDefinition {
    request: (args: Record<string, unknown>) => Pick<ApiRequest, 'path' | 'query'>;
}

const id = (prefix: Parameters<typeof idPattern>[0], what: string) => z.string().regex(idPattern(prefix), `${what} such as ${prefix}_4f9KqzT0aBcD1eFg`);
const userId = () => id('usr', 'a user id').describe('The account (usr_...).');
const enc = (value: unknown) => encodeURIComponent(String(value));
const limit = () => z.number().int().min(1).max(MAX_LIMIT).optional().describe(`How many entries, 1 to ${MAX_LIMIT} (default 50).`);
const annotations = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };

const tool = (name: string, title: string, description: string, shape: z.ZodRawShape, request: AdminToolDefinition['request']): AdminToolDefinition => ({
    name, group: ADMIN_GROUP, title, description: `${description} Admin only: read-only, and every call is recorded in the admin access audit.`,
    inputSchema: z.object(shape).strict(), annotations, request
});

export const ADMIN_TOOLS: readonly AdminToolDefinition[] = [
    tool('admin_account_get', 'Inspect an account', 'An account by id: state, admin flag, projects and roles, API keys (ids and prefixes only), active sessions and grants, notification preferences.',
        { userId: userId() }, (args) => ({ path: `/v1/admin/accounts/${enc(args.userId)}` })),
    tool('admin_resource_get', 'Inspect a resource', 'A resource by type and id: project, state, plan, latest deployments and allocation changes.',
        {
            resourceType: z.enum(['app', 'site', 'worker', 'cron_job', 'database', 'virtual_machine']).describe('The kind of resource.'),
            resourceId: z.string().regex(/^[a-z]{2,4}_[0-9A-Za-z]{16}$/, 'a resource id such as app_4f9KqzT0aBcD1eFg').describe('The resource\'s id (app_..., sit_..., wrk_..., crn_..., db_..., vm_...).')
        }, (args) => ({ path: `/v1/admin/resources/${enc(args.resourceType)}/${enc(args.resourceId)}` })),
    tool('admin_billing_get', 'Inspect invoices and payments', 'One invoice (invoiceId), or the newest billed to an account (userId) or of a project (projectId): amounts in minor and major units, currency, period, price-list versions, payment state, credit drawn. A missing ledger link is inconclusive.',
        { invoiceId: id('inv', 'an invoice id').optional().describe('The invoice (inv_...).'), userId: userId().optional(), projectId: id('prj', 'a project id').optional().describe('The project (prj_...); give one of the three ids.'), limit: limit() },
        (args) => ({ path: '/v1/admin/billing', query: { invoiceId: args.invoiceId as string | undefined, userId: args.userId as string | undefined, projectId: args.projectId as string | undefined, limit: args.limit as number | undefined } })),
    tool('admin_credit_get', 'Inspect credit', 'An account\'s credit (userId: balance per currency, ledger newest first) or one ledger entry (creditId), each checked against the invoice or campaign it names; units, currency and price-list version labelled. A missing link is inconclusive.',
        { userId: userId().optional(), creditId: id('crd', 'a credit entry id').optional().describe('One ledger entry (crd_...); give userId or creditId.'), limit: limit() },
        (args) => ({ path: '/v1/admin/credit', query: { userId: args.userId as string | undefined, creditId: args.creditId as string | undefined, limit: args.limit as number | undefined } })),
    tool('admin_usage_get', 'Inspect a project\'s usage', 'Instance-hours and GiB-hours per resource of a project over a period (default the last 30 days), with the units and the period labelled.',
        {
            projectId: id('prj', 'a project id').describe('The project (prj_...).'),
            from: z.string().datetime().optional().describe('Start of the period, ISO 8601 UTC.'),
            to: z.string().datetime().optional().describe('End of the period, ISO 8601 UTC (default now).')
        }, (args) => ({ path: '/v1/admin/usage', query: { projectId: args.projectId as string, from: args.from as string | undefined, to: args.to as string | undefined } })),
    tool('admin_communications_list', 'List an account\'s messages', 'The messages the outbox holds for an account, newest first, with each delivery attempt (time, outcome, server response). Subjects only, never bodies.',
        { userId: userId(), limit: limit(), before: z.string().max(80).optional().describe('The `next` of the previous answer, to read older messages.') },
        (args) => ({ path: `/v1/admin/accounts/${enc(args.userId)}/communications`, query: { limit: args.limit as number | undefined, before: args.before as string | undefined } })),
    tool('admin_queue_inspect', 'Inspect the job queue', 'engine "bullmq" (default): the platform job queue, the backend running it, counts by status, and one job by jobId. engine "temporal": validates taskQueue, workflowId and runId and answers unavailable (no Temporal client is configured).',
        {
            engine: z.enum(['bullmq', 'temporal']).optional().describe('bullmq (default): the platform\'s own queue; temporal: a Temporal workflow.'),
            jobId: id('job', 'a job id').optional().describe('bullmq: the job to show (job_...).'),
            taskQueue: z.string().max(100).optional().describe('temporal: the registered task queue (hostless-platform).'),
            workflowId: z.string().max(255).optional().describe('temporal: the workflow id.'),
            runId: z.string().max(64).optional().describe('temporal: the run id (a UUID), optional.')
        }, (args) => ({ path: '/v1/admin/queue', query: { engine: args.engine as string | undefined, jobId: args.jobId as string | undefined, taskQueue: args.taskQueue as string | undefined, workflowId: args.workflowId as string | undefined, runId: args.runId as string | undefined } })),
    tool('admin_webhook_deliveries_get', 'Inspect a webhook delivery', 'The evidence of one webhook delivery from the last seven days, with its attempts: slack (outgoing, idl_...), stripe and paystack (incoming, by event id). Other providers unsupported; unknown or expired deliveries unavailable.',
        { provider: z.string().regex(/^[a-z0-9_-]{1,32}$/, 'a provider name such as slack').describe('slack, stripe or paystack.'), deliveryId: z.string().regex(/^[\w.:-]{1,120}$/, 'a delivery id such as idl_4f9KqzT0aBcD1eFg').describe('slack: idl_...; stripe: the event id (evt_...); paystack: <event>:<data id or reference>.') },
        (args) => ({ path: `/v1/admin/webhook-deliveries/${enc(args.provider)}/${enc(args.deliveryId)}` })),
    tool('admin_issue_triage', 'Triage an account or project', 'What has gone wrong for one account (userId) or one project (projectId): failed deployments, payments, messages and Slack deliveries, dead jobs naming it, security warnings.',
        { userId: userId().optional(), projectId: id('prj', 'a project id').optional().describe('The project (prj_...); give userId or projectId.') },
        (args) => ({ path: '/v1/admin/triage', query: { userId: args.userId as string | undefined, projectId: args.projectId as string | undefined } })),
    tool('admin_platform_incidents', 'Platform incidents', 'Platform-wide failures over the last hours: dead jobs, failed deployments, payments, messages and Slack deliveries, refused payment webhooks, leaked keys; a count and the latest examples each.',
        { hours: z.number().int().min(1).max(168).optional().describe('The window, 1 to 168 hours (default 24).') },
        (args) => ({ path: '/v1/admin/incidents', query: { hours: args.hours as number | undefined } })),
    tool('admin_activity_timeline', 'An account\'s activity', 'An account\'s activity, newest first: security events, deployments in its projects and the messages it was sent.',
        { userId: userId(), limit: limit() }, (args) => ({ path: `/v1/admin/accounts/${enc(args.userId)}/timeline`, query: { limit: args.limit as number | undefined } }))
];

function result(definition: AdminToolDefinition, status: number, body: unknown): CallToolResult {
    const object = typeof body === 'object' && body !== null && !Array.isArray(body) ? body as Record<string, unknown> : { statusCode: status };
    if (status >= 300) {
        const reason = [object.error, object.message].filter(Boolean).join(': ');
        return failure(`${definition.name} was refused by the API with ${status}${reason ? ` ${reason}` : ''}\n\n${JSON.stringify(object)}`);
    }

    const outcome = typeof object.outcome === 'string' ? object.outcome : 'ok';
    return success(`${definition.title}: ${outcome}${typeof object.reason === 'string' ? ` (${object.reason})` : ''}.`, object);
}

/** The admin tools acting on this deployment's API with the caller's session (the request's context). */
export function adminToolsOn(api: ApiClient, definitions: readonly AdminToolDefinition[] = ADMIN_TOOLS): Tool[] {
    return definitions.map((definition) => ({
        ...definition,
        handler: async (args, { authorization, forwardedFor }) => {
            if (!authorization) {
                return failure(`${definition.name} needs an admin session`);
            }

            try {
                const answer = await api.request({ method: 'GET', ...definition.request(args), authorization, ...(forwardedFor ? { forwardedFor } : {}) });
                return result(definition, answer.status, answer.body);
            }
            catch (err) {
                if (err instanceof ApiUnreachableError) {
                    return failure(err.message);
                }

                throw err;
            }
        }
    }));
}
