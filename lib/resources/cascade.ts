import type { Knex } from 'knex';

import { Collaborators } from './collaborators';
import type { ResourceRef } from './model';

// What a resource owns in the shared tables, its collaborators and their invitations included, removed with it in one
// transaction. Its allocation events stay: billing meters what ran, whether or not it still exists. A family's own
// child tables follow by foreign key.
const OWNED = ['env_vars', 'domains', 'deployments', 'log_lines', 'metric_points', 'spans', 'cron_runs', 'edge_visitors', 'edge_paths', 'database_links'] as const;

export async function removeOwned(trx: Knex.Transaction, resource: ResourceRef): Promise<void> {
    await Collaborators.endOnResource(trx, resource);
    for (const table of OWNED) {
        await trx(table).where({ resource_type: resource.type, resource_id: resource.id }).delete();
    }
}
