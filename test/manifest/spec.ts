import * as Fs from 'node:fs';
import * as Path from 'node:path';

import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { compareWithSpec, mountedRoutes, specRoutes } from '../../lib/spec-routes';
import { mountedTables } from '../../manifest/api';
import { ROUTE_TABLES } from '../../manifest/routes';
import { testServer, type TestServer } from '../helpers/server';

// The route-to-scope table is law: every spec route is declared with exactly its scope, every mounted route comes
// from a table row, and the server mounts exactly the rows of the families in its manifest.
const { describe, it, before, after } = exports.lab = Lab.script();
const { expect } = Code;

describe('the route tables against the spec', () => {

    let instance: TestServer;

    before(async () => {
        instance = await testServer();
    });

    after(async () => {
        await instance?.stop();
    });

    it('declares all 196 spec routes with exactly their scopes, and mounts nothing outside a table', () => {
        const report = compareWithSpec(specRoutes(), mountedRoutes(instance.server), ROUTE_TABLES);
        expect(report.spec).to.have.length(196);
        expect(report.problems).to.equal([]);
    });

    it('mounts exactly the rows of the manifest\'s families, each with an example', () => {
        const expected = mountedTables().flatMap((table) => table.rows.map((row) => `${row.method} ${row.path} ${row.id}`)).sort();
        const mounted = mountedRoutes(instance.server).map((route) => `${route.method} ${route.path} ${route.id}`).sort();
        expect(mounted).to.equal(expected);
        for (const table of mountedTables()) {
            for (const row of table.rows) {
                expect(row.example, row.id).to.exist();
            }
        }
    });

    it('gives every row a unique id and a unique method and path', () => {
        const rows = ROUTE_TABLES.flatMap((table) => table.rows);
        expect(new Set(rows.map((row) => row.id)).size).to.equal(rows.length);
        expect(new Set(rows.map((row) => `${row.method} ${row.path}`)).size).to.equal(rows.length);
    });

    it('catches a mounted spec route whose scope differs from the spec', () => {
        const doctored = ROUTE_TABLES.map((table) => ({ ...table, rows: table.rows.map((row) => row.id === 'projects.list' ? { ...row, scope: 'apps:read' as const } : row) }));
        const report = compareWithSpec(specRoutes(), mountedRoutes(instance.server), doctored);
        expect(report.problems).to.contain('spec route GET /projects is declared with key/apps:read instead of projects:read');
        expect(report.problems).to.contain('mounted route GET /v1/projects differs from its table row');
    });

    it('catches a mounted route that is in no table', async () => {
        const extra = await testServer();
        try {
            extra.server.route({ method: 'GET', path: '/v1/sneaky', handler: () => 'hi' });
            const report = compareWithSpec(specRoutes(), mountedRoutes(extra.server), ROUTE_TABLES);
            expect(report.problems).to.equal(['mounted route GET /v1/sneaky is in no route table']);
        }
        finally {
            await extra.stop();
        }
    });

    it('keeps its copy of the spec\'s routes.json identical to the shared spec', () => {
        const shared = Path.join(__dirname, '..', '..', '..', 'shared', 'spec', 'routes.json');
        if (Fs.existsSync(shared)) {
            expect(specRoutes()).to.equal(specRoutes(shared));
        }
    });
});
