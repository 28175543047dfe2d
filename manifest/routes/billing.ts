import type { ResourceKind } from '../../lib/resources/kinds';
import { keyRoute as r, type RouteRow, type RouteTable } from '../../lib/route-table';

// An invoice is addressed by its id under /invoices only (`{id}` names other things elsewhere).
export const INVOICE_KIND: ResourceKind = { kind: 'invoice', param: 'id', table: 'invoices', column: 'id', projectColumn: 'project_id', under: '/invoices', label: 'Invoice' };
/** The invoice `POST /billing/pay/{invoiceId}` names: the same rows, under the spec's other parameter name. */
export const PAYABLE_INVOICE_KIND: ResourceKind = { ...INVOICE_KIND, kind: 'payable-invoice', param: 'invoiceId', under: '/billing/pay' };

const range = { startDate: '2026-01-01', endDate: '2026-01-31' };
const session = (id: string, method: RouteRow['method'], path: string, description: string, example: RouteRow['example']): RouteRow =>
    ({ id, method, path: `/v1${path}`, auth: 'session', description, example });
const webhook = (id: string, path: string, description: string, payload: unknown): RouteRow =>
    ({ id, method: 'POST', path: `/v1${path}`, auth: 'webhook', description, example: { payload } });

// Usage, cycles, currencies, invoices and receipts; paying an invoice; the session-only payment routes of
// api-contract.md section 11 and the processors' webhooks (docs/billing.md). Invoices are seen and paid by their
// project's owners and admins; the `invoice` and `paidInvoice` fixtures are made by the tests' own billing helper.
export const billingTable: RouteTable = {
    family: 'billing',
    kinds: [INVOICE_KIND, PAYABLE_INVOICE_KIND],
    fixtures: {
        invoice: { route: '', seed: 'invoice', value: 'id' },
        paidInvoice: { route: '', seed: 'paidInvoice', value: 'id' },
        campaign: { route: '', seed: 'campaign', value: 'code' }         // makes the campaign SUITE-WELCOME, once
    },
    rows: [
        r('billing.breakdown', 'GET', '/billing/breakdown', 'billing:read', 'Usage across every reachable project between `startDate` and `endDate` (YYYY-MM-DD), priced line by line; `?projectId=` narrows to one project.',
            { policy: { project: 'query' }, example: { query: range } }),
        r('billing.databases.breakdown', 'GET', '/billing/databases/breakdown', 'billing:read', 'Database usage between `startDate` and `endDate` (YYYY-MM-DD), priced line by line.',
            { policy: { project: 'query' }, example: { query: range } }),
        r('billing.cycles', 'GET', '/billing/cycles', 'billing:read', 'Billing cycles (calendar months, UTC): the current one and the eleven before it.', { example: {} }),
        r('billing.currencies', 'GET', '/billing/currencies', 'billing:read', 'Currencies invoices can be issued in.', { example: {} }),
        r('billing.paymentConfig', 'GET', '/billing/payment-config', 'billing:read', 'Payment processors this deployment offers, and the caller\'s saved card and currency.', { example: {} }),
        r('invoices.list', 'GET', '/invoices', 'billing:read', 'Invoices of projects the caller owns or administers, newest first; `?projectId=` narrows to one project.',
            { policy: { project: 'query' }, example: { setup: ['invoice'] } }),
        r('invoices.get', 'GET', '/invoices/{id}', 'billing:read', 'One invoice, with its lines (owners and admins of its project; 404 for anyone else).',
            { example: { setup: ['invoice'], params: { id: '{invoice}' } } }),
        r('invoices.receipt', 'GET', '/invoices/{id}/receipt', 'billing:read', 'The receipt of a paid invoice: JSON, or a printable HTML page with `Accept: text/html`.',
            { example: { setup: ['paidInvoice'], params: { id: '{paidInvoice}' } } }),
        r('billing.pay', 'POST', '/billing/pay/{invoiceId}', 'billing:write', 'Pay an invoice with the caller\'s saved card (owners and admins of its project).', {
            policy: { role: 'admin' }, example: { setup: ['invoice'], params: { invoiceId: '{invoice}' } }
        }),
        session('billing.stripe.checkout', 'POST', '/billing/stripe/checkout', 'Save a card with Stripe: answers the Checkout page to send the browser to.', { status: 201 }),
        session('billing.paystack.checkout', 'POST', '/billing/paystack/checkout', 'Save a card with Paystack: answers the payment page to send the browser to.', { status: 201 }),
        session('billing.currency.set', 'PATCH', '/billing/currency/{code}', 'Set the account\'s currency (one of `GET /v1/billing/currencies`).', { params: { code: 'USD' } }),
        session('billing.currency.get', 'GET', '/billing/currencies/{currencyCode}', 'One currency: its minor-unit exponent and whether invoices can be issued in it.', { params: { currencyCode: 'USD' } }),
        session('credit.get', 'GET', '/credit', 'The account\'s credit: balance per currency and its history, newest first.', {}),
        session('campaigns.redeem', 'POST', '/campaigns/redeem', 'Redeem a promotional code for credit (once per account, within the campaign\'s dates).',
            { setup: ['campaign'], payload: { code: 'SUITE-WELCOME' }, status: 201 }),
        session('transfers.create', 'POST', '/transfers', 'Move an app, site, worker, cron job, database or virtual machine to another project (owner or admin of both); usage before the move stays with the old project.',
            { setup: ['app', 'teamProject'], payload: { resourceType: 'app', resourceName: '{app}', toProjectId: '{teamProject}' } }),
        webhook('webhooks.stripe', '/webhooks/stripe', 'Stripe\'s events, counted only with a valid `Stripe-Signature` within five minutes; a replayed event changes nothing.',
            { id: 'evt_example_0001', type: 'customer.created', data: { object: { id: 'cus_example' } } }),
        webhook('webhooks.paystack', '/webhooks/paystack', 'Paystack\'s events, counted only with a valid `x-paystack-signature`; a replayed event changes nothing.',
            { event: 'customeridentification.success', data: { id: 1001, customer_code: 'CUS_example' } })
    ]
};
