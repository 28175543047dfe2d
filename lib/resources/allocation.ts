import type { Knex } from 'knex';

import { nowIso } from '../time';
import type { ResourceRef } from './model';

// The allocation history billing meters (api-contract.md section 8): every change of what a resource holds is
// recorded as it happens, in the transaction of the change, with the full allocation from that moment on. Usage
// over a period is the sum over its events' intervals, so history is never reconstructed after the fact.
export type AllocationReason = 'created' | 'started' | 'scaled' | 'plan' | 'storage' | 'stopped' | 'deleted' | 'transferred';

export interface AllocationState {
    running: boolean;
    instances: number;
    plan: string | null;
    storageGiB?: number;
}

export interface AllocationEvent extends Required<AllocationState> {
    resourceType: string;
    resourceId: string;
    projectId: string;
    reason: AllocationReason;
    at: string;
}

export class Allocation {
    constructor(private readonly clock: () => string = nowIso) { }

    /** Records the allocation a resource holds from now on; fields left out keep their last recorded value. */
    async record(trx: Knex | Knex.Transaction, resource: ResourceRef, reason: AllocationReason, change: Partial<AllocationState>): Promise<void> {
        const last = await trx<{ resource_id: string; seq: number; running: boolean | number; instances: number; plan: string | null; storage_gib: number }>('allocation_events')
            .where({ resource_id: resource.id }).orderBy('seq', 'desc').first();
        await trx('allocation_events').insert({
            resource_type: resource.type,
            resource_id: resource.id,
            project_id: resource.projectId,
            reason,
            running: change.running ?? (last ? !!last.running : false),
            instances: change.instances ?? last?.instances ?? 0,
            plan: change.plan ?? last?.plan ?? null,
            storage_gib: change.storageGiB ?? last?.storage_gib ?? 0,
            at: this.clock()
        });
    }

    /** A resource's events in order, for billing and for tests. */
    async history(db: Knex, resourceId: string): Promise<AllocationEvent[]> {
        const rows = await db('allocation_events').where({ resource_id: resourceId }).orderBy('seq');
        return rows.map((row: Record<string, unknown>) => ({
            resourceType: row.resource_type as string, resourceId: row.resource_id as string, projectId: row.project_id as string,
            reason: row.reason as AllocationReason, running: !!row.running, instances: Number(row.instances), plan: (row.plan as string | null) ?? null,
            storageGiB: Number(row.storage_gib), at: row.at as string
        }));
    }
}
