import type { PlanName, PriceList } from '../plans';
import type { ServiceFile } from './schema';

// The monthly cost of what a service file describes, from the deployment's price list.
export interface CostLine {
    kind: 'app' | 'worker' | 'cron-job' | 'database' | 'custom-domain';
    name: string;
    plan: PlanName | null;
    quantity: number;
    unitMonthly: number;
    monthly: number;
}

export interface CostEstimate {
    currency: string;
    monthly: number;
    lines: CostLine[];
}

const cents = (value: number) => Math.round(value * 100) / 100;

export function estimateCosts(file: ServiceFile, prices: PriceList): CostEstimate {
    const line = (kind: CostLine['kind'], name: string, plan: PlanName | null, quantity: number, unitMonthly: number): CostLine =>
        ({ kind, name, plan, quantity, unitMonthly, monthly: cents(quantity * unitMonthly) });

    const lines: CostLine[] = [
        line('app', file.app.name, file.app.plan, file.app.instances, prices.instancePerMonth[file.app.plan]),
        ...(file.workers ?? []).map((worker) => line('worker', worker.name, worker.plan ?? file.app.plan, worker.instances, prices.instancePerMonth[worker.plan ?? file.app.plan])),
        ...(file.cronJobs ?? []).map((job) => line('cron-job', job.name, null, 1, prices.cronJobPerMonth)),
        ...(file.databases ?? []).map((database) => line('database', database.name, database.plan, 1, prices.databasePerMonth[database.plan])),
        ...(file.app.domains ?? []).map((domain) => line('custom-domain', domain, null, 1, prices.customDomainPerMonth))
    ];

    return { currency: prices.currency, monthly: cents(lines.reduce((sum, item) => sum + item.monthly, 0)), lines };
}
