import * as Boom from '@hapi/boom';
import type { Knex } from 'knex';

import { Allocation } from '../resources/allocation';
import { recordSecurityEvent } from '../security-events';

// Moving a resource to another project (POST /v1/transfers): the caller must be owner or admin of both projects.
// Usage before the transfer stays with the old project: the move is an allocation event carrying the new project,
// so every interval before it is metered to the old one. What ties the resource to the old project refuses the
// move with 409 naming it (linked databases, live review apps, a repository reached through the old project's Git
// connection); the collaborator grants on it end, each recorded in the grantee's security trail.
export const TRANSFER_KINDS = {
    app: { table: 'apps', by: 'name', label: 'App' },
    site: { table: 'sites', by: 'name', label: 'Site' },
    worker: { table: 'workers', by: 'name', label: 'Worker' },
    'cron-job': { table: 'cron_jobs', by: 'name', label: 'Cron job' },
    database: { table: 'databases', by: 'name', label: 'Database' },
    vm: { table: 'virtual_machines', by: 'id', label: 'Virtual machine' }
} as const;

export type TransferKind = keyof typeof TRANSFER_KINDS;

// Shared tables that carry a resource's project beside its (resource_type, resource_id): moved with it. Allocation
// events, usage rows and invoices are history and stay where they were.
const SHARED = ['env_vars', 'domains', 'deployments', 'log_lines', 'metric_points', 'spans', 'cron_runs', 'database_links', 'reviews'] as const;

export interface TransferInput {
    resourceType: TransferKind;
    resourceName: string;
    toProjectId: string;
}

type Row = Record<string, unknown>;

export class Transfers {
    private columns = new Map<string, boolean>();

    constructor(private readonly knex: Knex, private readonly clock: () => Date) { }

    private async hasProject(table: string): Promise<boolean> {
        if (!this.columns.has(table)) {
            this.columns.set(table, await this.knex.schema.hasTable(table) && await this.knex.schema.hasColumn(table, 'project_id'));
        }

        return this.columns.get(table)!;
    }

    private async role(trx: Knex.Transaction, userId: string, projectId: string): Promise<string | null> {
        const membership = await trx<{ role: string; user_id: string; project_id: string }>('memberships').where({ user_id: userId, project_id: projectId }).first('role');
        return membership?.role ?? null;
    }

    async transfer(userId: string, input: TransferInput): Promise<Row> {
        const kind = TRANSFER_KINDS[input.resourceType];
        const now = this.clock().toISOString();
        const shared: string[] = [];
        for (const table of SHARED) {
            if (await this.hasProject(table)) {
                shared.push(table);
            }
        }

        return this.knex.transaction(async (trx) => {
            const resource = await trx<Row>(kind.table).where({ [kind.by]: input.resourceName }).first();
            const fromRole = resource ? await this.role(trx, userId, resource.project_id as string) : null;
            if (!resource || !fromRole) {
                throw Boom.notFound(`${kind.label} not found`);
            }

            const toRole = await this.role(trx, userId, input.toProjectId);
            if (!toRole) {
                throw Boom.notFound('Project not found');
            }

            if (!['owner', 'admin'].includes(fromRole) || !['owner', 'admin'].includes(toRole)) {
                throw Boom.forbidden('Moving a resource takes the owner or admin role in both projects');
            }

            const from = resource.project_id as string;
            const id = resource.id as string;
            if (from === input.toProjectId) {
                throw Boom.conflict(`The ${kind.label.toLowerCase()} is already in that project`);
            }

            await this.conflicts(trx, input.resourceType, resource);

            await trx(kind.table).where({ id }).update({ project_id: input.toProjectId, updated_at: now });
            for (const table of shared) {
                await trx(table).where({ resource_type: input.resourceType, resource_id: id }).update({ project_id: input.toProjectId });
            }

            const grants = await trx<{ user_id: string; resource_type: string; resource_id: string }>('collaborators')
                .where({ resource_type: input.resourceType, resource_id: id }).select('user_id');
            await trx('collaborators').where({ resource_type: input.resourceType, resource_id: id }).delete();
            await trx('invitations').where({ resource_type: input.resourceType, resource_id: id }).delete();
            for (const grant of grants) {
                await recordSecurityEvent(trx, {
                    type: 'collaborator.ended', userId: grant.user_id, actor: userId,
                    data: { projectId: from, reason: 'the resource moved to another project', resources: [`${input.resourceType}:${id}`] }
                });
            }

            await new Allocation(() => now).record(trx, { type: input.resourceType, id, projectId: input.toProjectId, name: input.resourceName }, 'transferred', {});
            return {
                resourceType: input.resourceType, resourceId: id, resourceName: (resource.name as string | undefined) ?? id,
                fromProjectId: from, toProjectId: input.toProjectId, collaboratorsRemoved: grants.length, transferredAt: now
            };
        });
    }

    private async conflicts(trx: Knex.Transaction, type: TransferKind, resource: Row): Promise<void> {
        const id = resource.id as string;
        const links = type === 'database'
            ? (await trx<{ resource_name: string; database_id: string }>('database_links').where({ database_id: id }).select('resource_name')).map((row) => row.resource_name)
            : (await trx<{ name: string }>('databases').join('database_links', 'databases.id', 'database_links.database_id')
                .where({ 'database_links.resource_type': type, 'database_links.resource_id': id }).select<Array<{ name: string }>>('databases.name')).map((row) => row.name);
        if (links.length) {
            throw Boom.conflict(type === 'database'
                ? `The database is linked to ${links.join(', ')} in its project: unlink it first`
                : `The ${type} is linked to the database(s) ${links.join(', ')} of its project: unlink them first`);
        }

        const reviews = await trx<{ pull_request: number; resource_id: string; status: string }>('reviews').where({ resource_id: id }).whereIn('status', ['live', 'deploying']).select('pull_request');
        if (reviews.length) {
            throw Boom.conflict(`The ${type} has live review deployments (pull requests ${reviews.map((row) => `#${row.pull_request}`).join(', ')}): close them first`);
        }

        const provider = resource.repo_provider as string | null | undefined;
        if (provider) {
            const connection = await trx<{ project_id: string; provider: string }>('git_connections').where({ project_id: resource.project_id as string, provider }).first('provider');
            if (connection) {
                throw Boom.conflict(`The ${type}'s repository ${String(resource.repo_name)} is reached through its project's ${provider} connection: remove the repository first`);
            }
        }
    }
}
