import * as Boom from '@hapi/boom';
import type { Knex } from 'knex';

import { isUniqueViolation } from '../db/errors';
import { nowIso } from '../time';

// One name space for every kind the edge serves (apps and sites): `<name>.<SITES_DOMAIN>` names one resource. A
// kind whose spec says `edge: true` claims its name here in its create's transaction and frees it in its delete's;
// the primary key makes a second claim fail on every database and every process, whichever kind makes it. Names
// whose tenant host would be one of the platform's hosts are reserved.
export interface EdgeNameRef {
    type: string;
    id: string;
    name: string;
}

export class EdgeNames {
    private readonly reserved: ReadonlySet<string>;

    constructor(reserved: readonly string[] = []) {
        this.reserved = new Set(reserved);
    }

    async claim(trx: Knex.Transaction, resource: EdgeNameRef): Promise<void> {
        if (this.reserved.has(resource.name)) {
            throw Boom.conflict(`The name ${resource.name} is reserved: its address is one of the platform's`);
        }

        try {
            await trx('edge_names').insert({ name: resource.name, resource_type: resource.type, resource_id: resource.id, created_at: nowIso() });
        }
        catch (err) {
            throw isUniqueViolation(err) ? Boom.conflict(`The name ${resource.name} is taken`) : err;
        }
    }

    async release(trx: Knex.Transaction, resource: EdgeNameRef): Promise<void> {
        await trx('edge_names').where({ name: resource.name, resource_id: resource.id }).delete();
    }
}
