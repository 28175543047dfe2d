import * as Boom from '@hapi/boom';
import type { NamedPlugin } from '@hapi/hapi';
import type { Knex } from 'knex';

import { deriveKey } from '../../lib/crypto';
import { fingerprint, IDEMPOTENCY_HEADER, IdempotencyStore, idempotencyKeyOf, keptHeaders, type Claim } from '../../lib/idempotency';
import { periodicJob } from '../../lib/queue/periodic';

// Idempotency-Key for every POST create and trigger, as one step of the request pipeline keyed by the route table:
// after the access pipeline has allowed the request (so a replay is checked like any request), before the handler.
export interface IdempotencyPluginOptions {
    knex: Knex;
    encryptionKey: string;
    clock: () => number;
}

declare module '@hapi/hapi' {
    interface PluginsStates {
        idempotency?: Claim;
    }

    interface PluginProperties {
        'hostless-idempotency': { store: IdempotencyStore };
    }
}

const PRUNE_JOB = 'idempotency.prune';
const PRUNE_PERIOD_MS = 3600 * 1000;

export const idempotencyPlugin: NamedPlugin<IdempotencyPluginOptions> = {
    name: 'hostless-idempotency',
    dependencies: ['hostless-auth', 'hostless-jobs'],
    register(server, options) {
        const store = new IdempotencyStore({ knex: options.knex, sealKey: deriveKey(options.encryptionKey, 'idempotency-answers'), clock: options.clock });
        server.expose('store', store);

        // Every hour, whichever process schedules it first: answers older than 24 hours are deleted.
        server.ext('onPostStart', periodicJob(server.plugins['hostless-jobs'].queue, PRUNE_JOB, PRUNE_PERIOD_MS, () => store.prune()));

        server.ext('onPreHandler', async (request, h) => {
            const row = request.route.settings.plugins?.platform;
            const user = request.auth.credentials?.user;
            if (!row || !request.auth.isAuthenticated || !user) {
                return h.continue;
            }

            const key = idempotencyKeyOf(row, request.headers[IDEMPOTENCY_HEADER] as string | undefined);
            if (!key) {
                return h.continue;
            }

            const outcome = await store.begin({ userId: user.id, routeId: row.id, key }, fingerprint(request.method, request.path, request.query, request.payload));
            if ('replay' in outcome) {
                const { statusCode, headers, payload } = outcome.replay;
                const response = h.response(payload || undefined).code(statusCode);
                for (const [name, value] of Object.entries(headers)) {
                    response.header(name, value);
                }

                return response.header('idempotent-replayed', 'true').takeover();
            }

            request.plugins.idempotency = outcome.run;
            return h.continue;
        }, { after: ['hostless-auth'] });

        server.ext('onPreResponse', async (request, h) => {
            const claim = request.plugins.idempotency;
            if (!claim) {
                return h.continue;
            }

            const response = request.response;
            try {
                const plain = !Boom.isBoom(response) && response.variety === 'plain' ? response : null;
                if (!plain || plain.statusCode < 200 || plain.statusCode >= 300) {
                    await store.release(claim);                 // only a success is kept: a failed request may be sent again
                    return h.continue;
                }

                const source = plain.source;
                const json = typeof source !== 'string' && source !== null;
                const headers = keptHeaders(plain.headers);
                await store.finish(claim, {
                    statusCode: plain.statusCode,
                    headers: json && !headers['content-type'] ? { ...headers, 'content-type': 'application/json; charset=utf-8' } : headers,
                    payload: source === null ? '' : typeof source === 'string' ? source : JSON.stringify(source)
                });
            }
            catch (err) {
                request.log(['error', 'idempotency'], err as Error);
                await store.release(claim).catch(() => undefined);
            }

            return h.continue;
        });
    }
};
