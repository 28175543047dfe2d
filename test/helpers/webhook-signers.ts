import type { ServerInjectOptions } from '@hapi/hapi';

import type { Config } from '../../manifest/config';
import { fakeProcessors, paystackSignature, PAYSTACK_KEY, STRIPE_KEY, STRIPE_WEBHOOK_SECRET, stripeSignature, type FakeProcessors } from './fake-payments';
import { fakeSecretScanning, type FakeSecretScanning } from './fake-secret-scanning';

// How the generated security suite signs the example of each `webhook` row: the sender's fake runs on 127.0.0.1,
// the test server is configured to trust it, and a signer turns the row's example request into a signed one (or a
// mis-signed one). A webhook row without a signer here fails the suite: its signature check would go untested.
export type Signer = (request: ServerInjectOptions, how: 'signed' | 'forged') => ServerInjectOptions;

export interface WebhookSenders {
    signers: Readonly<Record<string, Signer>>;
    config(): Partial<Config>;                                  // what a test server needs to trust the senders
    start(): Promise<void>;
    stop(): Promise<void>;
}

export function webhookSenders(): WebhookSenders {
    let github: FakeSecretScanning | null = null;
    let processors: FakeProcessors | null = null;
    const started = () => {
        if (!github) {
            throw new Error('start the webhook senders (in a before hook) before making a server');
        }

        return github;
    };

    const body = (request: ServerInjectOptions) => typeof request.payload === 'string' ? request.payload : JSON.stringify(request.payload ?? null);
    const withHeader = (request: ServerInjectOptions, payload: string, header: string, value: string) =>
        ({ ...request, payload, headers: { ...request.headers, 'content-type': 'application/json', [header]: value } });
    return {
        signers: {
            'secretScanning.report': (request, how) => {
                const signed = started()[how === 'signed' ? 'sign' : 'forge'](body(request));
                return { ...request, payload: signed.payload, headers: { ...request.headers, ...signed.headers } };
            },
            // Signed with the tests' own code from each processor's documented scheme; forged with another secret.
            'webhooks.stripe': (request, how) =>
                withHeader(request, body(request), 'stripe-signature', stripeSignature(body(request), how === 'signed' ? STRIPE_WEBHOOK_SECRET : 'whsec_notTheSecret0000')),
            'webhooks.paystack': (request, how) =>
                withHeader(request, body(request), 'x-paystack-signature', paystackSignature(body(request), how === 'signed' ? PAYSTACK_KEY : 'sk_test_notTheKey0000'))
        },
        config: () => {
            const fakes = started() && processors!;
            return {
                secretScanning: { keysUrl: started().keysUrl }, outbound: { allowlist: ['127.0.0.1'] },
                payments: {
                    stripe: { apiUrl: fakes.stripe.url, secretKey: STRIPE_KEY, webhookSecret: STRIPE_WEBHOOK_SECRET },
                    paystack: { apiUrl: fakes.paystack.url, secretKey: PAYSTACK_KEY }
                }
            };
        },
        start: async () => {
            github = await fakeSecretScanning();
            processors = await fakeProcessors();
        },
        stop: async () => {
            await github?.stop();
            await processors?.stop();
            github = null;
            processors = null;
        }
    };
}
