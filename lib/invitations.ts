import * as Boom from '@hapi/boom';
import type { Knex } from 'knex';

import { isUniqueViolation } from './db/errors';
import { newId } from './ids';
import type { Lists, PageRequest } from './lists';
import { Membership } from './models/project';
import { normalizeEmail, User } from './models/user';
import type { Outbox } from './notifications/outbox';
import type { Page } from './pagination';
import type { ResourceKind } from './resources/kinds';
import type { ResourceRef } from './resources/model';
import type { Permission, Role } from './roles';
import { recordSecurityEvent } from './security-events';
import { nowIso } from './time';

// Invitations: nobody is made a member of a project, or a collaborator on a resource, without saying yes. Adding
// someone stores a pending invitation bound to an existing account's id; that account accepts it (the membership or
// grant is made then) or declines it, and it expires after INVITATION_DAYS. Sign-up verifies no email, so an
// invitation is never stored for an address without an account (whoever registered it first would take it), and
// the one who invites gets the same answer whether or not the account exists (`invitationSent`). Every step is in
// the invited account's security trail, and the invitation is announced through the notifications outbox.
export const INVITATION_DAYS = 7;
const DAY_MS = 86_400_000;

/** What the invitation grants: a role in a project, or permissions on one resource. */
export type Grant = { role: Role } | { permissions: Permission[] };

/** What an invitation is to: a project (`type` 'project', `id` and `projectId` its id) or one resource. */
export type Target = ResourceRef;

export type InvitationStatus = 'pending' | 'expired' | 'accepted';

export interface InvitationView {
    id: string;
    status: InvitationStatus;
    resourceType: string;                                       // 'project', or the kind of the resource: 'app', ...
    resourceName: string;                                       // the project's name, or the resource's
    projectId: string;
    role: Role | null;                                          // a project invitation's role
    permissions: Permission[] | null;                           // a collaborator invitation's permissions
    invitedBy: { userId: string; email: string; name: string } | null;
    userId: string;                                             // the invited account
    email: string;
    createdAt: string;
    expiresAt: string;
}

interface Row {
    id: string;
    resource_type: string;
    resource_id: string;
    project_id: string;
    user_id: string;
    role: Role | null;
    permissions: string | null;
    invited_by: string | null;
    created_at: string;
    updated_at: string;
    expires_at: string;
}

type Listed = Row & { email: string; inviter_email: string | null; inviter_name: string | null };

/** The answer to an invitation, the same whether or not an account has that address. */
export function invitationSent(email: string, grant: Grant) {
    return {
        email: normalizeEmail(email),
        ...grant,
        status: 'invited',
        message: 'Invitation sent if the account exists: it takes effect when they accept it'
    };
}

const LISTED = 'i.*, v.email AS email, b.email AS inviter_email, b.name AS inviter_name';
const LISTED_FROM = 'invitations i JOIN users v ON v.id = i.user_id LEFT JOIN users b ON b.id = i.invited_by';

export class Invitations {
    constructor(
        private readonly knex: Knex,
        private readonly lists: Lists,
        private readonly outbox: Outbox,
        private readonly kinds: () => readonly ResourceKind[],
        private readonly clock: () => number = Date.now
    ) { }

    /** The account an address belongs to, or undefined: then nothing is stored, and the caller answers as if it were. */
    async account(email: string): Promise<User | undefined> {
        return User.query(this.knex).findOne({ email: normalizeEmail(email) });
    }

    /**
     * Stores (or renews) the invitation of an account to a target, in the caller's transaction, records it in the
     * account's trail and tells them through the outbox (once: a renewed invitation that had not expired is not
     * announced again).
     */
    async send(trx: Knex.Transaction, target: Target, userId: string, grant: Grant, inviter: { id: string; email: string }): Promise<void> {
        const now = this.clock();
        const expiresAt = new Date(now + INVITATION_DAYS * DAY_MS).toISOString();
        const columns = {
            role: 'role' in grant ? grant.role : null,
            permissions: 'permissions' in grant ? JSON.stringify(grant.permissions) : null,
            invited_by: inviter.id,
            updated_at: new Date(now).toISOString(),
            expires_at: expiresAt
        };
        const key = { resource_type: target.type, resource_id: target.id, user_id: userId };
        const existing = await trx<Row>('invitations').where(key).first();
        await trx('invitations')
            .insert({ id: newId('inv'), ...key, project_id: target.projectId, ...columns, created_at: new Date(now).toISOString() })
            .onConflict(['resource_type', 'resource_id', 'user_id'])
            .merge(columns);
        await recordSecurityEvent(trx, {
            type: 'invitation.sent', userId, actor: inviter.id,
            data: { ...about(target), ...grantData(grant), invitedBy: inviter.email, expiresAt }
        });

        if (!existing || this.expired(existing)) {
            const data = { invitedBy: inviter.email, expiresAt: expiresAt.slice(0, 16).replace('T', ' ') + ' UTC' };
            await this.outbox.send(trx, 'role' in grant
                ? { type: 'projects.invited', userId, data: { ...data, project: target.name, role: grant.role } }
                : { type: 'projects.collaborator_invited', userId, data: { ...data, kind: target.type, resource: target.name, permissions: grant.permissions } });
        }
    }

    /** An account's invitations, newest first (expired ones until the daily prune removes them). */
    async listFor(userId: string, page: PageRequest): Promise<Page<InvitationView>> {
        return this.named(await this.lists.page({ table: LISTED_FROM, select: LISTED, scope: { 'i.user_id': userId }, key: { createdAt: 'i.created_at', id: 'i.id' }, load: (row) => row as unknown as Listed }, page));
    }

    /** The invitations to a target not yet answered, newest first. */
    async listTo(target: Target, page: PageRequest): Promise<Page<InvitationView>> {
        return this.named(await this.lists.page({
            table: LISTED_FROM, select: LISTED, scope: { 'i.resource_type': target.type, 'i.resource_id': target.id }, key: { createdAt: 'i.created_at', id: 'i.id' },
            load: (row) => row as unknown as Listed
        }, page));
    }

    /** The invitations to one resource with the invited accounts, for its collaborator list. */
    async pendingOn(resource: Target, db: Knex | Knex.Transaction = this.knex): Promise<Array<{ userId: string; email: string; name: string; permissions: Permission[]; status: InvitationStatus; createdAt: string; updatedAt: string; expiresAt: string }>> {
        const rows: Array<Row & { email: string; name: string }> = await db({ i: 'invitations' }).join({ u: 'users' }, 'u.id', 'i.user_id')
            .where({ 'i.resource_type': resource.type, 'i.resource_id': resource.id }).select('i.*', 'u.email', 'u.name');
        return rows.map((row) => ({
            userId: row.user_id, email: row.email, name: row.name, permissions: JSON.parse(row.permissions ?? '[]') as Permission[],
            status: this.status(row), createdAt: row.created_at, updatedAt: row.updated_at, expiresAt: row.expires_at
        }));
    }

    /**
     * Accepts an invitation of this account: the membership (whose collaborator grants in the project end, with any
     * other invitation to its resources) or the grant is made, and the invitation is gone.
     */
    async accept(id: string, userId: string): Promise<InvitationView> {
        return this.knex.transaction(async (trx) => {
            const row = await this.own(trx, id, userId);
            if (this.expired(row)) {
                throw Boom.conflict(`The invitation expired at ${row.expires_at}: ask for a new one`);
            }

            const now = nowIso();
            const target = await this.targetOf(trx, row);
            if (row.resource_type === 'project') {
                try {
                    await Membership.query(trx).insert({ projectId: row.project_id, userId, role: row.role!, createdAt: now, updatedAt: now });
                }
                catch (err) {
                    throw isUniqueViolation(err) ? Boom.conflict('You are already a member of this project') : err;
                }

                await endGrantsInProject(trx, row.project_id, userId, userId);
            }
            else {
                if (await trx('memberships').where({ project_id: row.project_id, user_id: userId }).first()) {
                    throw Boom.conflict(`You are a member of the ${row.resource_type}'s project: your role there applies, decline this invitation`);
                }

                await trx('collaborators')
                    .insert({
                        id: newId('col'), resource_type: row.resource_type, resource_id: row.resource_id, project_id: row.project_id, user_id: userId,
                        permissions: row.permissions, created_at: now, updated_at: now
                    })
                    .onConflict(['resource_type', 'resource_id', 'user_id'])
                    .merge({ permissions: row.permissions, updated_at: now });
            }

            const view = await this.view(trx, row, target.name);
            await trx('invitations').where({ id }).delete();
            await recordSecurityEvent(trx, { type: 'invitation.accepted', userId, actor: userId, data: { ...about(target), ...grantData(grantOf(row)), invitedBy: view.invitedBy?.email ?? null } });
            return { ...view, status: 'accepted' };
        });
    }

    /** Declines (or, once expired, dismisses) an invitation of this account. */
    async decline(id: string, userId: string): Promise<void> {
        await this.knex.transaction(async (trx) => {
            const row = await this.own(trx, id, userId);
            const target = await this.targetOf(trx, row);
            await trx('invitations').where({ id }).delete();
            await recordSecurityEvent(trx, { type: 'invitation.declined', userId, actor: userId, data: { ...about(target), ...grantData(grantOf(row)) } });
        });
    }

    /** Withdraws an invitation to a target; answers whether there was one. */
    async cancel(trx: Knex.Transaction, target: Target, where: { id: string } | { userId: string }, actor: string): Promise<boolean> {
        const query = trx<Row>('invitations').where({ resource_type: target.type, resource_id: target.id });
        const row: Row | undefined = await ('id' in where ? query.where({ id: where.id }) : query.where({ user_id: where.userId })).first();
        if (!row) {
            return false;
        }

        await trx('invitations').where({ id: row.id }).delete();
        await recordSecurityEvent(trx, { type: 'invitation.canceled', userId: row.user_id, actor, data: { ...about(target), ...grantData(grantOf(row)) } });
        return true;
    }

    /** Removes invitations that expired (the daily prune); answers how many. */
    async prune(): Promise<number> {
        return this.knex('invitations').where('expires_at', '<=', new Date(this.clock()).toISOString()).delete();
    }

    private async own(trx: Knex.Transaction, id: string, userId: string): Promise<Row> {
        const row = await trx<Row>('invitations').where({ id, user_id: userId }).first();
        if (!row) {
            throw Boom.notFound('Invitation not found');
        }

        return row;
    }

    private expired(row: Row): boolean {
        return Date.parse(row.expires_at) <= this.clock();
    }

    private status(row: Row): InvitationStatus {
        return this.expired(row) ? 'expired' : 'pending';
    }

    /** The table holding a target's kind; kinds with collaborators, like projects, have a `name` column. */
    private tableOf(type: string): string {
        const kind = this.kinds().find((candidate) => candidate.kind === type);
        if (!kind) {
            throw new Error(`Invitations to ${type} are not served here: no such resource kind`);
        }

        return kind.table;
    }

    private async targetOf(db: Knex | Knex.Transaction, row: Row): Promise<Target> {
        const found: { name: string } | undefined = await db(this.tableOf(row.resource_type)).where({ id: row.resource_id }).first('name');
        return { type: row.resource_type, id: row.resource_id, projectId: row.project_id, name: found?.name ?? row.resource_id };
    }

    /** The page's rows with the names of what they invite to: one read per kind on the page. */
    private async named(page: Page<Listed>): Promise<Page<InvitationView>> {
        const names = new Map<string, string>();
        for (const type of new Set(page.items.map((row) => row.resource_type))) {
            const ids = page.items.filter((row) => row.resource_type === type).map((row) => row.resource_id);
            const rows: Array<{ id: string; name: string }> = await this.knex(this.tableOf(type)).whereIn('id', ids).select('id', 'name');
            rows.forEach((found) => names.set(`${type}:${found.id}`, found.name));
        }

        return { next: page.next, items: page.items.map((row) => this.toView(row, names.get(`${row.resource_type}:${row.resource_id}`) ?? row.resource_id)) };
    }

    private async view(db: Knex | Knex.Transaction, row: Row, name: string): Promise<InvitationView> {
        const listed: Listed = await db({ i: 'invitations' }).join({ v: 'users' }, 'v.id', 'i.user_id').leftJoin({ b: 'users' }, 'b.id', 'i.invited_by')
            .where('i.id', row.id).first('i.*', 'v.email as email', 'b.email as inviter_email', 'b.name as inviter_name');
        return this.toView(listed, name);
    }

    private toView(row: Listed, name: string): InvitationView {
        return {
            id: row.id,
            status: this.status(row),
            resourceType: row.resource_type,
            resourceName: name,
            projectId: row.project_id,
            role: row.role,
            permissions: row.permissions === null ? null : JSON.parse(row.permissions) as Permission[],
            invitedBy: row.invited_by && row.inviter_email ? { userId: row.invited_by, email: row.inviter_email, name: row.inviter_name ?? '' } : null,
            userId: row.user_id,
            email: row.email,
            createdAt: row.created_at,
            expiresAt: row.expires_at
        };
    }
}

function grantOf(row: Row): Grant {
    return row.role ? { role: row.role } : { permissions: JSON.parse(row.permissions ?? '[]') as Permission[] };
}

function grantData(grant: Grant): Record<string, string | readonly string[]> {
    return 'role' in grant ? { role: grant.role } : { permissions: grant.permissions };
}

function about(target: Target): Record<string, string> {
    return { resourceType: target.type, resourceName: target.name, projectId: target.projectId };
}

/**
 * Ends every collaborator grant (and invitation to a resource) an account holds in a project, in the caller's
 * transaction: it is joining the project as a member, and its role governs it from now on. A grant never outlives
 * a membership, so leaving the project later brings none of them back.
 */
export async function endGrantsInProject(trx: Knex.Transaction, projectId: string, userId: string, actor: string): Promise<void> {
    await trx('invitations').where({ project_id: projectId, user_id: userId }).whereNot({ resource_type: 'project' }).delete();
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
