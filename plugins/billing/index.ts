import * as Boom from '@hapi/boom';
import type { Knex } from 'knex';
import Joi from 'joi';
import { snakeCaseMappers } from 'objection';

import { access, type Access } from '../../lib/access';
import { receiptHtml } from '../../lib/billing/receipt';
import type { PaymentsConfig } from '../../lib/billing/processors';
import { Billing, type BillingOptions } from '../../lib/billing/service';
import { deriveKey } from '../../lib/crypto';
import { respondWithPage } from '../../lib/list-response';
import { listQuery } from '../../lib/pagination';
import type { PriceList } from '../../lib/plans';
import { dailyJob } from '../../lib/queue/daily';
import { bindRoutes, route, type FamilyPlugin } from '../../lib/route-table';
import { systemClock, type Clock } from '../../lib/scheduler/clock';
import { fields } from '../../lib/validation';
import type { VmCatalogue } from '../../lib/vm/catalogue';
import { billingTable, INVOICE_KIND, PAYABLE_INVOICE_KIND } from '../../manifest/routes/billing';
import { paymentRoutes } from './payment-routes';

// Billing (docs/billing.md): breakdowns metered from allocation events, cycles, currencies, invoices and receipts,
// paying through a processor, checkout, credit, campaigns and the processors' webhooks. A daily job meters, invoices
// the last closed cycle (idempotently) and prunes webhook records; `billing` is exposed for the CLI and the tests.
export interface BillingPluginOptions {
    knex: Knex;
    prices: PriceList;
    catalogue: VmCatalogue;
    encryptionKey: string;
    publicUrl: string;
    payments: PaymentsConfig;
    outboundAllowlist: readonly string[];
    clock?: Clock;
}

declare module '@hapi/hapi' {
    interface PluginProperties {
        'hostless-billing': { billing: Billing };
    }
}

export const DAILY_JOB = 'billing.daily';

const range = Joi.object<{ startDate: string; endDate: string }, true>({
    startDate: fields.day().required().description('The first day, YYYY-MM-DD (UTC).'),
    endDate: fields.day().required().description('The last day, YYYY-MM-DD (UTC), at most 366 days after the first.')
});
const invoiceParams = Joi.object<{ id: string }, true>({ id: fields.id('inv').required() });

export function billingOptions(options: BillingPluginOptions): BillingOptions {
    const clock = options.clock ?? systemClock;
    const { stripe, paystack } = options.payments;
    return {
        knex: options.knex, prices: options.prices, catalogue: options.catalogue, sealKey: deriveKey(options.encryptionKey, 'secrets-at-rest'),
        publicUrl: options.publicUrl, clock: () => clock.now(), allowlist: options.outboundAllowlist,
        stripe: stripe ? { apiUrl: stripe.apiUrl, secretKey: stripe.secretKey, ...(stripe.webhookSecret ? { webhookSecret: stripe.webhookSecret } : {}) } : null,
        paystack: paystack ? { apiUrl: paystack.apiUrl, secretKey: paystack.secretKey } : null
    };
}

export const billingPlugin: FamilyPlugin<BillingPluginOptions> = {
    name: 'hostless-billing',
    table: billingTable,
    dependencies: ['hostless-auth', 'hostless-jobs'],
    async register(server, options) {
        const { queue } = server.plugins['hostless-jobs'];
        const billing = new Billing({ ...billingOptions(options), outbox: () => server.plugins['hostless-notifications']?.outbox ?? null });
        for (const warning of await billing.start()) {
            server.log(['warn', 'billing'], warning);
        }
        server.ext('onPostStart', dailyJob(queue, DAILY_JOB, () => billing.daily()));
        server.expose('billing', billing);

        // Projects a breakdown covers: the one `?projectId=` named, or every project the caller is a member of.
        const reachable = async (resolved: Access): Promise<string[]> => {
            if (resolved.project) {
                return [resolved.project.id];
            }

            const ids = (await options.knex('memberships').where({ user_id: resolved.user.id }).select('project_id')).map((row: { project_id: string }) => row.project_id);
            return resolved.pinnedProjects ? ids.filter((id) => resolved.pinnedProjects!.includes(id)) : ids;
        };
        // The pipeline hands the loaded row over in camelCase (plugins/auth/policy.ts): back to columns for the model.
        const columns = snakeCaseMappers();
        const invoiceOf = (resolved: Access) => {
            const row = resolved.rows[INVOICE_KIND.kind] ?? resolved.rows[PAYABLE_INVOICE_KIND.kind];
            return billing.invoices.visible(columns.format(row), resolved.resource?.role ?? null);
        };

        bindRoutes(server, billingTable, {
            'billing.breakdown': route({ query: range, handler: async (request) => billing.breakdown(await reachable(access(request)), request.query.startDate, request.query.endDate) }),
            'billing.databases.breakdown': route({
                query: range, handler: async (request) => billing.breakdown(await reachable(access(request)), request.query.startDate, request.query.endDate, ['database'])
            }),
            'billing.cycles': route({ handler: () => billing.invoices.cycles() }),
            'billing.currencies': route({ handler: () => billing.currencies() }),
            'billing.paymentConfig': route({
                handler: async (request) => ({ providers: billing.payments.configured(), currency: billing.currency, account: await billing.payments.settings(access(request).user.id) })
            }),
            'invoices.list': route({
                query: Joi.object<{ limit: number; cursor?: string }, true>(listQuery),
                handler: async (request, h) => {
                    const resolved = access(request);
                    const who = { userId: resolved.user.id, projectId: resolved.project?.id ?? null, pinnedProjects: resolved.pinnedProjects };
                    return respondWithPage(request, h, await billing.invoices.list(server.plugins['hostless-auth'].lists, who, request.query), (invoice) => invoice);
                }
            }),
            'invoices.get': route({ params: invoiceParams, handler: (request) => invoiceOf(access(request)) }),
            'invoices.receipt': route({
                params: invoiceParams,
                handler: async (request, h) => {
                    const invoice = invoiceOf(access(request));
                    if (invoice.status !== 'paid') {
                        throw Boom.conflict(`The invoice is ${invoice.status}: a receipt exists once it is paid`);
                    }

                    const project = await options.knex<{ id: string; name: string }>('projects').where({ id: invoice.projectId }).first('name');
                    const accept = request.headers.accept;
                    if (typeof accept === 'string' && accept.includes('text/html')) {
                        return h.response(receiptHtml(invoice, { name: project?.name ?? invoice.projectId })).type('text/html; charset=utf-8');
                    }

                    return { ...invoice, projectName: project?.name ?? null };
                }
            }),
            'billing.pay': route({
                params: Joi.object<{ invoiceId: string }, true>({ invoiceId: fields.id('inv').required() }),
                handler: (request) => billing.payments.pay(invoiceOf(access(request)), access(request).user.id)
            }),
            ...paymentRoutes(billing, options)
        });
    }
};
