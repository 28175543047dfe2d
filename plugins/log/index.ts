import * as Boom from '@hapi/boom';
import type { NamedPlugin, Request } from '@hapi/hapi';

import { logLine } from '../../lib/log-line';

// One JSON line per response and per internal error, each with the request's id (also sent as X-Request-Id, so a
// caller can quote it), its route id and the id of the credential it came with (never the credential). Headers,
// query strings and bodies are never logged, and any credential-shaped text in a path or message is redacted, so no
// secret reaches the log.
export interface LogPluginOptions {
    write: (line: string) => void;
}

export const logPlugin: NamedPlugin<LogPluginOptions> = {
    name: 'hostless-log',
    register(server, options) {
        const emit = (entry: Record<string, unknown>) => options.write(logLine(entry));

        server.ext('onPreResponse', (request, h) => {
            const response = request.response;
            if (Boom.isBoom(response)) {
                response.output.headers['x-request-id'] = request.info.id;
            }
            else if (response) {
                response.header('x-request-id', request.info.id);
            }

            return h.continue;
        });

        server.events.on('response', (request: Request) => {
            const response = request.response as { statusCode?: number; output?: { statusCode: number } } | null;
            const credentials = request.auth.credentials;
            emit({
                level: 'info',
                requestId: request.info.id,
                route: request.route.settings.id ?? null,
                method: request.method.toUpperCase(),
                path: request.path,
                status: response?.statusCode ?? response?.output?.statusCode ?? null,
                ms: Date.now() - request.info.received,
                via: credentials?.via ?? null,
                credentialId: credentials?.credentialId ?? null
            });
        });

        server.events.on({ name: 'request', channels: 'error' }, (request, event) => {
            const error = event.error as Error | undefined;
            emit({ level: 'error', requestId: request.info.id, route: request.route.settings.id ?? null, path: request.path, error: error?.message ?? null, stack: error?.stack ?? null });
        });

        server.events.on('log', (event, tags) => {
            if (tags.error) {
                const error = event.error as Error | undefined;
                emit({ level: 'error', tags: event.tags, error: error?.message ?? event.data ?? null, stack: error?.stack ?? null });
            }
        });
    }
};
