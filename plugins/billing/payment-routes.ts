import * as Boom from '@hapi/boom';
import type { Lifecycle, Request } from '@hapi/hapi';
import Joi from 'joi';

import { access } from '../../lib/access';
import { exponentOf } from '../../lib/billing/money';
import type { Provider, WebhookEvent } from '../../lib/billing/payments';
import { paystackSignatureValid, stripeSignatureValid } from '../../lib/billing/processors';
import type { Billing } from '../../lib/billing/service';
import { TRANSFER_KINDS, Transfers, type TransferInput, type TransferKind } from '../../lib/billing/transfers';
import { route, type RouteHandlers } from '../../lib/route-table';
import { fields } from '../../lib/validation';
import type { BillingPluginOptions } from './index';

// The session-only payment routes (api-contract.md section 11) and the processors' webhooks. A webhook's body is
// kept raw: its signature covers the exact bytes, and it is verified before anything reads it.
const currencyCode = Joi.string().pattern(/^[A-Z]{3}$/, 'ISO 4217 currency code such as USD');
const WEBHOOK_MAX_BYTES = 512 * 1024;

type Row = Record<string, unknown>;

function parsed(request: Request): Row {
    try {
        const body = JSON.parse((request.payload as Buffer).toString('utf8')) as unknown;
        if (body && typeof body === 'object' && !Array.isArray(body)) {
            return body as Row;
        }
    }
    catch { }

    throw Boom.badRequest('The request body must be a JSON event object');
}

export function paymentRoutes(billing: Billing, options: BillingPluginOptions): RouteHandlers {
    const transfers = new Transfers(options.knex, () => (options.clock ? options.clock.now() : new Date()));
    const { payments } = billing;
    const now = () => (options.clock ? options.clock.now() : new Date()).getTime();
    const refused = async (provider: Provider, outcome: 'bad_signature' | 'stale' | 'not_configured', message: string): Promise<never> => {
        await payments.record(provider, null, null, outcome);
        throw Boom.unauthorized(message);
    };

    const verifyStripe: Lifecycle.Method = async (request, h) => {
        const secret = options.payments.stripe?.webhookSecret;
        if (!secret) {
            return refused('stripe', 'not_configured', 'Stripe webhooks are not configured on this deployment (STRIPE_WEBHOOK_SECRET)');
        }

        const header = request.headers['stripe-signature'];
        const verdict = stripeSignatureValid(typeof header === 'string' ? header : undefined, request.payload as Buffer, secret, now());
        if (verdict !== 'valid') {
            return refused('stripe', verdict === 'stale' ? 'stale' : 'bad_signature',
                verdict === 'stale' ? 'The event\'s signature is older than the five minutes allowed' : 'The Stripe-Signature header does not verify');
        }

        return h.continue;
    };

    const verifyPaystack: Lifecycle.Method = async (request, h) => {
        const secret = options.payments.paystack?.secretKey;
        if (!secret) {
            return refused('paystack', 'not_configured', 'Paystack is not configured on this deployment (PAYSTACK_SECRET_KEY)');
        }

        const header = request.headers['x-paystack-signature'];
        if (!paystackSignatureValid(typeof header === 'string' ? header : undefined, request.payload as Buffer, secret)) {
            return refused('paystack', 'bad_signature', 'The x-paystack-signature header does not verify');
        }

        return h.continue;
    };

    const raw = { parse: false, output: 'data' as const, maxBytes: WEBHOOK_MAX_BYTES };
    return {
        'billing.stripe.checkout': route({
            handler: async (request, h) => h.response(await payments.checkout(access(request).user, 'stripe', billing.currency)).code(201)
        }),
        'billing.paystack.checkout': route({
            handler: async (request, h) => h.response(await payments.checkout(access(request).user, 'paystack', billing.currency)).code(201)
        }),
        'billing.currency.set': route({
            params: Joi.object<{ code: string }, true>({ code: currencyCode.required() }),
            handler: async (request) => {
                const offered = billing.currencies().map((currency) => currency.code);
                if (!offered.includes(request.params.code)) {
                    throw Boom.badRequest(`"code" must be a currency invoices are issued in: ${offered.join(', ')}`);
                }

                await payments.setCurrency(access(request).user.id, request.params.code);
                return payments.settings(access(request).user.id);
            }
        }),
        'billing.currency.get': route({
            params: Joi.object<{ currencyCode: string }, true>({ currencyCode: currencyCode.required() }),
            handler: (request) => {
                const code = request.params.currencyCode;
                return { code, exponent: exponentOf(code), offered: billing.currencies().some((currency) => currency.code === code) };
            }
        }),
        'credit.get': route({ handler: (request) => billing.credit.of(access(request).user.id) }),
        'campaigns.redeem': route({
            payload: Joi.object<{ code: string }, true>({ code: Joi.string().trim().pattern(/^[A-Za-z0-9_-]{3,64}$/, 'campaign code').required() }),
            handler: async (request, h) => h.response(await billing.credit.redeem(access(request).user.id, request.payload.code)).code(201)
        }),
        'transfers.create': route({
            payload: Joi.object<TransferInput, true>({
                resourceType: Joi.string().valid(...Object.keys(TRANSFER_KINDS) as TransferKind[]).required().description('What kind of resource moves.'),
                resourceName: Joi.string().trim().max(63).required().description('Its name (a virtual machine: its id).'),
                toProjectId: fields.projectId().required().description('The project it moves to.')
            }),
            handler: (request) => transfers.transfer(access(request).user.id, request.payload)
        }),
        'webhooks.stripe': {
            payload: raw,
            validate: { payload: true },
            verify: verifyStripe,
            handler: async (request) => {
                const body = parsed(request);
                const data = body.data as Row | undefined;
                if (typeof body.id !== 'string' || typeof body.type !== 'string' || !data || typeof data.object !== 'object') {
                    throw Boom.badRequest('The event must have an "id", a "type" and "data.object"');
                }

                const event: WebhookEvent = { id: body.id, type: body.type, object: data.object as Row };
                return { received: true, outcome: await payments.apply('stripe', event) };
            }
        },
        'webhooks.paystack': {
            payload: raw,
            validate: { payload: true },
            verify: verifyPaystack,
            handler: async (request) => {
                const body = parsed(request);
                const data = body.data as Row | undefined;
                if (typeof body.event !== 'string' || !data || typeof data !== 'object') {
                    throw Boom.badRequest('The event must have an "event" and "data"');
                }

                // Paystack's events carry no id of their own: the event name and its object's id (or reference) name it.
                const named = data.id ?? data.reference;
                const id = `${body.event}:${typeof named === 'string' || typeof named === 'number' ? String(named) : ''}`;
                return { received: true, outcome: await payments.apply('paystack', { id, type: body.event, object: data }) };
            }
        }
    };
}
