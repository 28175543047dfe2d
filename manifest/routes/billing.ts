import { keyRoute as r, type RouteTable } from '../../lib/route-table';

// Usage, cycles, currencies, invoices and receipts; paying an invoice. Invoices are seen by owners and admins.
export const billingTable: RouteTable = {
    family: 'billing',
    rows: [
        r('billing.breakdown', 'GET', '/billing/breakdown', 'billing:read', 'Usage across every reachable project between `startDate` and `endDate` (YYYY-MM-DD).'),
        r('billing.databases.breakdown', 'GET', '/billing/databases/breakdown', 'billing:read', 'Database usage between `startDate` and `endDate`.'),
        r('billing.cycles', 'GET', '/billing/cycles', 'billing:read', 'Billing cycles.'),
        r('billing.currencies', 'GET', '/billing/currencies', 'billing:read', 'Currencies invoices can be issued in.'),
        r('billing.paymentConfig', 'GET', '/billing/payment-config', 'billing:read', 'Payment providers and the account\'s payment settings.'),
        r('invoices.list', 'GET', '/invoices', 'billing:read', 'Invoices of projects the caller owns or administers.'),
        r('invoices.get', 'GET', '/invoices/{id}', 'billing:read', 'One invoice.'),
        r('invoices.receipt', 'GET', '/invoices/{id}/receipt', 'billing:read', 'The receipt of a paid invoice.'),
        r('billing.pay', 'POST', '/billing/pay/{invoiceId}', 'billing:write', 'Pay an invoice.')
    ]
};
