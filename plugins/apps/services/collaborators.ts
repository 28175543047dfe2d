import * as Boom from '@hapi/boom';

import { newId } from '../../../lib/ids';
import { Collaborator } from '../../../lib/models/collaborator';
import { normalizeEmail, User } from '../../../lib/models/user';
import type { Permission } from '../../../lib/roles';
import { nowIso } from '../../../lib/time';
import type { App } from '../models/app';
import type { AppsContext } from './context';

// Users outside the project granted this one app. The access pipeline enforces their permissions on every route.
export interface CollaboratorView {
    userId: string;
    email: string;
    name: string;
    permissions: Permission[];
    createdAt: string;
    updatedAt: string;
}

export class CollaboratorsService {
    constructor(private readonly context: AppsContext) { }

    async list(app: App): Promise<CollaboratorView[]> {
        const rows = await this.context.knex({ c: 'collaborators' }).join({ u: 'users' }, 'u.id', 'c.user_id')
            .where({ 'c.resource_type': 'app', 'c.resource_id': app.id }).orderBy('u.email')
            .select({ userId: 'c.user_id', email: 'u.email', name: 'u.name', permissions: 'c.permissions', createdAt: 'c.created_at', updatedAt: 'c.updated_at' });
        return rows.map((row: CollaboratorView & { permissions: string }) => ({ ...row, permissions: JSON.parse(row.permissions) }));
    }

    /** Grants or changes one user's permissions on the app. Project members are governed by their role instead. */
    async upsert(app: App, email: string, permissions: Permission[]): Promise<CollaboratorView> {
        const user = await User.query(this.context.knex).findOne({ email: normalizeEmail(email) });
        if (!user) {
            throw Boom.notFound('No account with that email address');
        }

        const member = await this.context.knex('memberships').where({ project_id: app.projectId, user_id: user.id }).first();
        if (member) {
            throw Boom.conflict('That user is a member of the app\'s project: their project role applies');
        }

        const now = nowIso();
        await this.context.knex('collaborators')
            .insert({ id: newId('col'), resource_type: 'app', resource_id: app.id, project_id: app.projectId, user_id: user.id, permissions: JSON.stringify(permissions), created_at: now, updated_at: now })
            .onConflict(['resource_type', 'resource_id', 'user_id'])
            .merge({ permissions: JSON.stringify(permissions), updated_at: now });
        return (await this.list(app)).find((collaborator) => collaborator.userId === user.id)!;
    }

    async remove(app: App, email: string): Promise<void> {
        const user = await User.query(this.context.knex).findOne({ email: normalizeEmail(email) });
        const deleted = user ? await Collaborator.query(this.context.knex).delete().where({ resource_type: 'app', resource_id: app.id, user_id: user.id }) : 0;
        if (!deleted) {
            throw Boom.notFound(`${email} is not a collaborator on ${app.name}`);
        }
    }
}
