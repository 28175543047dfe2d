import * as Boom from '@hapi/boom';
import type { Knex } from 'knex';

import { Project } from '../../../lib/models/project';
import { pageQuery, toPage, type Page } from '../../../lib/pagination';
import type { ResourceKind } from '../../../lib/resources';
import type { Role } from '../../../lib/roles';
import { nowIso } from '../../../lib/time';

export type ProjectWithRole = Project & { role: Role };

export class ProjectsService {
    constructor(private readonly knex: Knex, private readonly kinds: readonly ResourceKind[]) { }

    /** The caller's projects, newest first; `projectId` narrows to one (the pipeline already checked it is reachable). */
    async list(userId: string, page: { limit: number; cursor?: string; projectId?: string }): Promise<Page<ProjectWithRole>> {
        const query = Project.query(this.knex)
            .select('projects.*', 'memberships.role')
            .join('memberships', 'memberships.project_id', 'projects.id')
            .where('memberships.user_id', userId);
        if (page.projectId) {
            query.where('projects.id', page.projectId);
        }

        const rows = await pageQuery(query, page, { createdAt: 'projects.created_at', id: 'projects.id' }) as ProjectWithRole[];
        return toPage(rows, page.limit);
    }

    async get(id: string): Promise<Project> {
        const project = await Project.query(this.knex).findById(id);
        if (!project) {
            throw Boom.notFound('Project not found');
        }

        return project;
    }

    create(userId: string, name: string): Promise<Project> {
        return this.knex.transaction((trx) => Project.createWithOwner(trx, { name, kind: 'team', ownerId: userId }));
    }

    async rename(id: string, name: string): Promise<Project> {
        return Project.query(this.knex).patchAndFetchById(id, { name, updatedAt: nowIso() });
    }

    /** Only an empty team project can go: resources are deleted or transferred first, never swept away with it. */
    async remove(id: string): Promise<void> {
        await this.knex.transaction(async (trx) => {
            const project = await Project.query(trx).findById(id);
            if (!project) {
                throw Boom.notFound('Project not found');
            }

            if (project.kind === 'personal') {
                throw Boom.conflict('A personal project cannot be deleted');
            }

            const held: string[] = [];
            for (const kind of this.kinds.filter((k) => k.kind !== 'project' && !k.parent)) {
                const [row] = await trx(kind.table).where(kind.projectColumn, id).count({ count: '*' });
                const count = Number(row?.count ?? 0);
                if (count) {
                    held.push(`${count} ${kind.kind}${count > 1 ? 's' : ''}`);
                }
            }

            if (held.length) {
                throw Boom.conflict(`The project still holds resources (${held.join(', ')}); delete or transfer them first`);
            }

            await Project.query(trx).deleteById(id);
        });
    }
}
