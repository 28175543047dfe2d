import { OutsideClient, OutsideServiceError } from '../outside/http-client';

// Slack's incoming webhooks: a JSON message posted to the webhook URL. Slack answers 200 `ok`, or a status with a
// short reason in the body (`invalid_payload`, `no_service` when the webhook was removed, `channel_not_found`,
// `channel_is_archived`, `action_prohibited`). A 5xx, a 429 or no answer is worth another attempt; anything else
// Slack refused for good.

export interface SlackMessage {
    text: string;
    channel?: string;
    blocks?: unknown[];
}

export interface SlackAnswer {
    delivered: boolean;
    retryable: boolean;
    responseCode: number | null;
    response: string;                                           // what Slack said, or why it was not reached
}

export class SlackWebhook {
    private readonly client: OutsideClient;

    constructor(options: { allowlist: readonly string[]; timeoutMs?: number }) {
        // Posts are not retried by the client: each attempt is the delivery job's, recorded on its own.
        this.client = new OutsideClient({ service: 'slack', allowlist: options.allowlist, retries: 0, maxRedirects: 0, timeoutMs: options.timeoutMs ?? 10_000, maxResponseBytes: 64 * 1024 });
    }

    async post(url: string, message: SlackMessage): Promise<SlackAnswer> {
        try {
            const response = await this.client.request({ method: 'POST', url, headers: { 'content-type': 'application/json' }, body: JSON.stringify(message) });
            const said = response.text().trim().slice(0, 200) || `HTTP ${response.status}`;
            const delivered = response.status >= 200 && response.status < 300;
            return { delivered, retryable: !delivered && (response.status >= 500 || response.status === 429), responseCode: response.status, response: said };
        }
        catch (err) {
            if (!(err instanceof OutsideServiceError)) {
                throw err;
            }

            const reason = err.code === 'refused_destination'
                ? 'the webhook\'s address is not allowed by this deployment (OUTBOUND_ALLOWLIST)'
                : err.code === 'timeout' ? 'Slack did not answer in time' : 'Slack could not be reached';
            return { delivered: false, retryable: err.code !== 'refused_destination' && err.code !== 'bad_url', responseCode: null, response: reason };
        }
    }
}
