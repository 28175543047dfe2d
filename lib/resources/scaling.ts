import * as Boom from '@hapi/boom';
import type { Knex } from 'knex';
import type { ModelClass } from 'objection';

import { PLANS, type PlanName } from '../plans';
import type { DriverContext, RuntimeDriver } from '../runtime/driver';
import { nowIso } from '../time';
import type { Allocation } from './allocation';
import { targetOf } from './deployments';
import { refOf, type RuntimeResource } from './model';

// Restart, scale and plan changes of any runtime kind, within its plan's bounds. The count is changed only if it is
// still the one read, so two concurrent scalings cannot both pass the bound check; each change is an allocation event.
export class Scaling {
    constructor(private readonly knex: Knex, private readonly driverOf: (kind: string) => RuntimeDriver, private readonly allocation: Allocation) { }

    async restart<R extends RuntimeResource>(model: ModelClass<R>, kind: string, resource: R, context: DriverContext): Promise<R> {
        assertLive(resource, 'restart');
        await this.driverOf(kind).restart(targetOf(kind, resource), context);
        return await model.query(this.knex).patchAndFetchById(resource.id, { updatedAt: nowIso() }) as unknown as R;
    }

    async scale<R extends RuntimeResource>(model: ModelClass<R>, kind: string, resource: R, by: number, context: DriverContext): Promise<R> {
        const instances = resource.instances + by;
        assertInstances(resource.plan, instances, 'Scaling to');
        if (resource.liveDeploymentId) {
            await this.driverOf(kind).scale(targetOf(kind, resource), instances, context);
        }

        return this.knex.transaction(async (trx) => {
            const moved = await model.query(trx).patch({ instances, updatedAt: nowIso() } as never).where({ id: resource.id, instances: resource.instances });
            if (!moved) {
                throw Boom.conflict(`The ${kind} was scaled by another request at the same time; read it again and retry`);
            }

            await this.allocation.record(trx, refOf(kind, resource), 'scaled', { instances });
            return await model.query(trx).findById(resource.id) as unknown as R;
        });
    }

    async changePlan<R extends RuntimeResource>(model: ModelClass<R>, kind: string, resource: R, plan: PlanName): Promise<R> {
        assertInstances(plan, resource.instances, `The ${kind} runs`);
        return this.knex.transaction(async (trx) => {
            await this.allocation.record(trx, refOf(kind, resource), 'plan', { plan });
            return await model.query(trx).patchAndFetchById(resource.id, { plan, updatedAt: nowIso() }) as unknown as R;
        });
    }
}

export function assertInstances(plan: PlanName, instances: number, what = 'Running'): void {
    const bounds = PLANS[plan];
    if (instances < bounds.minInstances || instances > bounds.maxInstances) {
        throw Boom.conflict(`${what} ${instances} instance(s) is outside the ${plan} plan's bounds (${bounds.minInstances}-${bounds.maxInstances})`);
    }
}

function assertLive(resource: RuntimeResource, action: string): void {
    if (!resource.liveDeploymentId) {
        throw Boom.conflict(`Cannot ${action} ${resource.name}: it has no live deployment (status: ${resource.status})`);
    }
}
