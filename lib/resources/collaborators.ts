import * as Boom from '@hapi/boom';
import type { Knex } from 'knex';

import { newId } from '../ids';
import { normalizeEmail, User } from '../models/user';
import type { Permission } from '../roles';
import { recordSecurityEvent } from '../security-events';
import { nowIso } from '../time';
import type { ResourceRef } from './model';

// Users outside a project granted one resource (an app, a worker, any kind that allows it), keyed by
// (resource_type, resource_id). The access pipeline enforces their permissions on every route. A grant never
// outlives a membership: when its holder joins the project, their grants there end (project roles govern members).
export interface CollaboratorView {
    userId: string;
    email: string;
    name: string;
    permissions: Permission[];
    createdAt: string;
    updatedAt: string;
}

interface Row {
    userId: string;
    email: string;
    name: string;
    permissions: string;
    createdAt: string;
    updatedAt: string;
}

export class Collaborators {
    constructor(private readonly knex: Knex) { }

    async list(resource: ResourceRef, db: Knex | Knex.Transaction = this.knex): Promise<CollaboratorView[]> {
        const rows: Row[] = await db({ c: 'collaborators' }).join({ u: 'users' }, 'u.id', 'c.user_id')
            .where({ 'c.resource_type': resource.type, 'c.resource_id': resource.id }).orderBy('u.email')
            .select({ userId: 'c.user_id', email: 'u.email', name: 'u.name', permissions: 'c.permissions', createdAt: 'c.created_at', updatedAt: 'c.updated_at' });
        return rows.map((row) => ({ ...row, permissions: JSON.parse(row.permissions) as Permission[] }));
    }

    /** Grants or changes one user's permissions. Project members are governed by their role instead. */
    async upsert(resource: ResourceRef, email: string, permissions: Permission[], actor: string): Promise<CollaboratorView> {
        const user = await User.query(this.knex).findOne({ email: normalizeEmail(email) });
        if (!user) {
            throw Boom.notFound('No account with that email address');
        }

        return this.knex.transaction(async (trx) => {
            const member = await trx('memberships').where({ project_id: resource.projectId, user_id: user.id }).first();
            if (member) {
                throw Boom.conflict(`That user is a member of the ${resource.type}'s project: their project role applies`);
            }

            const now = nowIso();
            await trx('collaborators')
                .insert({
                    id: newId('col'), resource_type: resource.type, resource_id: resource.id, project_id: resource.projectId, user_id: user.id,
                    permissions: JSON.stringify(permissions), created_at: now, updated_at: now
                })
                .onConflict(['resource_type', 'resource_id', 'user_id'])
                .merge({ permissions: JSON.stringify(permissions), updated_at: now });
            await recordSecurityEvent(trx, {
                type: 'collaborator.granted', userId: user.id, actor, data: { resourceType: resource.type, resourceName: resource.name, permissions }
            });
            const [view] = (await this.list(resource, trx)).filter((collaborator) => collaborator.userId === user.id);
            return view!;
        });
    }

    async remove(resource: ResourceRef, email: string, actor: string): Promise<void> {
        const user = await User.query(this.knex).findOne({ email: normalizeEmail(email) });
        await this.knex.transaction(async (trx) => {
            const deleted = user ? await trx('collaborators').where({ resource_type: resource.type, resource_id: resource.id, user_id: user.id }).delete() : 0;
            if (!deleted) {
                throw Boom.notFound(`${email} is not a collaborator on ${resource.name}`);
            }

            await recordSecurityEvent(trx, { type: 'collaborator.removed', userId: user!.id, actor, data: { resourceType: resource.type, resourceName: resource.name } });
        });
    }

    /** Ends every grant a user holds in a project, in the caller's transaction (they are joining it as a member). */
    static async endInProject(trx: Knex.Transaction, projectId: string, userId: string, actor: string): Promise<void> {
        const grants: Array<{ resource_type: string; resource_id: string }> = await trx('collaborators').where({ project_id: projectId, user_id: userId }).select('resource_type', 'resource_id');
        if (!grants.length) {
            return;
        }

        await trx('collaborators').where({ project_id: projectId, user_id: userId }).delete();
        await recordSecurityEvent(trx, {
            type: 'collaborator.ended', userId, actor,
            data: { projectId, reason: 'joined the project as a member', resources: grants.map((grant) => `${grant.resource_type}:${grant.resource_id}`) }
        });
    }

    /** Ends every grant on a resource (it is deleted or moves to another project). */
    static async endOnResource(trx: Knex.Transaction, resource: { type: string; id: string }): Promise<void> {
        await trx('collaborators').where({ resource_type: resource.type, resource_id: resource.id }).delete();
    }
}
