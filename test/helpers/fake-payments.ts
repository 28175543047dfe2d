import * as Crypto from 'node:crypto';

import { fakeService, type FakeService } from './fake-service';

// Stripe and Paystack on 127.0.0.1, enough of each for the payment adapters: Stripe's customers, Checkout Sessions
// in setup mode, setup intents and off-session PaymentIntents (form bodies, Bearer secret key); Paystack's
// transaction initialise and charge_authorization (JSON). A card whose id or code contains `declined` is declined
// as each processor declines. The signers are the tests' own, written from each processor's documented scheme.
export const STRIPE_KEY = 'sk_test_fakeStripeKey0001';
export const STRIPE_WEBHOOK_SECRET = 'whsec_fakeStripeSigning0001';
export const PAYSTACK_KEY = 'sk_test_fakePaystackKey0001';

export interface FakeProcessors {
    stripe: FakeService;
    paystack: FakeService;
    stop(): Promise<void>;
}

const random = () => Crypto.randomBytes(8).toString('hex');

export async function fakeProcessors(): Promise<FakeProcessors> {
    const authorized = (header: unknown, key: string) => header === `Bearer ${key}`;
    const stripe = await fakeService([
        {
            method: 'POST', path: '/v1/customers', handler: (request, h) =>
                authorized(request.headers.authorization, STRIPE_KEY) ? { id: `cus_${random()}`, object: 'customer' } : h.response({ error: { message: 'Invalid API Key provided' } }).code(401)
        },
        {
            method: 'POST', path: '/v1/checkout/sessions', handler: (request) => {
                const id = `cs_test_${random()}`;
                return { id, object: 'checkout.session', mode: (request.payload as Record<string, string>).mode, url: `https://checkout.stripe.com/c/pay/${id}` };
            }
        },
        {
            method: 'GET', path: '/v1/setup_intents/{id}', handler: (request) => ({
                id: request.params.id as string, object: 'setup_intent', status: 'succeeded',
                payment_method: { id: (request.params.id as string).includes('declined') ? 'pm_card_declined' : 'pm_card_visa', card: { brand: 'visa', last4: '4242' } }
            })
        },
        {
            method: 'POST', path: '/v1/payment_intents', handler: (request, h) => {
                const body = request.payload as Record<string, string>;
                const id = `pi_${random()}`;
                if (body.payment_method?.includes('declined')) {
                    return h.response({ error: { type: 'card_error', code: 'card_declined', decline_code: 'generic_decline', message: 'Your card was declined.', payment_intent: { id, status: 'requires_payment_method' } } }).code(402);
                }

                return { id, object: 'payment_intent', amount: Number(body.amount), currency: body.currency, status: 'succeeded', metadata: { invoice_id: body['metadata[invoice_id]'] } };
            }
        }
    ]);
    const paystack = await fakeService([
        {
            method: 'POST', path: '/transaction/initialize', handler: (request, h) => {
                if (!authorized(request.headers.authorization, PAYSTACK_KEY)) {
                    return h.response({ status: false, message: 'Invalid key' }).code(401);
                }

                const body = request.payload as { reference: string };
                return { status: true, message: 'Authorization URL created', data: { authorization_url: `https://checkout.paystack.com/${random()}`, access_code: random(), reference: body.reference } };
            }
        },
        {
            method: 'POST', path: '/transaction/charge_authorization', handler: (request) => {
                const body = request.payload as { authorization_code: string; reference: string };
                const declined = body.authorization_code.includes('declined');
                return { status: true, message: 'Charge attempted', data: { status: declined ? 'failed' : 'success', reference: body.reference, gateway_response: declined ? 'Declined' : 'Approved' } };
            }
        }
    ]);
    return { stripe, paystack, stop: async () => { await stripe.stop(); await paystack.stop(); } };
}

/** A `Stripe-Signature` header for a raw body, as https://docs.stripe.com/webhooks#verify-manually describes it. */
export function stripeSignature(body: string, secret = STRIPE_WEBHOOK_SECRET, at = Date.now()): string {
    const t = Math.floor(at / 1000);
    return `t=${t},v1=${Crypto.createHmac('sha256', secret).update(`${t}.${body}`).digest('hex')}`;
}

/** An `x-paystack-signature` header: HMAC-SHA512 of the raw body with the secret key (https://paystack.com/docs/payments/webhooks). */
export function paystackSignature(body: string, secret = PAYSTACK_KEY): string {
    return Crypto.createHmac('sha512', secret).update(body).digest('hex');
}
