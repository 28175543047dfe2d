import * as Crypto from 'node:crypto';

import { OutsideClient, OutsideServiceError } from '../outside/http-client';

// The payment processors, each a small adapter on the platform's outbound client (docs/billing.md). Stripe: a
// customer, a Checkout Session in `setup` mode that saves a card, and off-session PaymentIntents confirmed at once
// (form-encoded, with an Idempotency-Key, as Stripe's API takes them). Paystack: a transaction initialised for a
// card authorization, verified, then charged again with charge_authorization. Stripe's official SDK would need its
// own HTTP client: these few calls go through the one client that enforces the outbound rules instead.
export interface ChargeRequest {
    invoiceId: string;
    amount: number;                                             // minor units
    currency: string;
    customer: string;                                           // Stripe customer id or Paystack email
    paymentMethod: string;                                      // Stripe payment method id or Paystack authorization code
    attempt: number;
}

export interface ChargeOutcome {
    paid: boolean;
    reference: string | null;
    reason: string | null;                                      // why it failed, in the processor's words
}

export interface Checkout {
    reference: string;                                          // the processor's session id or transaction reference
    url: string;                                                // where the browser goes to enter a card
}

/** Payment processors (docs/billing.md): each is offered once its secret key is set; Stripe's webhooks need its signing secret. */
export interface PaymentsConfig {
    stripe: { apiUrl: string; secretKey: string; webhookSecret: string | null } | null;
    paystack: { apiUrl: string; secretKey: string } | null;
}

export interface ProcessorSettings {
    apiUrl: string;
    secretKey: string;
    webhookSecret?: string;                                     // Stripe: the endpoint's signing secret (Paystack signs with the secret key)
    allowlist: readonly string[];
}

class Adapter {
    protected readonly client: OutsideClient;

    constructor(protected readonly service: string, protected readonly settings: ProcessorSettings) {
        this.client = new OutsideClient({ service, allowlist: settings.allowlist, retries: 0, maxRedirects: 0, timeoutMs: 20_000, maxResponseBytes: 1024 * 1024 });
    }

    protected async call<T>(method: string, path: string, body: string | null, headers: Record<string, string>): Promise<{ status: number; json: T }> {
        const response = await this.client.request({ method, url: `${this.settings.apiUrl}${path}`, headers, ...(body !== null ? { body } : {}) });
        let json: T;
        try {
            json = response.json<T>();
        }
        catch {
            throw new OutsideServiceError(this.service, 'network', `answered ${response.status} without JSON`);
        }

        return { status: response.status, json };
    }
}

interface StripeError {
    error?: { message?: string; code?: string; decline_code?: string; payment_intent?: { id?: string } };
}

export class StripeProcessor extends Adapter {
    constructor(settings: ProcessorSettings) {
        super('stripe', settings);
    }

    private async form<T>(method: string, path: string, fields: Record<string, string> | null, idempotencyKey?: string): Promise<T & StripeError & { httpStatus: number }> {
        const headers: Record<string, string> = { authorization: `Bearer ${this.settings.secretKey}`, 'stripe-version': '2024-06-20' };
        if (fields) {
            headers['content-type'] = 'application/x-www-form-urlencoded';
        }

        if (idempotencyKey) {
            headers['idempotency-key'] = idempotencyKey;
        }

        const { status, json } = await this.call<T & StripeError>(method, path, fields ? new URLSearchParams(fields).toString() : null, headers);
        if (status >= 500 || status === 401 || status === 429) {
            throw new OutsideServiceError('stripe', 'network', `answered ${status}: ${json.error?.message ?? 'no message'}`);
        }

        return { ...json, httpStatus: status };
    }

    async customer(email: string, userId: string): Promise<string> {
        const created = await this.form<{ id: string }>('POST', '/v1/customers', { email, 'metadata[user_id]': userId }, `customer-${userId}`);
        if (!created.id) {
            throw new OutsideServiceError('stripe', 'network', created.error?.message ?? 'no customer was created');
        }

        return created.id;
    }

    async checkout(customer: string, successUrl: string, cancelUrl: string, checkoutId: string): Promise<Checkout> {
        const session = await this.form<{ id: string; url: string }>('POST', '/v1/checkout/sessions', {
            mode: 'setup', customer, 'payment_method_types[0]': 'card', success_url: successUrl, cancel_url: cancelUrl, client_reference_id: checkoutId
        }, `checkout-${checkoutId}`);
        if (!session.id || !session.url) {
            throw new OutsideServiceError('stripe', 'network', session.error?.message ?? 'no checkout session was created');
        }

        return { reference: session.id, url: session.url };
    }

    /** The payment method a completed setup saved. */
    async savedMethod(setupIntent: string): Promise<{ id: string; hint: string } | null> {
        const intent = await this.form<{ payment_method?: string | { id: string; card?: { brand?: string; last4?: string } } }>('GET',
            `/v1/setup_intents/${encodeURIComponent(setupIntent)}?expand[]=payment_method`, null);
        const method = intent.payment_method;
        if (!method) {
            return null;
        }

        return typeof method === 'string' ? { id: method, hint: 'card' } : { id: method.id, hint: `${method.card?.brand ?? 'card'} ending ${method.card?.last4 ?? '????'}` };
    }

    async charge(request: ChargeRequest): Promise<ChargeOutcome> {
        const intent = await this.form<{ id?: string; status?: string; last_payment_error?: { message?: string } }>('POST', '/v1/payment_intents', {
            amount: String(request.amount), currency: request.currency.toLowerCase(), customer: request.customer, payment_method: request.paymentMethod,
            off_session: 'true', confirm: 'true', 'metadata[invoice_id]': request.invoiceId
        }, `invoice-${request.invoiceId}-${request.attempt}`);
        if (intent.status === 'succeeded') {
            return { paid: true, reference: intent.id ?? null, reason: null };
        }

        const reason = intent.error?.message ?? intent.last_payment_error?.message ?? `the payment is ${intent.status ?? 'not confirmed'}`;
        return { paid: false, reference: intent.id ?? intent.error?.payment_intent?.id ?? null, reason };
    }
}

interface PaystackAnswer<T> {
    status: boolean;
    message: string;
    data?: T;
}

export class PaystackProcessor extends Adapter {
    constructor(settings: ProcessorSettings) {
        super('paystack', settings);
    }

    private async json<T>(method: string, path: string, body: unknown): Promise<PaystackAnswer<T> & { httpStatus: number }> {
        const headers: Record<string, string> = { authorization: `Bearer ${this.settings.secretKey}` };
        if (body !== null) {
            headers['content-type'] = 'application/json';
        }

        const { status, json } = await this.call<PaystackAnswer<T>>(method, path, body !== null ? JSON.stringify(body) : null, headers);
        if (status >= 500 || status === 401 || status === 429) {
            throw new OutsideServiceError('paystack', 'network', `answered ${status}: ${json.message ?? 'no message'}`);
        }

        return { ...json, httpStatus: status };
    }

    /** A transaction of the smallest amount the currency allows, to authorize the card for later charges. */
    async checkout(email: string, currency: string, amount: number, callbackUrl: string, checkoutId: string): Promise<Checkout> {
        const answer = await this.json<{ authorization_url: string; reference: string }>('POST', '/transaction/initialize', {
            email, amount, currency, callback_url: callbackUrl, reference: checkoutId, channels: ['card']
        });
        if (!answer.status || !answer.data) {
            throw new OutsideServiceError('paystack', 'network', answer.message);
        }

        return { reference: answer.data.reference, url: answer.data.authorization_url };
    }

    async charge(request: ChargeRequest): Promise<ChargeOutcome> {
        const reference = `${request.invoiceId}-${request.attempt}`;
        const answer = await this.json<{ status: string; reference: string; gateway_response?: string }>('POST', '/transaction/charge_authorization', {
            email: request.customer, amount: request.amount, currency: request.currency, authorization_code: request.paymentMethod, reference,
            metadata: { invoice_id: request.invoiceId }
        });
        if (answer.status && answer.data?.status === 'success') {
            return { paid: true, reference: answer.data.reference, reason: null };
        }

        return { paid: false, reference: answer.data?.reference ?? reference, reason: answer.data?.gateway_response ?? answer.message };
    }
}

/**
 * Stripe's webhook signature (https://docs.stripe.com/webhooks#verify-manually): `Stripe-Signature: t=<unix>,v1=<hex>`,
 * the HMAC-SHA256 of `<t>.<raw body>` with the endpoint secret, accepted within `toleranceS` of now.
 */
export function stripeSignatureValid(header: string | undefined, body: Buffer, secret: string, nowMs: number, toleranceS = 300): 'valid' | 'bad' | 'stale' {
    const parts = (header ?? '').split(',').map((part) => part.trim().split('='));
    const t = parts.find(([key]) => key === 't')?.[1];
    const signatures = parts.filter(([key]) => key === 'v1').map(([, value]) => value ?? '');
    if (!t || !/^\d+$/.test(t) || !signatures.length) {
        return 'bad';
    }

    const expected = Crypto.createHmac('sha256', secret).update(`${t}.`).update(body).digest();
    const matches = signatures.some((signature) => {
        const given = Buffer.from(signature, 'hex');
        return given.length === expected.length && Crypto.timingSafeEqual(given, expected);
    });
    if (!matches) {
        return 'bad';
    }

    return Math.abs(nowMs / 1000 - Number(t)) > toleranceS ? 'stale' : 'valid';
}

/** Paystack's webhook signature (https://paystack.com/docs/payments/webhooks): `x-paystack-signature`, HMAC-SHA512 of the raw body with the secret key. */
export function paystackSignatureValid(header: string | undefined, body: Buffer, secretKey: string): boolean {
    const expected = Crypto.createHmac('sha512', secretKey).update(body).digest();
    const given = Buffer.from(header ?? '', 'hex');
    return given.length === expected.length && Crypto.timingSafeEqual(given, expected);
}
