import Hoek from '@hapi/hoek';
import type { Knex } from 'knex';

import { Project } from '../../lib/models/project';
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
    dependencies: ['hostless-auth', 'hostless-invitations'],
    register(server, options) {
        const auth = server.plugins['hostless-auth'];
        Hoek.assert(server.plugins['hostless-invitations'], 'Register the hostless-invitations plugin before the projects plugin: members join by accepting an invitation');
        const projects = new ProjectsService(options.knex, auth.reader, auth.lists, auth.kinds);
        const members = new MembersService(options.knex, auth.lists, server.plugins['hostless-invitations'].invitations);
        bindRoutes(server, projectsTable, { ...projectRoutes(projects), ...memberRoutes(members) }, { project: Project });
    }
};
