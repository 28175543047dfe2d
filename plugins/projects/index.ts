import type { Knex } from 'knex';

import { bindRoutes, type FamilyPlugin } from '../../lib/route-table';
import { projectsTable } from '../../manifest/routes/projects';
import { memberRoutes } from './routes/members';
import { projectRoutes } from './routes/projects';
import { MembersService } from './services/members';
import { ProjectsService } from './services/projects';

// Projects, members and roles (api-contract.md section 4).
export interface ProjectsPluginOptions {
    knex: Knex;
}

export const projectsPlugin: FamilyPlugin<ProjectsPluginOptions> = {
    name: 'hostless-projects',
    table: projectsTable,
    dependencies: ['hostless-auth'],
    register(server, options) {
        const projects = new ProjectsService(options.knex, server.plugins['hostless-auth'].kinds);
        bindRoutes(server, projectsTable, { ...projectRoutes(projects), ...memberRoutes(new MembersService(options.knex)) });
    }
};
