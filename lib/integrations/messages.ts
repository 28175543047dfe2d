import { EVENT_TYPES, type PlatformEvent } from '../events';
import type { SlackMessage } from './slack';

// What Slack shows for an event: one line of text (Slack's notification) and the same in a section block, with a
// link to the project in the dashboard. Built from the event's fields only, which never hold a secret.

const ICONS: Readonly<Record<string, string>> = { live: ':white_check_mark:', succeeded: ':white_check_mark:', ready: ':white_check_mark:', failed: ':x:', deleted: ':wastebasket:' };

// Slack's mrkdwn treats &, < and > as control characters.
const escape = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

export function eventMessage(event: PlatformEvent, publicUrl: string, channel: string | null): SlackMessage {
    const outcome = event.type.slice(event.type.indexOf('.') + 1);
    const icon = ICONS[outcome] ?? ':information_source:';
    const what = `${event.resource.type} *${escape(event.resource.name)}*`;
    const data = event.data;
    const detail = [
        typeof data.deploymentId === 'string' ? `deployment \`${data.deploymentId}\`` : null,
        typeof data.runId === 'string' ? `run \`${data.runId}\`` : null,
        typeof data.branch === 'string' ? `branch \`${escape(data.branch)}\`` : null,
        typeof data.commitSha === 'string' ? `commit \`${data.commitSha.slice(0, 12)}\`` : null,
        typeof data.exitCode === 'number' ? `exit code ${data.exitCode}` : null
    ].filter(Boolean).join(', ');
    const reason = typeof data.error === 'string' ? `\n> ${escape(data.error.slice(0, 500))}` : '';
    const text = `${icon} ${EVENT_TYPES[event.type]}: ${what}${detail ? ` (${detail})` : ''}${reason}`;
    const link = `${publicUrl}/dashboard/projects/${encodeURIComponent(event.projectId)}`;
    return {
        text,
        ...(channel ? { channel } : {}),
        blocks: [
            { type: 'section', text: { type: 'mrkdwn', text } },
            { type: 'context', elements: [{ type: 'mrkdwn', text: `<${link}|Open the project> · \`${event.type}\` · ${event.occurredAt}` }] }
        ]
    };
}

export function testMessage(projectName: string, channel: string | null): SlackMessage {
    return { text: `:wave: Hostless can post to this channel: notifications of the project *${escape(projectName)}* arrive here.`, ...(channel ? { channel } : {}) };
}
