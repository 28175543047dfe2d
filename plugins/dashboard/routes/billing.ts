import Joi from 'joi';

import { formatMoney } from '../../../lib/billing/money';
import type { RouteHandlers } from '../../../lib/route-table';
import { apiError, required } from '../api';
import { page, type PageDeps } from '../page';

// Billing in the dashboard, through the REST API: this cycle's usage (GET /v1/billing/breakdown from the first of
// the month to today), invoices with their printable receipts (GET /v1/invoices, /v1/invoices/{id}/receipt) and
// the account's credit (GET /v1/credit).

interface Line {
    resourceType: string;
    resourceName: string;
    plan: string | null;
    metric: string;
    quantity: number;
    amount: number;
}

interface Invoice {
    id: string;
    projectId: string;
    projectName?: string | null;
    status: string;
    periodStart: string;
    periodEnd: string;
    currency: string;
    lines: Line[];
    subtotal: number;
    creditApplied: number;
    total: number;
    paidAt: string | null;
    paymentProvider: string | null;
}

const money = (minor: number, currency: string) => formatMoney(minor, currency);
const lineView = (line: Line, currency: string) => ({ ...line, quantity: line.quantity.toFixed(2), amount: money(line.amount, currency) });

export function billingRoutes(deps: PageDeps): RouteHandlers {
    const signedIn = { signedIn: true };
    return {
        'dashboard.billing': {
            handler: page(deps, async (p) => {
                const today = new Date().toISOString().slice(0, 10);
                const breakdown = required(await p.api.call<{ currency: string; total: number; projects: Array<{ projectId: string; total: number; lines: Line[] }> }>(
                    'GET', `/v1/billing/breakdown?startDate=${today.slice(0, 8)}01&endDate=${today}`));
                const invoices = required(await p.api.call<Invoice[]>('GET', '/v1/invoices?limit=24'));
                const credit = required(await p.api.call<{ balances: Array<{ currency: string; balance: number }>; history: Array<{ amount: number; currency: string; reason: string; createdAt: string }> }>('GET', '/v1/credit'));
                return p.view('billing', {
                    title: 'Billing',
                    usage: {
                        from: `${today.slice(0, 8)}01`, to: today, total: money(breakdown.total, breakdown.currency),
                        projects: breakdown.projects.map((project) => ({ ...project, total: money(project.total, breakdown.currency), lines: project.lines.map((line) => lineView(line, breakdown.currency)) }))
                    },
                    invoices: invoices.map((invoice) => ({ ...invoice, total: money(invoice.total, invoice.currency), paid: invoice.status === 'paid' })),
                    credit: {
                        balances: credit.balances.map((entry) => ({ ...entry, balance: money(entry.balance, entry.currency) })),
                        history: credit.history.map((entry) => ({ ...entry, amount: money(entry.amount, entry.currency) }))
                    }
                });
            }, signedIn)
        },
        'dashboard.billing.receipt': {
            validate: { params: Joi.object({ invoiceId: Joi.string().pattern(/^inv_[0-9A-Za-z]{16}$/).required() }) },
            handler: page(deps, async (p) => {
                const answer = await p.api.call<Invoice>('GET', `/v1/invoices/${(p.request.params as { invoiceId: string }).invoiceId}/receipt`);
                if (answer.status !== 200) {
                    const error = apiError(answer);
                    return p.view('error', { title: 'Receipt', message: error.message }, error.status);
                }

                const invoice = answer.body;
                return p.view('receipt', {
                    title: `Receipt ${invoice.id}`, invoice,
                    lines: invoice.lines.map((line) => lineView(line, invoice.currency)),
                    subtotal: money(invoice.subtotal, invoice.currency), credit: money(invoice.creditApplied, invoice.currency), total: money(invoice.total, invoice.currency)
                });
            }, signedIn)
        }
    };
}
