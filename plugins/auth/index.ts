import type { Readable } from 'node:stream';

import * as Boom from '@hapi/boom';
import type { NamedPlugin, Request, ResponseToolkit, Server } from '@hapi/hapi';
import type { Knex } from 'knex';

import { introspection } from '../../lib/access';
import { clientAddress, proxyTrust } from '../../lib/client-address';
import { createFastReader } from '../../lib/db/fast-reader';
import { dialect } from '../../lib/db/knex';
import { Lists } from '../../lib/lists';
import { deriveKey } from '../../lib/crypto';
import { accessTokenVerifier } from '../../lib/oauth/access-token';
import { JwksCache } from '../../lib/oauth/jwks-cache';
import { publishedKeys } from '../../lib/oauth/signing-keys';
import { PROJECT_KIND, type ResourceKind, type RowLoader } from '../../lib/resources/kinds';
import { readForm } from '../../lib/multipart';
import { sessionSigner } from '../../lib/session-token';
import { CredentialStore } from './credentials';
import { gate } from './gate';
import { KeyUses } from './key-uses';
import { Policy } from './policy';

// The access pipeline, one mechanism for every route (architecture.md "A request's way through"):
// onRequest (two Authorization headers) -> authenticate (credential, JWT-only gate, scope) -> payload and
// validation -> onPreHandler (projectId, resource, role, collaborator) -> handler. Every error leaves in the Boom shape.

export interface AuthPluginOptions {
    knex: Knex;
    sessionSecret: string;                                      // signs and verifies session access tokens
    issuer: string;                                             // the API's public origin: the issuer of session and OAuth tokens, and the API's audience
    resources?: readonly ResourceKind[];                        // kinds no bound table declares (embedding)
    trustedProxies?: readonly string[];                         // TRUSTED_PROXIES: whose X-Forwarded-For is believed
    clock?: () => number;                                       // the time keys are judged at (tests control it)
}


export const STRATEGY = 'platform';

export const authPlugin: NamedPlugin<AuthPluginOptions> = {
    name: 'hostless-auth',
    register(server: Server, options: AuthPluginOptions) {
        const reader = createFastReader(options.knex);
        const signer = sessionSigner({ secret: deriveKey(options.sessionSecret, 'session-jwt'), issuer: options.issuer });
        // OAuth access tokens are verified with the published keys, read again at most every minute (never the grant).
        const accessTokens = accessTokenVerifier({ keys: new JwksCache(() => publishedKeys(options.knex)).getKey, issuer: options.issuer, audience: options.issuer });
        const trust = proxyTrust(options.trustedProxies ?? []);
        const uses = new KeyUses({
            knex: options.knex,
            outbox: () => server.plugins['hostless-notifications']?.outbox ?? null,
            onError: (err) => server.log(['error', 'auth'], err as Error)
        });
        const store = new CredentialStore({ reader, signer, accessTokens, uses, clock: options.clock ?? Date.now });
        server.decorate('request', 'clientAddress', function (this: Request) {
            return clientAddress(this, trust);
        });
        const policy = new Policy(reader, [PROJECT_KIND, ...(options.resources ?? [])]);

        server.expose('strategy', STRATEGY);
        server.expose('kinds', () => policy.all);
        server.expose('register', (kinds: readonly ResourceKind[], loaders?: Readonly<Record<string, RowLoader>>) => policy.register(kinds, loaders));
        server.expose('signer', signer);
        server.expose('reader', reader);
        server.expose('lists', new Lists(reader, dialect(options.knex) === 'postgres'));
        server.expose('accessTokens', accessTokens);
        // Waits for the writes a credential's use leaves behind (lastUsedAt and the rest), as a stopping server does.
        server.expose('settleUses', () => store.drain());
        // GET /v1/auth/introspect without the HTTP round: the MCP server in this process asks it once per request, with
        // the address of its own caller (trusted: it comes from this process).
        server.expose('introspect', async (authorization: string, ip: string | null = null): Promise<{ status: number; body: unknown }> => {
            try {
                const credentials = await store.authenticate(authorization, { ip });
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
                const row = request.route.settings.plugins?.platform;
                const credentials = await store.authenticate(request.headers.authorization as string | undefined, { ip: request.clientAddress(), scope: row?.scope ?? null });
                const refused = gate(row, credentials);
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
                if (raw[i].length === 13 && raw[i].toLowerCase() === 'authorization') {
                    ++count;
                }
            }

            if (count > 1) {
                throw Boom.badRequest('Only one Authorization header is allowed');
            }

            return h.continue;
        });

        server.ext('onPreHandler', async (request, h) => {
            const row = request.route.settings.plugins?.platform;
            if (row && request.auth.isAuthenticated) {
                // A multipart body's leading parts are read and validated now; its file part stays unread until the
                // policy below has allowed the request.
                const multipart = request.route.settings.plugins?.multipart;
                if (multipart) {
                    request.plugins.form = await readForm(request.payload as Readable, request.raw.req.headers, multipart);
                }

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

        server.ext('onPostStop', async () => {
            await reader.close();
        });
    }
};
