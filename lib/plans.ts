// Instance plans and regions, and the price list service files are costed with. Prices are the deployment's own:
// an operator replaces them with PRICE_LIST_FILE (a JSON file of the same shape).
export const PLAN_NAMES = ['starter', 'standard', 'pro'] as const;
export type PlanName = typeof PLAN_NAMES[number];

export interface Plan {
    cpu: number;
    memoryMiB: number;
    minInstances: number;
    maxInstances: number;
}

export const PLANS: Readonly<Record<PlanName, Plan>> = {
    starter: { cpu: 0.5, memoryMiB: 512, minInstances: 1, maxInstances: 2 },
    standard: { cpu: 1, memoryMiB: 2048, minInstances: 1, maxInstances: 5 },
    pro: { cpu: 2, memoryMiB: 4096, minInstances: 1, maxInstances: 20 }
};

export const REGIONS = ['eu-west', 'us-east', 'us-west', 'ap-south'] as const;
export type Region = typeof REGIONS[number];

export interface PriceList {
    currency: string;
    instancePerMonth: Readonly<Record<PlanName, number>>;      // one app or worker instance on the plan
    databasePerMonth: Readonly<Record<PlanName, number>>;
    cronJobPerMonth: number;                                   // a scheduled job, whatever its schedule
    customDomainPerMonth: number;
    databaseStoragePerGiBMonth?: number;                       // storage a database provisions (default 0: in the tier's price)
    bandwidthPerGiB?: number;                                  // bytes the edge served (default 0: included)
}

export const DEFAULT_PRICE_LIST: PriceList = {
    currency: 'USD',
    instancePerMonth: { starter: 7, standard: 25, pro: 85 },
    databasePerMonth: { starter: 9, standard: 35, pro: 120 },
    cronJobPerMonth: 1,
    customDomainPerMonth: 0
};
