import type { RouteTable } from '../../lib/route-table';

// The OpenAPI 3.1 document, public as api-contract.md's route table says: it is derived from the tables, which name
// no secret, and clients read it before they hold a credential.
export const openApiTable: RouteTable = {
    family: 'openapi',
    rows: [
        {
            id: 'openapi.document', method: 'GET', path: '/v1/openapi.json', auth: 'public',
            description: 'The OpenAPI 3.1 document of this API: every route, its auth mode and scope, parameters, bodies and errors.',
            example: {}
        }
    ]
};
