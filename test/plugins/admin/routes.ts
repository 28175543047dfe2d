import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { inject, register, type TestUser } from '../../helpers/api';
import { testServer, type TestServer } from '../../helpers/server';

// The /v1/admin/* routes directly (the MCP tools call them): ids that name nothing, bad periods and combinations,
// the audit's keyset pages and its filter, and a switched-off deployment.
const { describe, it, before, after } = exports.lab = Lab.script();
const { expect } = Code;

describe('admin routes', () => {

    let instance: TestServer;
    let admin: TestUser;
    const get = (url: string, authorization = admin.session) => inject(instance.server, { method: 'GET', url, headers: { authorization } });

    before(async () => {
        instance = await testServer();
        admin = await register(instance.server, 'routes-admin');
        await instance.server.app.knex('users').where('id', admin.id).update({ admin_since: new Date().toISOString() });
    });

    after(async () => {
        await instance?.stop();
    });

    it('answers 404 for ids that name nothing, and audits each as not_found', async () => {
        const none = { usr: 'usr_0000000000000000', prj: 'prj_0000000000000000' };
        const urls = [
            `/v1/admin/resources/database/db_0000000000000000`, `/v1/admin/usage?projectId=${none.prj}`, `/v1/admin/accounts/${none.usr}/communications`,
            `/v1/admin/triage?projectId=${none.prj}`, `/v1/admin/accounts/${none.usr}/timeline`
        ];
        for (const url of urls) {
            const res = await get(url);
            expect(res.statusCode, url).to.equal(404);
        }

        const outcomes = await instance.server.app.knex('admin_access_audit').orderBy('seq', 'desc').limit(urls.length).pluck('outcome') as string[];
        expect(outcomes).to.equal(urls.map(() => 'not_found'));
    });

    it('refuses bad periods and combinations with 400 naming the fields, audited as invalid', async () => {
        const far = await get(`/v1/admin/usage?projectId=${admin.projectId}&from=2024-01-01T00:00:00Z&to=2026-01-01T00:00:00Z`);
        expect(far.statusCode).to.equal(400);
        expect(far.result.message).to.equal('"from" and "to" must be at most 366 days apart');
        const both = await get(`/v1/admin/triage?userId=${admin.id}&projectId=${admin.projectId}`);
        expect(both.statusCode).to.equal(400);
        const temporal = await get('/v1/admin/queue?engine=temporal&jobId=job_0000000000000000&taskQueue=hostless-platform&workflowId=w');
        expect(temporal.result.message).to.equal('"jobId" is not used with engine temporal');
        const last = await instance.server.app.knex('admin_access_audit').orderBy('seq', 'desc').first<{ outcome: string; tool: string }>('outcome', 'tool');
        expect(last).to.equal({ outcome: 'invalid', tool: 'admin_queue_inspect' });
    });

    it('pages the audit newest first and filters it by admin', async () => {
        const other = await register(instance.server, 'routes-admin-2');
        await instance.server.app.knex('users').where('id', other.id).update({ admin_since: new Date().toISOString() });
        await get(`/v1/admin/accounts/${admin.id}`, other.session);
        const first = await get('/v1/admin/access-audit?limit=2');
        expect(first.result.length).to.equal(2);
        const next = /<([^>]+)>; rel="next"/.exec(first.headers.link as string)![1];
        const second = await get(next);
        expect(second.statusCode).to.equal(200);
        expect(second.result[0].id).to.not.equal(first.result[1].id);

        const theirs = await get(`/v1/admin/access-audit?adminId=${other.id}`);
        expect(theirs.result.map((r: { adminId: string; tool: string }) => [r.adminId, r.tool])).to.equal([[other.id, 'admin_account_get']]);
        expect(theirs.result[0].arguments).to.equal({ userId: admin.id });
    });

    it('answers the resource of each kind by its own table, without its credentials', async () => {
        const created = await inject(instance.server, { method: 'POST', url: '/v1/databases', headers: { authorization: admin.session }, payload: { name: `adm-db-${Date.now()}`, projectId: admin.projectId } });
        expect(created.statusCode, created.payload).to.equal(201);
        const res = await get(`/v1/admin/resources/database/${created.result.id}`);
        expect(res.statusCode).to.equal(200);
        expect(res.result.resource).to.include({ resourceType: 'database', id: created.result.id, projectId: admin.projectId });
        expect(res.result.resource.credentials).to.not.exist();
    });

    it('serves nothing and audits nothing when switched off', async () => {
        const off = await testServer({ mcpAdminToolsEnabled: false });
        try {
            const user = await register(off.server, 'off-admin');
            await off.server.app.knex('users').where('id', user.id).update({ admin_since: new Date().toISOString() });
            for (const url of ['/v1/admin/access-audit', '/v1/admin/incidents']) {
                const res = await off.server.inject({ method: 'GET', url, headers: { authorization: user.session } });
                expect(res.statusCode, url).to.equal(404);
            }

            const count = await off.server.app.knex('admin_access_audit').count({ n: '*' }).first<{ n: number | string }>();
            expect(Number(count.n)).to.equal(0);
        }
        finally {
            await off.stop();
        }
    });
});
