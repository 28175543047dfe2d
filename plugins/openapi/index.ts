import { honoursIdempotencyKey } from '../../lib/idempotency';
import { openApiDocument, openApiRoutes } from '../../lib/openapi';
import { bindRoutes, type FamilyPlugin } from '../../lib/route-table';
import { openApiTable } from '../../manifest/routes/openapi';

// GET /v1/openapi.json: built from the mounted routes on the first request (every plugin has registered its routes
// by then), then kept: the routes do not change while the server runs.
export interface OpenApiPluginOptions {
    version: string;
    publicUrl: string;
}

export const openApiPlugin: FamilyPlugin<OpenApiPluginOptions> = {
    name: 'hostless-openapi',
    table: openApiTable,
    dependencies: ['hostless-auth'],
    register(server, options) {
        let document: string | null = null;
        bindRoutes(server, openApiTable, {
            'openapi.document': {
                handler: (request, h) => {
                    document ??= JSON.stringify(openApiDocument(openApiRoutes(request.server, honoursIdempotencyKey), { title: 'Hostless API', version: options.version, serverUrl: options.publicUrl }));
                    return h.response(document).type('application/json');
                }
            }
        });
    }
};
