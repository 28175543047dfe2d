import * as Code from '@hapi/code';
import * as Hapi from '@hapi/hapi';
import * as Lab from '@hapi/lab';

import { kindsOf, ROUTE_TABLES } from '../../manifest/routes';
import { bindRoutes, compileRow, keyRoute, type RouteTable } from '../../lib/route-table';

const { describe, it } = exports.lab = Lab.script();
const { expect } = Code;

describe('route tables', () => {

    const kinds = kindsOf(ROUTE_TABLES);

    it('infers the project and the resource from path parameters, and the role and permission from the method', () => {
        const read = compileRow(keyRoute('x.get', 'GET', '/apps/{appName}', 'apps:read', 'x'), kinds);
        expect(read.compiled).to.equal({ project: 'query', resource: 'app', role: 'viewer', collaborator: 'view', collaboratorFor: null, create: false, mutation: false });
        const write = compileRow(keyRoute('x.patch', 'PATCH', '/projects/{projectId}', 'projects:read', 'x', { policy: { role: 'admin' } }), kinds);
        expect(write.compiled).to.include({ project: 'path', resource: null, role: 'admin', collaborator: 'manage', mutation: true });
    });

    it('picks, among kinds sharing a parameter name, the one whose parent the path names too', () => {
        const nested = [kinds[0], { kind: 'app', param: 'appName', table: 'apps', column: 'name', projectColumn: 'project_id' },
            { kind: 'app-deployment', param: 'deploymentId', table: 'd', column: 'id', projectColumn: 'project_id', parent: { kind: 'app', column: 'app_id' } },
            { kind: 'site', param: 'siteName', table: 's', column: 'name', projectColumn: 'project_id' },
            { kind: 'site-deployment', param: 'deploymentId', table: 'd', column: 'id', projectColumn: 'project_id', parent: { kind: 'site', column: 'site_id' } }];
        expect(compileRow(keyRoute('x', 'GET', '/apps/{appName}/deployments/{deploymentId}', 'deployments:read', 'x'), nested).compiled.resource).to.equal('app-deployment');
        expect(compileRow(keyRoute('x', 'GET', '/sites/{siteName}/deployments/{deploymentId}', 'deployments:read', 'x'), nested).compiled.resource).to.equal('site-deployment');
    });

    it('takes a generic parameter (`{id}`) for a kind only under the prefix that kind declares', () => {
        const generic = [kinds[0], { kind: 'vm', param: 'id', table: 'v', column: 'id', projectColumn: 'project_id', under: '/virtual-machines' }];
        expect(compileRow(keyRoute('x', 'GET', '/virtual-machines/{id}/firewall', 'virtual-machines:read', 'x'), generic).compiled.resource).to.equal('vm');
        expect(compileRow(keyRoute('x', 'DELETE', '/invoices/{id}', 'billing:write', 'x'), generic).compiled.resource).to.equal(null);
        expect(compileRow(keyRoute('x', 'GET', '/virtual-machines-archive/{id}', 'virtual-machines:read', 'x'), generic).compiled.resource).to.equal(null);
        const sshKey = ROUTE_TABLES.flatMap((table) => table.rows).find((row) => row.id === 'sshKeys.delete')!;
        expect(compileRow(sshKey, kinds).compiled.resource, 'the platform\'s own tables').to.equal(null);
    });

    it('stops the boot on a malformed row, with a sentence', () => {
        expect(() => compileRow({ id: 'x', method: 'GET', path: '/v1/x', auth: 'key', description: '' }, kinds)).to.throw('Route x uses auth mode key and must declare a scope (null for none)');
        expect(() => compileRow({ id: 'x', method: 'GET', path: '/v1/x', auth: 'session', scope: 'apps:read', description: '' }, kinds)).to.throw(/ignores scopes/);
        expect(() => compileRow(keyRoute('x', 'POST', '/x', 'apps:write', '', { policy: { create: true } }), kinds)).to.throw(/must take its projectId from the body/);
        expect(() => compileRow(keyRoute('x', 'GET', '/x', 'apps:read', '', { policy: { resource: 'spaceship' } }), kinds)).to.throw(/unknown resource kind spaceship/);
    });

    it('refuses a row without a handler, a handler without a row, and a row without an example', async () => {
        const server = Hapi.server();
        const table: RouteTable = { family: 't', rows: [keyRoute('t.get', 'GET', '/t', 'apps:read', 'x', { example: {} })] };
        expect(() => bindRoutes(server, table, {})).to.throw(/Register the hostless-auth plugin/);

        const withAuth = Hapi.server();
        await withAuth.register({ name: 'hostless-auth', register: (s) => {
            s.expose('strategy', 'x');
            s.expose('kinds', () => kinds);
            s.expose('register', () => { });
        } });
        expect(() => bindRoutes(withAuth, table, {})).to.throw('Route t.get of the t table has no handler');
        expect(() => bindRoutes(withAuth, table, { 't.get': { handler: () => null }, 't.other': { handler: () => null } })).to.throw('Handler t.other has no row in the t route table');
        const noExample: RouteTable = { family: 't', rows: [keyRoute('t.get', 'GET', '/t', 'apps:read', 'x')] };
        expect(() => bindRoutes(withAuth, noExample, { 't.get': { handler: () => null } })).to.throw(/has no example/);
    });
});
