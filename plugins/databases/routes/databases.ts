import Joi from 'joi';

import { access, canSeeSecrets } from '../../../lib/access';
import { respondWithPage } from '../../../lib/list-response';
import { listQuery } from '../../../lib/pagination';
import { databaseCreate, databasePatch, importBody, tierBody } from '../../../lib/provisioner/fields';
import { kindRef } from '../../../lib/resources/kinds';
import { linkedResource } from '../../../lib/resources/links';
import { likePattern, logQuery } from '../../../lib/resources/logs';
import { route, type RouteHandlers } from '../../../lib/route-table';
import { fields } from '../../../lib/validation';
import { Database, DatabaseImport } from '../models/database';
import { details, serializeDatabase, serializeImport } from '../serializers';
import type { DatabasesService } from '../services/databases';
import type { ImportsService } from '../services/imports';

// Thin handlers over the databases and imports services; the pipeline resolved (and loaded) the database and the
// import each path names.
export const DATABASE = kindRef<Database>('database');
export const IMPORT = kindRef<DatabaseImport>('database-import');
export const LOADERS = { database: Database, 'database-import': DatabaseImport };

interface Named {
    databaseName: string;
}

const databaseName = fields.name().required();
const params = Joi.object<Named, true>({ databaseName });
const importParams = Joi.object<Named & { cloneId: string }, true>({ databaseName, cloneId: fields.id('cln').required() });
const page = Joi.object<{ limit: number; cursor?: string }, true>(listQuery);
const reachableList = Joi.object<{ limit: number; cursor?: string; projectId?: string }, true>({ ...listQuery, projectId: fields.projectId() });

export function databaseRoutes(databases: DatabasesService, imports: ImportsService): RouteHandlers {
    const { services } = databases.options;
    return {
        'databases.list': route({
            query: reachableList,
            handler: async (request, h) => {
                const { user, project, pinnedProjects } = access(request);
                const found = await services.lists.reachable({ kind: 'database', table: 'databases', projectColumn: 'project_id' },
                    { userId: user.id, projectId: project?.id ?? null, pinnedProjects }, request.query, (row) => Database.fromDatabaseJson(row));
                return respondWithPage(request, h, found, serializeDatabase);
            }
        }),
        'databases.create': route({
            payload: databaseCreate,
            handler: async (request, h) => h.response(serializeDatabase(await databases.create(access(request).project!.id, request.payload))).code(201)
        }),
        'databases.details': route({
            params,
            handler: async (request) => {
                const database = DATABASE.of(request);
                return details(database, databases.credentials(database), canSeeSecrets(access(request), 'databases:write'), await databases.size(database));
            }
        }),
        'databases.patch': route({
            params,
            payload: databasePatch,
            handler: async (request) => serializeDatabase(await databases.change(DATABASE.of(request), request.payload))
        }),
        'databases.tier': route({
            params,
            payload: tierBody,
            handler: async (request) => serializeDatabase(await databases.change(DATABASE.of(request), { tier: request.payload.tier }))
        }),
        'databases.pause': route({ params, handler: async (request) => serializeDatabase(await databases.pause(DATABASE.of(request))) }),
        'databases.unpause': route({ params, handler: async (request) => serializeDatabase(await databases.unpause(DATABASE.of(request))) }),
        'databases.delete': route({
            params,
            handler: async (request, h) => h.response(serializeDatabase(await databases.remove(DATABASE.of(request)))).code(202)
        }),
        'databases.linkedApps': route({
            params,
            query: page,
            handler: async (request, h) => {
                const links = await services.lists.page({
                    table: 'database_links', scope: { database_id: DATABASE.of(request).id }, key: { createdAt: 'created_at', id: 'resource_id' }, load: linkedResource
                }, request.query);
                return respondWithPage(request, h, links, (link) => link);
            }
        }),
        'databases.search': route({
            params,
            query: Joi.object<{ q: string; limit: number }, true>({ q: Joi.string().trim().min(1).max(200).required(), limit: Joi.number().integer().min(1).max(100).default(20) }),
            handler: async (request) => {
                const database = DATABASE.of(request);
                const { query, logs } = await services.search.within(databases.ref(database), request.query.q, request.query.limit, { deployments: false, environmentVariables: false });
                const pattern = likePattern(request.query.q);
                const found = await DatabaseImport.query(databases.knex).where('database_id', database.id)
                    .andWhere((w) => {
                        for (const column of ['id', 'status', 'source', 'error']) {
                            w.orWhereRaw(`lower(${column}) LIKE ? ESCAPE '\\'`, [pattern]);
                        }
                    })
                    .orderBy('created_at', 'desc').orderBy('id', 'desc').limit(request.query.limit);
                return { query, imports: found.map((row) => serializeImport(database, row)), logs };
            }
        }),
        'databases.imports.start': route({
            params,
            payload: importBody,
            handler: async (request, h) => {
                const database = DATABASE.of(request);
                return h.response(serializeImport(database, await imports.start(database, request.payload.sourceUrl))).code(202);
            }
        }),
        'databases.imports.status': route({ params: importParams, handler: (request) => serializeImport(DATABASE.of(request), IMPORT.of(request)) }),
        'databases.imports.logs': route({ params: importParams, query: logQuery, handler: (request) => imports.logs(IMPORT.of(request), request.query) })
    };
}
