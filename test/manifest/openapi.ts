import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';
import Ajv2020 from 'ajv/dist/2020';

import { mountedRoutes } from '../../lib/spec-routes';
import { inject } from '../helpers/api';
import { testServer, type TestServer } from '../helpers/server';

const { describe, it, before, after } = exports.lab = Lab.script();
const { expect } = Code;

type Operation = {
    operationId: string; security: Array<Record<string, string[]>>; 'x-hostless-auth': string; 'x-hostless-scope'?: string | null;
    parameters?: Array<{ name: string; in: string; required: boolean; schema: object }>;
    requestBody?: { content: Record<string, { schema: object }> };
    responses: Record<string, { content?: Record<string, { schema: object }>; headers?: Record<string, object> }>;
};
type Document = { openapi: string; paths: Record<string, Record<string, Operation>>; components: object };

describe('OpenAPI document', () => {

    let instance: TestServer;
    let document: Document;
    const operation = (method: string, path: string) => document.paths[path][method.toLowerCase()];

    before(async () => {
        instance = await testServer();
        const res = await inject(instance.server, { method: 'GET', url: '/v1/openapi.json' });
        expect(res.statusCode).to.equal(200);
        expect(String(res.headers['content-type'])).to.startWith('application/json');
        document = JSON.parse(res.payload) as Document;
    });

    after(async () => {
        await instance?.stop();
    });

    it('is a valid OpenAPI 3.1 document by the OpenAPI schema validator', async () => {
        const { Validator } = await import('@seriousme/openapi-schema-validator');
        const validator = new Validator();
        const result = await validator.validate(document);
        expect(result.errors ?? [], JSON.stringify(result.errors, null, 1)?.slice(0, 2000)).to.equal([]);
        expect(result.valid).to.be.true();
        expect(validator.version).to.equal('3.1');
        expect(() => validator.resolveRefs()).to.not.throw();
    });

    it('holds every mounted route, with its table row\'s id, auth mode and scope', () => {
        const mounted = mountedRoutes(instance.server);
        expect(mounted.length).to.be.above(250);
        for (const route of mounted) {
            const op = operation(route.method, route.path.replace(/{(\w+)\?}/g, '{$1}'));
            expect(op, `${route.method} ${route.path}`).to.exist();
            expect(op.operationId).to.equal(route.id!);
            expect(op['x-hostless-auth']).to.equal(route.row!.auth);
            if (route.row!.auth === 'key') {
                expect(op['x-hostless-scope']).to.equal(route.row!.scope ?? null);
                expect(op.security).to.equal([{ bearer: route.row!.scope ? [route.row!.scope] : [] }]);
            }
            else if (route.row!.auth === 'public' || route.row!.auth === 'webhook') {
                expect(op.security).to.equal([]);
            }
            else {
                expect(op.security).to.equal([{ session: [] }]);
            }
        }

        const count = Object.values(document.paths).reduce((sum, methods) => sum + Object.keys(methods).length, 0);
        expect(count).to.equal(mounted.length);
    });

    it('describes parameters, bodies and errors from the routes\' Joi schemas', () => {
        const create = operation('POST', '/v1/apps');
        expect(create['x-hostless-scope']).to.equal('apps:write');
        const schema = create.requestBody!.content['application/json'].schema;
        const ajv = new Ajv2020({ strict: false, validateFormats: false });
        const check = ajv.compile(schema);
        expect(check({ name: 'shop', projectId: 'prj_0123456789abcdef', plan: 'standard', region: 'eu-west' })).to.be.true();
        expect(check({ name: 'shop-pr-3' })).to.be.false();              // an inverted pattern stays a refusal
        expect(check({ name: 'shop', plan: 'huge' })).to.be.false();
        expect(check({ name: 'shop', unknown: 1 })).to.be.false();
        expect(Object.keys(create.responses)).to.include(['201', '400', '401', '403', '415']);

        const get = operation('GET', '/v1/apps/{appName}');
        expect(get.parameters!.find((p) => p.name === 'appName')).to.include({ in: 'path', required: true });
        expect(Object.keys(get.responses)).to.include(['200', '401', '403', '404', '429']);
        expect(get.responses['429'].headers).to.include('Retry-After');
        expect(Object.keys(operation('POST', '/v1/auth/login').responses), 'limited per client address').to.include('429');
        expect(get.requestBody).to.not.exist();

        const list = operation('GET', '/v1/apps');
        expect(list.parameters!.filter((p) => p.in === 'query').map((p) => p.name)).to.include(['cursor', 'limit']);
        expect(list.responses['200'].content!['application/json'].schema).to.include({ type: 'array' });

        const upload = operation('POST', '/v1/sites/from-upload').requestBody!.content;
        expect(Object.keys(upload)).to.equal(['multipart/form-data']);
        expect(upload['multipart/form-data'].schema).to.include({ required: ['archive'] });
        expect(Object.keys((upload['multipart/form-data'].schema as { properties: object }).properties)).to.equal(['archive', 'metadata']);

        const ready = operation('GET', '/readyz');
        expect(ready.security).to.equal([]);
        expect(Object.keys(ready.responses)).to.include(['200', '503']);
        expect(Object.keys(ready.responses), 'a public route has no credential to limit').to.not.include('429');
        expect((document.components as { schemas: { Error: { required: string[] } } }).schemas.Error.required).to.equal(['statusCode', 'error', 'message']);
    });

    it('is served without a credential, and is its own entry', () => {
        expect(operation('GET', '/v1/openapi.json')).to.include({ operationId: 'openapi.document', 'x-hostless-auth': 'public' });
    });
});
