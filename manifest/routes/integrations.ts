import { keyRoute as r, type RouteTable } from '../../lib/route-table';

const admin = { role: 'admin' as const };
const team = { projectId: '{teamProject}' };
// A webhook on the loopback address, which the tests' configuration allows: sending to it is refused by the
// outbound rules of a server that allows no private destination, so the example of the test message is 502.
const slack = { webhookUrl: 'http://127.0.0.1:9/services/T0000000/B0000000/abcdefghijklmnopqrstuvwx', channel: '#deploys', events: ['deployment.live', 'deployment.failed'] };

// Project integrations (Slack notifications); configuring them is for project admins.
export const integrationsTable: RouteTable = {
    family: 'integrations',
    fixtures: {
        teamSlack: { route: 'integrations.slack.create', params: team, payload: slack, value: 'id' }
    },
    rows: [
        r('integrations.available', 'GET', '/integrations/available', 'integrations:read', 'Integrations this deployment offers, with the events each can deliver.', { example: {} }),
        r('integrations.list', 'GET', '/projects/{projectId}/integrations', 'integrations:read', 'A project\'s configured integrations, with their recent delivery attempts.', { example: { params: { projectId: '{project}' } } }),
        r('integrations.slack.create', 'POST', '/projects/{projectId}/integrations/slack', 'integrations:write', 'Connect Slack notifications to a project: an incoming webhook URL, a channel, the events.', {
            policy: admin, example: { setup: ['teamProject'], params: team, payload: slack, status: 201 }
        }),
        r('integrations.slack.update', 'PUT', '/projects/{projectId}/integrations/slack', 'integrations:write', 'Change a project\'s Slack integration; fields left out stay as they are.', {
            policy: admin, example: { setup: ['teamProject', 'teamSlack'], params: team, payload: { channel: '#ops' } }
        }),
        r('integrations.slack.delete', 'DELETE', '/projects/{projectId}/integrations/slack', 'integrations:write', 'Remove a project\'s Slack integration and its delivery records.', {
            policy: admin, example: { setup: ['teamProject', 'teamSlack'], params: team, status: 204 }
        }),
        r('integrations.slack.test', 'POST', '/projects/{projectId}/integrations/slack/test', 'integrations:write', 'Send a test message now; answers Slack\'s response (502 when Slack refused it or could not be reached).', {
            policy: admin, example: { setup: ['teamProject', 'teamSlack'], params: team, status: 502 }
        })
    ]
};
