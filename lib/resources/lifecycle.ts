import * as Boom from '@hapi/boom';
import type { Knex } from 'knex';

import { nowIso } from '../time';

// The state machine of a resource that is not deployed (a database, a virtual machine), as data: each action names
// the states it may start from and the state it leads to. A move is one conditional UPDATE (`WHERE status IN from`),
// so of two requests racing for the same move one wins and the other gets the 409 a late request would get. The 409
// names the current state and what the action needs (api-contract.md section 8).
export interface Transition<S extends string> {
    from: readonly S[];
    to?: S;                                                     // absent: the action changes settings, not the state
    verb?: string;                                              // how the 409 says the action (default: its name)
}

export type StateMachine<S extends string, A extends string> = Readonly<Record<A, Transition<S>>>;

export interface Stateful<S extends string> {
    id: string;
    status: S;
}

export class Lifecycle<S extends string, A extends string> {
    constructor(
        private readonly table: string,
        private readonly machine: StateMachine<S, A>,
        private readonly describe: (resource: Stateful<S>) => string           // `the database orders`
    ) { }

    /** The state an action leads to, or the 409 naming the state the resource is in. */
    next(resource: Stateful<S>, action: A): S {
        const transition = this.machine[action];
        if (!transition.from.includes(resource.status)) {
            throw this.refusal(resource, action, resource.status);
        }

        return transition.to ?? resource.status;
    }

    /** Whether the action may start from the resource's state. */
    allows(resource: Stateful<S>, action: A): boolean {
        return this.machine[action].from.includes(resource.status);
    }

    /**
     * Moves the resource by the action, with other columns, if it is still in a state the action starts from; a
     * resource another request moved first gets the 409 for the state it is in now (404 when it is gone).
     */
    async move(db: Knex | Knex.Transaction, resource: Stateful<S>, action: A, columns: Readonly<Record<string, unknown>> = {}): Promise<S> {
        const to = this.next(resource, action);
        const moved = await db(this.table).where({ id: resource.id }).whereIn('status', this.machine[action].from as S[])
            .update({ ...columns, ...(this.machine[action].to ? { status: to } : {}), updated_at: nowIso() });
        if (!moved) {
            const now: { status: S } | undefined = await db(this.table).where({ id: resource.id }).first('status');
            if (!now) {
                throw Boom.notFound(`${capitalize(this.describe(resource))} no longer exists`);
            }

            throw this.refusal(resource, action, now.status);
        }

        return to;
    }

    private refusal(resource: Stateful<S>, action: A, status: S): Boom.Boom {
        const transition = this.machine[action];
        const verb = transition.verb ?? action;
        const states = transition.from.length > 1 ? `${transition.from.slice(0, -1).join(', ')} or ${transition.from[transition.from.length - 1]}` : transition.from[0];
        return Boom.conflict(`Cannot ${verb} ${this.describe(resource)}: it is ${status} (it must be ${states})`);
    }
}

const capitalize = (text: string) => `${text.charAt(0).toUpperCase()}${text.slice(1)}`;
