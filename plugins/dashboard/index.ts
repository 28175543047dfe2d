import * as Path from 'node:path';

import * as Boom from '@hapi/boom';
import Inert from '@hapi/inert';
import Vision from '@hapi/vision';
import Joi from 'joi';

import { bindRoutes, type FamilyPlugin, type RouteHandlers } from '../../lib/route-table';
import { dashboardTable } from '../../manifest/routes/dashboard';
import { CONTENT_SECURITY_POLICY } from './content-policy';
import { errorView, layoutContext, type PageDeps } from './page';
import { accountRoutes } from './routes/account';
import { connectedAppRoutes } from './routes/connected-apps';
import { consentRoutes } from './routes/consent';
import { docsRoutes } from './routes/docs';
import { invitationRoutes } from './routes/invitations';
import { gitRoutes } from './routes/git';
import { keyRoutes } from './routes/keys';
import { memberRoutes } from './routes/members';
import { billingRoutes } from './routes/billing';
import { notificationRoutes } from './routes/notifications';
import { oauthClientRoutes } from './routes/oauth-clients';
import { projectRoutes } from './routes/projects';
import { resourceRoutes } from './routes/resources';
import { accountPageRoutes } from './routes/account-pages';
import { LIVE_TAIL_DEFAULTS, LiveTails, type LiveTailOptions } from './live-tail';
import { checkFormToken, cookieName, cookieOptions, Session } from './session';
import { configureViews } from './views';

// The dashboard and the docs site: server-rendered pages that do everything through the REST API in-process, with
// their own encrypted cookie session, a form token on every form, and headers that forbid framing and any script
// or style from elsewhere.

export interface DashboardPluginOptions {
    cookiePassword: string;                                     // seals the session cookie (iron); derived from SESSION_SECRET
    secureCookies: boolean;                                     // true behind https: the cookie is sent over https only
    docsDir: string;                                            // the markdown pages served at /docs
    gitAuthorizeOrigins?: readonly string[];                    // where the Git page's connect buttons send the browser
    publicUrl?: string;                                         // the API's public origin: edge URLs and the agent setup page
    mcpPublicUrl?: string;                                      // the MCP server's public origin
    sitesDomain?: string;                                       // the edge serves `<name>.<sitesDomain>`
    liveTail?: Partial<LiveTailOptions>;                        // poll interval, longest stream, streams per session
}

const schema = Joi.object({
    cookiePassword: Joi.string().min(32).required(),
    secureCookies: Joi.boolean().required(),
    docsDir: Joi.string().required(),
    gitAuthorizeOrigins: Joi.array().items(Joi.string().uri({ scheme: ['http', 'https'] })).default([]),
    publicUrl: Joi.string().uri({ scheme: ['http', 'https'] }).default('http://localhost:3000'),
    mcpPublicUrl: Joi.string().uri({ scheme: ['http', 'https'] }).default('http://localhost:3001'),
    sitesDomain: Joi.string().hostname().default('localhost'),
    liveTail: Joi.object({
        pollMs: Joi.number().integer().min(10).max(60_000),
        maxMs: Joi.number().integer().min(100).max(3_600_000),
        perSession: Joi.number().integer().min(1).max(20)
    }).default({})
});

const PUBLIC_DIR = Path.join(__dirname, 'public');

// Forms post urlencoded bodies; a post with no body at all reads as an empty form, so it meets the form-token check.
function formBodies(handlers: RouteHandlers): RouteHandlers {
    for (const row of dashboardTable.rows.filter((candidate) => candidate.body === 'form')) {
        handlers[row.id] = { ...handlers[row.id], payload: { defaultContentType: 'application/x-www-form-urlencoded' } };
    }

    return handlers;
}

export const dashboardPlugin: FamilyPlugin<DashboardPluginOptions> = {
    name: 'hostless-dashboard',
    table: dashboardTable,
    dependencies: ['hostless-auth', 'hostless-accounts', 'hostless-api-keys', 'hostless-invitations', 'hostless-projects', 'hostless-oauth', 'hostless-notifications'],
    async register(server, rawOptions) {
        const options = Joi.attempt(rawOptions, schema, 'The dashboard plugin options are invalid:') as DashboardPluginOptions;
        await server.register([Inert, Vision], { once: true });
        configureViews(server);
        server.state(cookieName(options.secureCookies), cookieOptions(options.cookiePassword, options.secureCookies));
        server.expose('cookie', cookieName(options.secureCookies));

        const deps: PageDeps = { server, refreshes: new Map() };
        const tails = new LiveTails({ ...LIVE_TAIL_DEFAULTS, ...options.liveTail });
        server.expose('liveTails', tails);
        // Live tails end first at shutdown: a stream would otherwise hold the server's stop until its timeout.
        server.ext('onPreStop', () => tails.closeAll('shutdown'));
        const edge = { publicUrl: options.publicUrl!, sitesDomain: options.sitesDomain! };
        bindRoutes(server, dashboardTable, formBodies({
            ...accountRoutes(deps),
            ...keyRoutes(deps),
            ...projectRoutes(deps),
            ...memberRoutes(deps),
            ...invitationRoutes(deps),
            ...notificationRoutes(deps),
            ...billingRoutes(deps),
            ...docsRoutes(deps, options.docsDir),
            ...consentRoutes(deps),
            ...connectedAppRoutes(deps),
            ...oauthClientRoutes(deps),
            ...gitRoutes(deps, options.gitAuthorizeOrigins ?? []),
            ...resourceRoutes(deps, { edge, tails }),
            ...accountPageRoutes(deps, { publicUrl: options.publicUrl!, mcpPublicUrl: options.mcpPublicUrl! }),
            'dashboard.assets': {
                validate: { params: Joi.object({ file: Joi.string().pattern(/^[a-z0-9-]+\.(css|js)$/).required() }) },
                handler: (request, h) => h.file(Path.join(PUBLIC_DIR, request.params.file as string), { confine: PUBLIC_DIR })
            },
            'dashboard.notFound': {
                handler: () => {
                    throw Boom.notFound('There is no page at this address.');
                }
            }
        }));

        // Every form post carries the session's form token, checked before validation and before any handler; an
        // upload's (a streamed multipart body) is its first part, which its handler reads and checks before the file.
        server.ext('onPostAuth', (request, h) => {
            if (request.method === 'post' && !request.route.settings.plugins?.multipart) {
                checkFormToken(request);
            }

            return h.continue;
        }, { sandbox: 'plugin' });

        // Errors raised before a page handler (a refused form, a malformed address) are pages too; every page
        // carries the framing and content policies, and signed-in pages are never stored by caches.
        server.ext('onPreResponse', (request, h) => {
            const context = () => layoutContext(Session.of(request), request, { notice: false, forms: false });
            const response = Boom.isBoom(request.response) ? errorView(h, context(), request.response) : request.response;
            response.header('content-security-policy', CONTENT_SECURITY_POLICY, { override: false });
            response.header('x-frame-options', 'DENY');
            response.header('x-content-type-options', 'nosniff');
            response.header('referrer-policy', 'no-referrer');
            if (request.route.settings.id !== 'dashboard.assets' && !request.path.startsWith('/docs')) {
                response.header('cache-control', 'no-store');
            }

            return response === request.response ? h.continue : response;
        }, { sandbox: 'plugin' });
    }
};
