import * as Boom from '@hapi/boom';
import type { Knex } from 'knex';

import { Project } from '../../../lib/models/project';
import type { FastReader } from '../../../lib/db/fast-reader';
import type { Lists, PageRequest } from '../../../lib/lists';
import type { Page } from '../../../lib/pagination';
import type { ResourceKind } from '../../../lib/resources/kinds';
import type { Role } from '../../../lib/roles';
import { nowIso } from '../../../lib/time';

// A caller's projects with their role, in one indexed read (memberships by user, then each project by id).
const MEMBER_PROJECTS_SQL = 'SELECT p.*, m.role AS membership_role FROM memberships m JOIN projects p ON p.id = m.project_id WHERE m.user_id = ?';

export type ProjectWithRole = Project & { role: Role };

export class ProjectsService {
    constructor(private readonly knex: Knex, private readonly reader: FastReader, private readonly lists: Lists, private readonly kinds: () => readonly ResourceKind[]) { }

    /**
     * The caller's projects, newest first; `projectId` narrows to one (the pipeline already checked it is reachable),
     * and a pinned credential (an OAuth grant's choice) lists its projects only.
     */
    async list(userId: string, page: PageRequest & { projectId?: string | undefined; pinnedProjects: readonly string[] | null }): Promise<Page<ProjectWithRole>> {
        const rows = await this.reader.all<Record<string, unknown> & { id: string; membership_role: Role }>(MEMBER_PROJECTS_SQL, [userId]);
        const reached = rows.filter((row) => (!page.projectId || row.id === page.projectId) && (!page.pinnedProjects || page.pinnedProjects.includes(row.id)));
        return this.lists.pageOfAll(reached, page, ({ membership_role: role, ...row }): ProjectWithRole => Object.assign(Project.fromDatabaseJson(row), { role: role as Role }));
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
            for (const kind of this.kinds().filter((k) => k.kind !== 'project' && !k.parent)) {
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
