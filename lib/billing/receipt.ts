import Hoek from '@hapi/hoek';

import type { Invoice } from './invoices';
import { formatMoney } from './money';

// The printable receipt of a paid invoice: one self-contained HTML page (inline styles, no script), every value escaped.
export function receiptHtml(invoice: Invoice, project: { name: string }): string {
    const e = (value: string) => Hoek.escapeHtml(value);
    const money = (minor: number) => e(formatMoney(minor, invoice.currency));
    const lines = invoice.lines.map((line) => `<tr><td>${e(line.resourceName)}</td><td>${e(line.resourceType)}</td><td>${e(line.plan ?? '')}</td>` +
        `<td>${e(line.metric)}</td><td class="n">${e(line.quantity.toFixed(4))}</td><td class="n">${money(line.amount)}</td></tr>`).join('\n');
    return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Receipt ${e(invoice.id)}</title>
<style>body{font:14px/1.5 system-ui,sans-serif;max-width:48rem;margin:2rem auto;color:#111}table{width:100%;border-collapse:collapse}
td,th{border-bottom:1px solid #ddd;padding:.3rem;text-align:left}.n{text-align:right}@media print{body{margin:0}}</style></head>
<body><h1>Receipt</h1>
<p>Invoice <strong>${e(invoice.id)}</strong> for project <strong>${e(project.name)}</strong> (${e(invoice.projectId)})</p>
<p>Period ${e(invoice.periodStart)} to ${e(invoice.periodEnd)} &middot; paid ${e(invoice.paidAt ?? '')} via ${e(invoice.paymentProvider ?? '')}</p>
<table><thead><tr><th>Resource</th><th>Kind</th><th>Plan</th><th>Metric</th><th class="n">Quantity</th><th class="n">Amount</th></tr></thead>
<tbody>
${lines}
</tbody></table>
<p class="n">Subtotal ${money(invoice.subtotal)}<br>Credit applied ${money(invoice.creditApplied)}<br><strong>Total paid ${money(invoice.total)}</strong></p>
</body></html>
`;
}
