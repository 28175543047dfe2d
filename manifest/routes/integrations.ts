import { keyRoute as r, type RouteTable } from '../../lib/route-table';

const admin = { policy: { role: 'admin' as const } };

// Project integrations (Slack notifications); configuring them is for project admins.
export const integrationsTable: RouteTable = {
    family: 'integrations',
    rows: [
        r('integrations.available', 'GET', '/integrations/available', 'integrations:read', 'Integrations this deployment offers.'),
        r('integrations.list', 'GET', '/projects/{projectId}/integrations', 'integrations:read', 'A project\'s configured integrations.'),
        r('integrations.slack.create', 'POST', '/projects/{projectId}/integrations/slack', 'integrations:write', 'Connect Slack notifications to a project.', admin),
        r('integrations.slack.update', 'PUT', '/projects/{projectId}/integrations/slack', 'integrations:write', 'Change a project\'s Slack integration.', admin),
        r('integrations.slack.delete', 'DELETE', '/projects/{projectId}/integrations/slack', 'integrations:write', 'Remove a project\'s Slack integration.', admin),
        r('integrations.slack.test', 'POST', '/projects/{projectId}/integrations/slack/test', 'integrations:write', 'Send a test notification.', admin)
    ]
};
