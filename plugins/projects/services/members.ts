import * as Boom from '@hapi/boom';
import type { Knex } from 'knex';

import { invitationSent, type Invitations } from '../../../lib/invitations';
import { Membership, Project } from '../../../lib/models/project';
import type { Lists, PageRequest } from '../../../lib/lists';
import type { Page } from '../../../lib/pagination';
import type { Role } from '../../../lib/roles';
import { nowIso } from '../../../lib/time';
import type { MemberRow } from '../serializers';

// Members and roles. Admins invite people (who become members by accepting) and manage developers and viewers;
// only owners grant, change or remove the owner role; a project always keeps one owner.
export class MembersService {
    constructor(private readonly knex: Knex, private readonly lists: Lists, private readonly invitations: Invitations) { }

    async list(projectId: string, page: PageRequest): Promise<Page<MemberRow>> {
        return this.lists.page({
            table: 'memberships m JOIN users u ON u.id = m.user_id',
            select: 'm.project_id, m.user_id, u.email, u.name, m.role, m.created_at, m.updated_at',
            scope: { 'm.project_id': projectId },
            key: { createdAt: 'm.created_at', id: 'm.user_id' },
            load: (row) => ({
                projectId: row.project_id as string, userId: row.user_id as string, email: row.email as string, name: row.name as string,
                role: row.role as Role, createdAt: row.created_at as string, updatedAt: row.updated_at as string
            })
        }, page);
    }

    /**
     * Invites an account to the project (lib/invitations.ts): it becomes a member when it accepts. The answer is the
     * same whether or not the address has an account; a member already is 409 (every member sees the member list).
     */
    async invite(projectId: string, caller: { id: string; role: Role; email: string }, input: { email: string; role: Role }) {
        if (input.role === 'owner' && caller.role !== 'owner') {
            throw Boom.forbidden('Only owners can grant the owner role');
        }

        const user = await this.invitations.account(input.email);
        if (user) {
            await this.knex.transaction(async (trx) => {
                if (await Membership.query(trx).findById([projectId, user.id])) {
                    throw Boom.conflict('That user is already a member of this project');
                }

                const project = (await Project.query(trx).findById(projectId))!;
                await this.invitations.send(trx, { type: 'project', id: projectId, projectId, name: project.name }, user.id, { role: input.role }, caller);
            });
        }

        return invitationSent(input.email, { role: input.role });
    }

    async changeRole(projectId: string, callerRole: Role, userId: string, role: Role): Promise<MemberRow> {
        return this.knex.transaction(async (trx) => {
            const member = await this.get(trx, projectId, userId);
            this.assertMayTouch(callerRole, member.role, role);
            if (member.role === 'owner' && role !== 'owner') {
                await this.assertAnotherOwner(trx, projectId);
            }

            await Membership.query(trx).patch({ role, updatedAt: nowIso() }).where({ project_id: projectId, user_id: userId });
            return this.get(trx, projectId, userId);
        });
    }

    async remove(projectId: string, callerRole: Role, userId: string): Promise<void> {
        await this.knex.transaction(async (trx) => {
            const member = await this.get(trx, projectId, userId);
            this.assertMayTouch(callerRole, member.role, null);
            if (member.role === 'owner') {
                await this.assertAnotherOwner(trx, projectId);
            }

            await Membership.query(trx).delete().where({ project_id: projectId, user_id: userId });
        });
    }

    private assertMayTouch(callerRole: Role, current: Role, next: Role | null): void {
        if ((current === 'owner' || next === 'owner') && callerRole !== 'owner') {
            throw Boom.forbidden('Only owners can grant, change or remove the owner role');
        }
    }

    private async assertAnotherOwner(trx: Knex.Transaction, projectId: string): Promise<void> {
        const owners = await Membership.query(trx).where({ project_id: projectId, role: 'owner' }).resultSize();
        if (owners < 2) {
            throw Boom.conflict('A project must keep at least one owner');
        }
    }

    private async get(knex: Knex | Knex.Transaction, projectId: string, userId: string): Promise<MemberRow> {
        const member = await this.members(knex).where('m.project_id', projectId).andWhere('m.user_id', userId).first() as MemberRow | undefined;
        if (!member) {
            throw Boom.notFound('Member not found');
        }

        return member;
    }

    private members(knex: Knex | Knex.Transaction) {
        return knex({ m: 'memberships' })
            .join({ u: 'users' }, 'u.id', 'm.user_id')
            .select({
                projectId: 'm.project_id', userId: 'm.user_id', email: 'u.email', name: 'u.name', role: 'm.role', createdAt: 'm.created_at', updatedAt: 'm.updated_at'
            });
    }
}
