import { PLAN_NAMES, type PlanName } from '../plans';

// Database tiers are the platform's plans (the price list prices a database per plan). A tier bounds the connections
// the provisioner lets the database's role hold at once (PostgreSQL enforces it) and the storage that may be
// provisioned (recorded and billed; PostgreSQL has no per-database quota to enforce it with).
export interface DatabaseTier {
    connections: number;
    maxStorageGiB: number;
}

export const DATABASE_TIERS: Readonly<Record<PlanName, DatabaseTier>> = {
    starter: { connections: 20, maxStorageGiB: 10 },
    standard: { connections: 60, maxStorageGiB: 100 },
    pro: { connections: 200, maxStorageGiB: 1000 }
};

export const TIER_NAMES = PLAN_NAMES;
export const MAX_STORAGE_GIB = Math.max(...Object.values(DATABASE_TIERS).map((tier) => tier.maxStorageGiB));
export const DATABASE_ENGINES = ['postgres'] as const;
