import * as Boom from '@hapi/boom';
import type { NamedPlugin, Request, ResponseToolkit, Server } from '@hapi/hapi';
import type { Knex } from 'knex';

import { introspection } from '../../lib/access';
import { createFastReader } from '../../lib/db/fast-reader';
import { deriveKey } from '../../lib/crypto';
import { RESOURCE_KINDS, type ResourceKind } from '../../lib/resources';
import type { CompiledRow } from '../../lib/route-table';
import { sessionSigner } from '../../lib/session-token';
import { CredentialStore } from './credentials';
import { gate } from './gate';
import { Policy } from './policy';

// The access pipeline, one mechanism for every route (architecture.md "A request's way through"):
// onRequest (two Authorization headers) -> authenticate (credential, JWT-only gate, scope) -> payload and
// validation -> onPreHandler (projectId, resource, role, collaborator) -> handler. Every error leaves in the Boom shape.

export interface AuthPluginOptions {
    knex: Knex;
    sessionSecret: string;                                      // signs and verifies session access tokens
    issuer: string;                                             // the API's public origin
    resources?: readonly ResourceKind[];                        // kinds beyond the built-in catalogue (embedding)
}

export const STRATEGY = 'platform';

export const authPlugin: NamedPlugin<AuthPluginOptions> = {
    name: 'hostless-auth',
    register(server: Server, options: AuthPluginOptions) {
        const reader = createFastReader(options.knex);
        const kinds = [...RESOURCE_KINDS, ...(options.resources ?? [])];
        const signer = sessionSigner({ secret: deriveKey(options.sessionSecret, 'session-jwt'), issuer: options.issuer });
        const store = new CredentialStore({
            knex: options.knex,
            reader,
            signer,
            onError: (err) => server.log(['error', 'auth'], err as Error)
        });
        const policy = new Policy(reader, kinds);

        server.expose('strategy', STRATEGY);
        server.expose('kinds', kinds);
        server.expose('signer', signer);
        // GET /v1/auth/introspect without the HTTP round: the MCP server in this process asks it once per request.
        server.expose('introspect', async (authorization: string): Promise<{ status: number; body: unknown }> => {
            try {
                const credentials = await store.authenticate(authorization);
                return { status: 200, body: introspection({ ...credentials, user: credentials.user! }) };
            }
            catch (err) {
                if (Boom.isBoom(err)) {
                    const { statusCode, error, message } = err.output.payload;
                    return { status: statusCode, body: { statusCode, error, message } };
                }

                throw err;
            }
        });

        server.auth.scheme(STRATEGY, () => ({
            authenticate: async (request: Request, h: ResponseToolkit) => {
                const credentials = await store.authenticate(request.headers.authorization as string | undefined);
                const refused = gate(request.route.settings.plugins?.platform, credentials);
                if (refused) {
                    throw refused;
                }

                return h.authenticated({ credentials });
            }
        }));
        server.auth.strategy(STRATEGY, STRATEGY);

        server.ext('onRequest', (request, h) => {
            const raw = request.raw.req.rawHeaders ?? [];          // server.inject has none: it cannot send a header twice
            let count = 0;
            for (let i = 0; i < raw.length; i += 2) {
                if (raw[i]!.length === 13 && raw[i]!.toLowerCase() === 'authorization') {
                    ++count;
                }
            }

            if (count > 1) {
                throw Boom.badRequest('Only one Authorization header is allowed');
            }

            return h.continue;
        });

        server.ext('onPreHandler', async (request, h) => {
            const row = request.route.settings.plugins?.platform as CompiledRow | undefined;
            if (row && request.auth.isAuthenticated) {
                request.plugins.platform = await policy.resolve(request, row);
            }

            return h.continue;
        });

        server.ext('onPreResponse', (request, h) => {
            const response = request.response;
            if (Boom.isBoom(response)) {
                // One error shape for every status, 404s for unknown routes and 500s included; nothing else leaks.
                const { statusCode, error, message } = response.output.payload;
                response.output.payload = { statusCode, error, message };
            }

            return h.continue;
        });

        server.ext('onPreStop', async () => {
            await store.drain();
        });

        server.ext('onPostStop', () => {
            reader.close();
        });
    }
};
