import * as Boom from '@hapi/boom';
import type { Knex } from 'knex';

import { invitationSent, type InvitationStatus, type Invitations } from '../invitations';
import { normalizeEmail, User } from '../models/user';
import type { Permission } from '../roles';
import { recordSecurityEvent } from '../security-events';
import { nowIso } from '../time';
import type { ResourceRef } from './model';

// Users outside a project given one resource (an app, a worker, any kind that allows it), keyed by
// (resource_type, resource_id). Nobody becomes a collaborator without saying yes: adding someone sends them an
// invitation (lib/invitations.ts), and the grant exists once they accept it; a collaborator's permissions change at
// once. The access pipeline enforces the permissions on every route. A grant never outlives a membership: when its
// holder joins the project, their grants there end (project roles govern members), and leaving brings none back.
export interface CollaboratorView {
    userId: string;
    email: string;
    name: string;
    permissions: Permission[];
    status: 'active' | InvitationStatus;                        // active: a grant in force; pending or expired: invited
    createdAt: string;
    updatedAt: string;
    expiresAt: string | null;                                   // when an invitation ends
}

interface Row {
    userId: string;
    email: string;
    name: string;
    permissions: string;
    createdAt: string;
    updatedAt: string;
}

/** Who adds a collaborator: whether they are a member of the resource's project (and so may see who else is). */
export interface Inviter {
    id: string;
    email: string;
    member: boolean;
}

export class Collaborators {
    constructor(private readonly knex: Knex, private readonly invitations: Invitations) { }

    /** The collaborators of a resource and the people invited to be, by email. */
    async list(resource: ResourceRef, db: Knex | Knex.Transaction = this.knex): Promise<CollaboratorView[]> {
        const rows: Row[] = await db({ c: 'collaborators' }).join({ u: 'users' }, 'u.id', 'c.user_id')
            .where({ 'c.resource_type': resource.type, 'c.resource_id': resource.id })
            .select({ userId: 'c.user_id', email: 'u.email', name: 'u.name', permissions: 'c.permissions', createdAt: 'c.created_at', updatedAt: 'c.updated_at' });
        const granted: CollaboratorView[] = rows.map((row) => ({ ...row, permissions: JSON.parse(row.permissions) as Permission[], status: 'active', expiresAt: null }));
        const invited: CollaboratorView[] = await this.invitations.pendingOn(resource, db);
        return [...granted, ...invited].sort((a, b) => a.email < b.email ? -1 : a.email > b.email ? 1 : 0);
    }

    /**
     * Changes a collaborator's permissions (200 with the collaborator), or invites the account with this email
     * (202, the same answer whether or not there is one). A member of the project is governed by their role: 409 to a
     * caller who is a member too (they see the member list), the invitation answer to a collaborator (who does not).
     */
    async upsert(resource: ResourceRef, email: string, permissions: Permission[], inviter: Inviter): Promise<{ status: 200 | 202; body: object }> {
        const user = await this.invitations.account(email);
        const sent = { status: 202 as const, body: invitationSent(email, { permissions }) };
        if (!user) {
            return sent;
        }

        return this.knex.transaction(async (trx) => {
            if (await trx('memberships').where({ project_id: resource.projectId, user_id: user.id }).first()) {
                if (inviter.member) {
                    throw Boom.conflict(`That user is a member of the ${resource.type}'s project: their project role applies`);
                }

                return sent;
            }

            const key = { resource_type: resource.type, resource_id: resource.id, user_id: user.id };
            const changed = await trx('collaborators').where(key).update({ permissions: JSON.stringify(permissions), updated_at: nowIso() });
            if (!changed) {
                await this.invitations.send(trx, resource, user.id, { permissions }, inviter);
                return sent;
            }

            await recordSecurityEvent(trx, {
                type: 'collaborator.granted', userId: user.id, actor: inviter.id, data: { resourceType: resource.type, resourceName: resource.name, permissions }
            });
            const [view] = (await this.list(resource, trx)).filter((collaborator) => collaborator.userId === user.id && collaborator.status === 'active');
            return { status: 200 as const, body: view };
        });
    }

    /** Removes a collaborator, or withdraws the invitation of one. */
    async remove(resource: ResourceRef, email: string, actor: string): Promise<void> {
        const user = await User.query(this.knex).findOne({ email: normalizeEmail(email) });
        await this.knex.transaction(async (trx) => {
            const deleted = user ? await trx('collaborators').where({ resource_type: resource.type, resource_id: resource.id, user_id: user.id }).delete() : 0;
            if (deleted) {
                await recordSecurityEvent(trx, { type: 'collaborator.removed', userId: user!.id, actor, data: { resourceType: resource.type, resourceName: resource.name } });
                return;
            }

            if (!user || !await this.invitations.cancel(trx, resource, { userId: user.id }, actor)) {
                throw Boom.notFound(`${email} is not a collaborator on ${resource.name}`);
            }
        });
    }

    /** Ends every grant on a resource (it is deleted or moves to another project); its invitations go with it. */
    static async endOnResource(trx: Knex.Transaction, resource: { type: string; id: string }): Promise<void> {
        await trx('collaborators').where({ resource_type: resource.type, resource_id: resource.id }).delete();
        await trx('invitations').where({ resource_type: resource.type, resource_id: resource.id }).delete();
    }
}
