import * as Boom from '@hapi/boom';
import type { Knex } from 'knex';
import Joi from 'joi';

import { access } from '../../lib/access';
import { throughProvider } from '../../lib/git/access';
import { ConnectFlow } from '../../lib/git/connect';
import { publicConnection } from '../../lib/git/connection';
import { GIT_PROVIDERS, PROVIDER_LABELS, type GitProvider, type GitProviderName, type ProviderPage } from '../../lib/git/provider';
import { respondWithPage } from '../../lib/list-response';
import { bindRoutes, route, type FamilyPlugin, type RouteHandlers } from '../../lib/route-table';
import { fields } from '../../lib/validation';
import { gitTable } from '../../manifest/routes/git';

// The Git family: a project's connections to GitHub, GitLab and Bitbucket (the connect flow, the connected accounts,
// the disconnects) and what the hosts list through them, page by page as each host pages. The connections and the
// adapters are lib/git's GitAccess, shared with every runtime kind through the resources plugin.
export interface GitPluginOptions {
    knex: Knex;
    publicUrl: string;
}

interface PageQuery {
    limit: number;
    cursor?: string;
}

const projectParams = Joi.object<{ projectId: string }, true>({ projectId: fields.projectId().required() });
const pageQuery = Joi.object<PageQuery, true>({
    limit: Joi.number().integer().min(1).max(100).default(30).description('Items per page, as the host pages (1 to 100).'),
    cursor: Joi.string().pattern(/^\d{1,7}$/, 'page cursor').description('The `cursor` of the `Link: rel="next"` header of the previous page.')
});
const name = (pattern: RegExp, what: string) => Joi.string().max(255).pattern(pattern, what).required();
const accountParams = Joi.object<{ projectId: string; accountLogin: string }, true>({ projectId: fields.projectId().required(), accountLogin: name(/^[A-Za-z0-9][A-Za-z0-9_.-]*$/, 'GitHub account name') });
const workspaceParams = Joi.object<{ projectId: string; workspace: string }, true>({ projectId: fields.projectId().required(), workspace: name(/^[~A-Za-z0-9][A-Za-z0-9_.{}-]*$/, 'workspace') });
const callbackPayload = Joi.object<{ code: string; state: string }, true>({
    code: Joi.string().max(2000).pattern(/^[\x21-\x7e]+$/, 'authorization code').required().description('The `code` the host sent back.'),
    state: Joi.string().max(100).required().description('The `state` the host sent back, as GET /connect issued it.')
});

export const gitPlugin: FamilyPlugin<GitPluginOptions> = {
    name: 'hostless-git',
    table: gitTable,
    dependencies: ['hostless-auth', 'hostless-resources'],
    register(server, options) {
        const git = server.plugins['hostless-resources'].services.git;
        const flow = new ConnectFlow({ knex: options.knex, access: git, publicUrl: options.publicUrl });

        /** A page of what a host lists through the project's connection. */
        const listing = <T>(provider: GitProviderName, read: (adapter: GitProvider, page: PageQuery) => Promise<ProviderPage<T>>) =>
            async (projectId: string, page: PageQuery) => {
                const connection = await git.required(projectId, provider);
                return throughProvider(async () => read(await git.providerFor(connection), page));
            };

        const handlers: RouteHandlers = {
            'git.connectedAccounts': route({ params: projectParams, handler: async (request) => (await git.connections(access(request).project!.id)).map(publicConnection) }),
            'git.github.accounts': route({
                params: projectParams, query: pageQuery,
                handler: async (request, h) => respondWithPage(request, h, await listing('github', (adapter, page) => adapter.accounts(page))(access(request).project!.id, request.query), (item) => item)
            }),
            'git.github.repos': route({
                params: accountParams, query: pageQuery,
                handler: async (request, h) => respondWithPage(request, h, await listing('github', (adapter, page) => adapter.repositories(request.params.accountLogin, page))(access(request).project!.id, request.query), (item) => item)
            }),
            'git.gitlab.repos': route({
                params: projectParams, query: pageQuery,
                handler: async (request, h) => respondWithPage(request, h, await listing('gitlab', (adapter, page) => adapter.repositories(null, page))(access(request).project!.id, request.query), (item) => item)
            }),
            'git.bitbucket.workspaces': route({
                params: projectParams, query: pageQuery,
                handler: async (request, h) => respondWithPage(request, h, await listing('bitbucket', (adapter, page) => adapter.accounts(page))(access(request).project!.id, request.query), (item) => item)
            }),
            'git.bitbucket.repos': route({
                params: workspaceParams, query: pageQuery,
                handler: async (request, h) => respondWithPage(request, h, await listing('bitbucket', (adapter, page) => adapter.repositories(request.params.workspace, page))(access(request).project!.id, request.query), (item) => item)
            })
        };

        for (const provider of GIT_PROVIDERS) {
            handlers[`git.${provider}.disconnect`] = route({
                params: projectParams,
                handler: async (request) => {
                    const connection = await git.connection(access(request).project!.id, provider);
                    if (!connection) {
                        throw Boom.notFound(`The project has no ${PROVIDER_LABELS[provider]} connection`);
                    }

                    const revoked = await git.disconnect(connection);
                    return { ...publicConnection(connection), status: 'disconnected', revoked };
                }
            });
            handlers[`git.${provider}.connect`] = route({
                handler: async (request) => {
                    const resolved = access(request);
                    if (!resolved.project) {
                        throw Boom.badRequest('"projectId" is required: the project to connect');
                    }

                    return flow.start(provider, resolved.project.id, { userId: resolved.user.id, sessionId: resolved.credentialId });
                }
            });
            handlers[`git.${provider}.callback`] = route({
                payload: callbackPayload,
                handler: async (request, h) => {
                    const resolved = access(request);
                    const connection = await flow.complete(provider, request.payload, { userId: resolved.user.id, sessionId: resolved.credentialId });
                    return h.response(publicConnection(connection)).code(201);
                }
            });
        }

        bindRoutes(server, gitTable, handlers);
    }
};
