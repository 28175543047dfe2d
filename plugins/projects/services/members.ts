import * as Boom from '@hapi/boom';
import type { Knex } from 'knex';

import { isUniqueViolation } from '../../../lib/db/errors';
import { Membership } from '../../../lib/models/project';
import { normalizeEmail, User } from '../../../lib/models/user';
import { pageQuery, toPage, type Page } from '../../../lib/pagination';
import type { Role } from '../../../lib/roles';
import { nowIso } from '../../../lib/time';
import type { MemberRow } from '../serializers';

// Members and roles. Admins manage developers and viewers; only owners grant, change or remove the owner role;
// a project always keeps one owner.
export class MembersService {
    constructor(private readonly knex: Knex) { }

    async list(projectId: string, page: { limit: number; cursor?: string }): Promise<Page<MemberRow>> {
        const rows = await pageQuery(this.members(this.knex).where('m.project_id', projectId), page, { createdAt: 'm.created_at', id: 'm.user_id' });
        return toPage(rows.map((row: MemberRow) => ({ ...row, id: row.userId })), page.limit);
    }

    async add(projectId: string, callerRole: Role, input: { email: string; role: Role }): Promise<MemberRow> {
        if (input.role === 'owner' && callerRole !== 'owner') {
            throw Boom.forbidden('Only owners can grant the owner role');
        }

        const user = await User.query(this.knex).findOne({ email: normalizeEmail(input.email) });
        if (!user) {
            throw Boom.notFound('No account with that email address');
        }

        const now = nowIso();
        try {
            await Membership.query(this.knex).insert({ projectId, userId: user.id, role: input.role, createdAt: now, updatedAt: now });
        }
        catch (err) {
            if (isUniqueViolation(err)) {
                throw Boom.conflict('That user is already a member of this project');
            }

            throw err;
        }

        return this.get(this.knex, projectId, user.id);
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
        const member = await this.members(knex).where('m.project_id', projectId).andWhere('m.user_id', userId).first();
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
