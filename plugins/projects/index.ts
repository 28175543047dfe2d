import type { NamedPlugin } from '@hapi/hapi';
import type { Knex } from 'knex';

import { bindRoutes } from '../../lib/route-table';
import { projectsTable } from '../../manifest/routes/projects';
import { memberRoutes } from './routes/members';
import { projectRoutes } from './routes/projects';
import { MembersService } from './services/members';
import { ProjectsService } from './services/projects';

// Projects, members and roles (api-contract.md section 4).
export interface ProjectsPluginOptions {
    knex: Knex;
}

export const projectsPlugin: NamedPlugin<ProjectsPluginOptions> = {
    name: 'hostless-projects',
    dependencies: ['hostless-auth'],
    register(server, options) {
        const projects = new ProjectsService(options.knex, server.plugins['hostless-auth'].kinds);
        bindRoutes(server, projectsTable, { ...projectRoutes(projects), ...memberRoutes(new MembersService(options.knex)) });
    }
};
