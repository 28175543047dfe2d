import type { Knex } from 'knex';

import { newId } from '../ids';
import type { Role } from '../roles';
import { nowIso } from '../time';
import { BaseModel } from '../db/model';

export class Project extends BaseModel {
    static override tableName = 'projects';

    id!: string;
    name!: string;
    kind!: 'personal' | 'team';
    status!: 'active';
    createdBy!: string | null;
    createdAt!: string;
    updatedAt!: string;

    /** A project and its owner's membership, in the caller's transaction: a project always keeps one owner. */
    static async createWithOwner(trx: Knex.Transaction, fields: { name: string; kind: 'personal' | 'team'; ownerId: string }): Promise<Project> {
        const now = nowIso();
        const project = await Project.query(trx).insertAndFetch({
            id: newId('prj'), name: fields.name, kind: fields.kind, status: 'active', createdBy: fields.ownerId, createdAt: now, updatedAt: now
        });
        await Membership.query(trx).insert({ projectId: project.id, userId: fields.ownerId, role: 'owner', createdAt: now, updatedAt: now });
        return project;
    }
}

export class Membership extends BaseModel {
    static override tableName = 'memberships';
    static override get idColumn() {
        return ['project_id', 'user_id'];
    }

    projectId!: string;
    userId!: string;
    role!: Role;
    createdAt!: string;
    updatedAt!: string;
}
