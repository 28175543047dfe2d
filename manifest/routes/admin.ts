import type { RouteTable } from '../../lib/route-table';

// The admin inspection routes (api-contract.md section 12; docs/mcp.md "Admin tools"): read-only, addressed by
// explicit ids, for a platform admin's session only. Each answers one MCP admin tool and writes one access-audit
// record before its answer leaves.

/** Which MCP admin tool each route answers for: the name its audit records carry. */
export const ADMIN_ROUTE_TOOLS: Readonly<Record<string, string>> = {
    'admin.audit.list': 'admin_access_audit_list',
    'admin.account.get': 'admin_account_get',
    'admin.resource.get': 'admin_resource_get',
    'admin.billing.get': 'admin_billing_get',
    'admin.credit.get': 'admin_credit_get',
    'admin.usage.get': 'admin_usage_get',
    'admin.communications.list': 'admin_communications_list',
    'admin.queue.inspect': 'admin_queue_inspect',
    'admin.webhookDeliveries.get': 'admin_webhook_deliveries_get',
    'admin.issueTriage': 'admin_issue_triage',
    'admin.incidents': 'admin_platform_incidents',
    'admin.timeline': 'admin_activity_timeline'
};

export const adminTable: RouteTable = {
    family: 'admin',
    fixtures: {
        adminApp: { route: 'apps.create', payload: { name: '{unique}', projectId: '{project}' }, value: 'id' }
    },
    rows: [
        {
            id: 'admin.audit.list', method: 'GET', path: '/v1/admin/access-audit', auth: 'admin',
            description: 'The admin access audit, newest first: who read what through an admin tool, with which ids, when, and the outcome.',
            example: {}
        },
        {
            id: 'admin.account.get', method: 'GET', path: '/v1/admin/accounts/{userId}', auth: 'admin',
            description: 'An account: its state, admin flag, projects and roles, credentials in use (ids only) and notification preferences.',
            example: { params: { userId: '{ownerId}' } }
        },
        {
            id: 'admin.resource.get', method: 'GET', path: '/v1/admin/resources/{resourceType}/{resourceId}', auth: 'admin',
            description: 'A resource by type and id: its project, state and plan, its latest deployments and allocation changes.',
            example: { setup: ['adminApp'], params: { resourceType: 'app', resourceId: '{adminApp}' } }
        },
        {
            id: 'admin.billing.get', method: 'GET', path: '/v1/admin/billing', auth: 'admin',
            description: 'One invoice (invoiceId), or the newest invoices billed to an account (userId) or of a project (projectId): amounts in minor and major units, currency, period, price-list versions, payment state and the credit the ledger drew for it; a missing ledger link is inconclusive.',
            example: { query: { userId: '{ownerId}' } }
        },
        {
            id: 'admin.credit.get', method: 'GET', path: '/v1/admin/credit', auth: 'admin',
            description: 'An account\'s credit (userId: balance per currency and the ledger, newest first) or one ledger entry (creditId), each entry checked against the invoice or campaign it names; a missing link is inconclusive.',
            example: { query: { userId: '{ownerId}' } }
        },
        {
            id: 'admin.usage.get', method: 'GET', path: '/v1/admin/usage', auth: 'admin',
            description: 'A project\'s allocation over a period, per resource, from the allocation events: instance-hours and GiB-hours.',
            example: { query: { projectId: '{project}' } }
        },
        {
            id: 'admin.communications.list', method: 'GET', path: '/v1/admin/accounts/{userId}/communications', auth: 'admin',
            description: 'The messages the outbox holds for an account, newest first, each with its delivery attempts.',
            example: { params: { userId: '{ownerId}' } }
        },
        {
            id: 'admin.queue.inspect', method: 'GET', path: '/v1/admin/queue', auth: 'admin',
            description: 'The platform job queue: its backend and counts, and a job by id (engine bullmq); temporal validates its ids and answers unavailable.',
            example: { query: { engine: 'bullmq' } }
        },
        {
            id: 'admin.webhookDeliveries.get', method: 'GET', path: '/v1/admin/webhook-deliveries/{provider}/{deliveryId}', auth: 'admin',
            description: 'The evidence of one webhook delivery from the last seven days: slack (outgoing, with its attempts), stripe and paystack (incoming, by event id, with each arrival).',
            example: { params: { provider: 'slack', deliveryId: 'idl_0000000000000000' } }
        },
        {
            id: 'admin.issueTriage', method: 'GET', path: '/v1/admin/triage', auth: 'admin',
            description: 'What has gone wrong for one account or project: failed deployments, payments, messages and Slack deliveries, dead jobs.',
            example: { query: { userId: '{ownerId}' } }
        },
        {
            id: 'admin.incidents', method: 'GET', path: '/v1/admin/incidents', auth: 'admin',
            description: 'Platform-wide failures over recent hours, counted by source, with the latest examples of each.',
            example: { query: { hours: 24 } }
        },
        {
            id: 'admin.timeline', method: 'GET', path: '/v1/admin/accounts/{userId}/timeline', auth: 'admin',
            description: 'An account\'s activity, newest first: security events, deployments of its projects and the messages it was sent.',
            example: { params: { userId: '{ownerId}' } }
        }
    ]
};
