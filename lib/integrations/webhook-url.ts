import * as Net from 'node:net';

import { refusedReason } from '../outside/destination';

// A Slack incoming webhook URL: https, on a host the operator allows (SLACK_WEBHOOK_HOSTS, hooks.slack.com by
// default), no credentials in it. Its path is the secret: it is stored sealed and shown only as a hint with the
// path left out. Plain http to a loopback address is accepted only where the server's configuration says so,
// which only tests do.

export interface WebhookRules {
    webhookHosts: readonly string[];
    allowHttpLoopback: boolean;
}

/** Why a webhook URL is refused, in a user's words, or null when it is accepted. Never echoes the URL. */
export function webhookProblem(value: string, rules: WebhookRules): string | null {
    let url: URL;
    try {
        url = new URL(value);
    }
    catch {
        return '"webhookUrl" must be a URL such as https://hooks.slack.com/services/...';
    }

    const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
    const loopback = Net.isIP(host) !== 0 && refusedReason(host) === 'loopback';
    if (url.protocol !== 'https:' && !(url.protocol === 'http:' && loopback && rules.allowHttpLoopback)) {
        return '"webhookUrl" must be an https URL';
    }

    if (url.username || url.password) {
        return '"webhookUrl" must not hold a user name or password';
    }

    if (!rules.webhookHosts.map((allowed) => allowed.toLowerCase()).includes(host)) {
        return `"webhookUrl" must be on an allowed host: ${rules.webhookHosts.join(', ')}`;
    }

    if (url.port && !(loopback && rules.allowHttpLoopback)) {
        return '"webhookUrl" must use the default port';
    }

    if (url.pathname.split('/').filter(Boolean).length < 2 || url.hash) {
        return '"webhookUrl" must be the whole incoming webhook URL Slack gave you';
    }

    return null;
}

/** The URL with its secret path left out: `https://hooks.slack.com/services/…`. */
export function webhookHint(value: string): string {
    const url = new URL(value);
    const first = url.pathname.split('/').filter(Boolean)[0];
    return `${url.origin}/${first ? `${first}/` : ''}…`;
}

/** Cuts the webhook's path, and anything shaped like a Slack webhook, out of a text a receiver or a socket produced. */
export function scrubWebhook(text: string, value: string): string {
    const path = new URL(value).pathname;
    return text.split(path).join('/…').replace(/hooks\.slack(?:-gov)?\.com\/\S+/gi, 'hooks.slack.com/…');
}
