import * as Crypto from 'node:crypto';
import * as Fs from 'node:fs';
import * as Os from 'node:os';
import * as Path from 'node:path';

import * as Boom from '@hapi/boom';
import * as Hapi from '@hapi/hapi';
import Joi from 'joi';
import type { Knex } from 'knex';

import { access } from '../../lib/access';
import { createKnex } from '../../lib/db/knex';
import { migrate } from '../../lib/db/migrate';
import { newId } from '../../lib/ids';
import type { ResourceKind } from '../../lib/resources/kinds';
import { bindRoutes, keyRoute, type RouteTable } from '../../lib/route-table';
import { fields } from '../../lib/validation';
import { accountsPlugin } from '../../plugins/accounts';
import { apiKeysPlugin } from '../../plugins/api-keys';
import { authPlugin } from '../../plugins/auth';
import { invitationsPlugin } from '../../plugins/invitations';
import { jobsPlugin } from '../../plugins/jobs';
import { notificationsPlugin } from '../../plugins/notifications';
import { projectsPlugin } from '../../plugins/projects';

// Someone else's hapi server embedding the platform's plugins with its own knex and options (no environment),
// plus a family of its own: "widgets" with collaborators and nested "gadgets", declared as data like ours.

export const WIDGET_KINDS: ResourceKind[] = [
    { kind: 'widget', param: 'widgetName', table: 'widgets', column: 'name', projectColumn: 'project_id', collaborators: true },
    { kind: 'gadget', param: 'gadgetId', table: 'gadgets', column: 'id', projectColumn: 'project_id', parent: { kind: 'widget', column: 'widget_id' } }
];

export const widgetsTable: RouteTable = {
    family: 'widgets',
    rows: [
        keyRoute('widgets.list', 'GET', '/widgets', 'apps:read', 'Widgets.', { policy: { project: 'query' }, example: {} }),
        keyRoute('widgets.create', 'POST', '/widgets', 'apps:write', 'Create a widget.', { policy: { project: 'body', create: true }, example: {} }),
        keyRoute('widgets.get', 'GET', '/widgets/{widgetName}', 'apps:read', 'One widget.', { policy: { project: 'query' }, example: {} }),
        keyRoute('widgets.restart', 'POST', '/widgets/{widgetName}/restart', 'apps:write', 'Restart.', { policy: { collaborator: 'operate' }, example: {} }),
        keyRoute('widgets.patch', 'PATCH', '/widgets/{widgetName}', 'apps:write', 'Change.', { example: {} }),
        keyRoute('widgets.upload', 'POST', '/widgets/{widgetName}/upload', 'apps:write', 'Upload a file.', { body: 'multipart', example: {} }),
        keyRoute('gadgets.get', 'GET', '/widgets/{widgetName}/gadgets/{gadgetId}', 'apps:read', 'One gadget.', { example: {} }),
        keyRoute('widgets.boom', 'GET', '/widgets-boom', 'apps:read', 'Fails.', { example: {} }),
        { id: 'widgets.admin', method: 'GET', path: '/v1/widgets-admin', auth: 'admin', description: 'Admins only.', example: {} },
        { id: 'widgets.hook', method: 'POST', path: '/v1/widgets-hook', auth: 'webhook', description: 'Signed by the sender.', example: {} }
    ]
};

const widgetsPlugin: Hapi.NamedPlugin<{ knex: Knex }> = {
    name: 'widgets',
    register(server, { knex }) {
        const name = Joi.string().pattern(/^[a-z][a-z0-9-]*$/);
        bindRoutes(server, widgetsTable, {
            'widgets.list': {
                validate: { query: Joi.object({ projectId: fields.projectId() }) },
                handler: async (request) => {
                    const { user, project } = access(request);
                    const query = knex('widgets').select('name', 'project_id as projectId').orderBy('name');
                    return project
                        ? query.where('project_id', project.id)
                        : query.whereIn('project_id', knex('memberships').select('project_id').where('user_id', user.id))
                            .orWhereIn('id', knex('collaborators').select('resource_id').where({ user_id: user.id, resource_type: 'widget' }));
                }
            },
            'widgets.create': {
                validate: { payload: Joi.object({ name: name.required(), projectId: fields.projectId() }) },
                handler: async (request, h) => {
                    const { project } = access(request);
                    const widget = { id: newId('app'), name: (request.payload as { name: string }).name, project_id: project!.id };
                    await knex('widgets').insert(widget);
                    return h.response({ name: widget.name, projectId: widget.project_id }).code(201);
                }
            },
            'widgets.get': {
                validate: { params: Joi.object({ widgetName: name }), query: Joi.object({ projectId: fields.projectId() }) },
                handler: (request) => {
                    const { resource } = access(request);
                    return { name: request.params.widgetName, projectId: resource!.projectId, role: resource!.role, permissions: resource!.permissions };
                }
            },
            'widgets.restart': { validate: { params: Joi.object({ widgetName: name }) }, handler: () => ({ restarted: true }) },
            'widgets.patch': { validate: { params: Joi.object({ widgetName: name }), payload: Joi.object({ label: Joi.string().max(20) }).min(1) }, handler: () => ({ patched: true }) },
            'widgets.upload': {
                validate: { params: Joi.object({ widgetName: name }), payload: Joi.object({ file: Joi.binary().required() }) },
                payload: { multipart: true, output: 'data', parse: true },
                handler: (request) => ({ bytes: (request.payload as { file: Buffer }).file.length })
            },
            'gadgets.get': { validate: { params: Joi.object({ widgetName: name, gadgetId: Joi.string() }) }, handler: (request) => ({ id: access(request).resource!.id }) },
            'widgets.boom': {
                handler: () => {
                    throw new Error('database exploded while holding svk_AbCdEfGhIj_0123456789012345678901234567890123456789abc');
                }
            },
            'widgets.admin': { handler: () => ({ admin: true }) },
            'widgets.hook': {
                verify: (request, h) => {
                    if (request.headers['x-signature'] !== 'valid') {
                        throw Boom.unauthorized('Invalid signature');
                    }

                    return h.continue;
                },
                handler: () => ({ received: true })
            }
        });
    }
};

export interface ForeignServer {
    server: Hapi.Server;
    knex: Knex;
    stop(): Promise<void>;
}

export async function foreignServer(options: { start?: boolean } = {}): Promise<ForeignServer> {
    const dir = Fs.mkdtempSync(Path.join(Os.tmpdir(), 'hostless-foreign-'));
    const knex = createKnex({ client: 'sqlite', filename: Path.join(dir, 'host.sqlite') });
    await migrate(knex);
    await knex.schema.createTable('widgets', (t) => {
        t.string('id').primary();
        t.string('name').notNullable().unique();
        t.string('project_id').notNullable().references('projects.id').onDelete('CASCADE');
    });
    await knex.schema.createTable('gadgets', (t) => {
        t.string('id').primary();
        t.string('widget_id').notNullable().references('widgets.id').onDelete('CASCADE');
        t.string('project_id').notNullable();
    });

    const server = Hapi.server({ host: '127.0.0.1', port: 0 });
    server.route({ method: 'GET', path: '/host/own', handler: () => ({ host: true }) });
    const sessionSecret = Crypto.randomBytes(32).toString('hex');
    await server.register([
        { plugin: jobsPlugin, options: { knex, mode: 'api', concurrency: 1 } },
        { plugin: authPlugin, options: { knex, sessionSecret, issuer: 'https://host.example', resources: WIDGET_KINDS } },
        { plugin: notificationsPlugin, options: { knex, publicUrl: 'https://host.example', smtp: null, retentionDays: 90 } },
        { plugin: accountsPlugin, options: { knex, passwordCost: 1024 } },
        { plugin: apiKeysPlugin, options: { knex } },
        { plugin: invitationsPlugin, options: { knex } },
        { plugin: projectsPlugin, options: { knex } },
        { plugin: widgetsPlugin, options: { knex } }
    ]);
    await (options.start ? server.start() : server.initialize());

    return {
        server,
        knex,
        stop: async () => {
            await server.stop();
            await knex.destroy();
            Fs.rmSync(dir, { recursive: true, force: true });
        }
    };
}
