import * as Boom from '@hapi/boom';
import type { Knex } from 'knex';

import { Membership, Project } from '../../lib/models/project';
import { recordSecurityEvent } from '../../lib/security-events';

/**
 * A member leaves a project, whatever their role, in one transaction recorded in their trail. The last owner cannot
 * (a project always keeps one), nor the creator of a personal project, which stays theirs.
 */
export async function leaveProject(knex: Knex, projectId: string, userId: string): Promise<void> {
    await knex.transaction(async (trx) => {
        const project = (await Project.query(trx).findById(projectId))!;
        const membership = await Membership.query(trx).findById([projectId, userId]);
        if (!membership) {
            throw Boom.notFound('Project not found');
        }

        if (project.kind === 'personal' && project.createdBy === userId) {
            throw Boom.conflict('You cannot leave your personal project');
        }

        if (membership.role === 'owner' && await Membership.query(trx).where({ project_id: projectId, role: 'owner' }).resultSize() < 2) {
            throw Boom.conflict('You are the last owner of this project: give the owner role to another member first, or delete the project');
        }

        await Membership.query(trx).deleteById([projectId, userId]);
        await recordSecurityEvent(trx, { type: 'project.left', userId, actor: userId, data: { projectId, projectName: project.name, role: membership.role } });
    });
}
