import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';
import type { Server } from '@hapi/hapi';

import { dialect } from '../../lib/db/knex';
import { syncStoredJson } from '../../lib/db/stored-json';
import { caller, createKey, register, type TestUser } from '../helpers/api';
import { testServer, type TestServer } from '../helpers/server';

const { describe, it, before, after } = exports.lab = Lab.script();
const { expect } = Code;

// A runtime kind's list JSON is kept in each row by a trigger (lib/db/stored-json.ts), on SQLite and PostgreSQL alike:
// whatever writes the row, the list says what a single GET says; a changed shape is written into every row at the
// next boot, once; a trigger a table rebuild dropped comes back.
describe('list JSON kept by the database', () => {

    let instance: TestServer;
    let owner: TestUser;
    let key: string;                                            // a key holds on another server of the same database; a session does not
    const call = caller(() => instance.server);

    before(async () => {
        instance = await testServer();
        owner = await register(instance.server, 'stored-json');
        for (const body of [{ name: 'sj-plain' }, { name: 'sj-repo', autoDeploy: true, repository: { provider: 'github', repo: 'acme/web', branch: 'main' } }]) {
            expect((await call('POST', '/v1/apps', owner.session, body)).statusCode).to.equal(201);
        }

        key = (await createKey(instance.server, owner, ['apps:read', 'apps:write'])).token;
    });

    after(async () => {
        await instance?.stop();
    });

    const knex = () => instance.server.app.knex;

    /** The list's body against the single GETs, on a server (another one booted on the same database included). */
    const expectListMatches = async (server: Server = instance.server) => {
        const list = await server.inject({ method: 'GET', url: '/v1/apps', headers: { authorization: key } });
        expect(list.statusCode).to.equal(200);
        const singles = await Promise.all((list.result as Array<{ name: string }>).map(async (item) => (await server.inject({ method: 'GET', url: `/v1/apps/${item.name}`, headers: { authorization: key } })).result));
        expect(singles.length).to.be.above(1);
        expect(list.payload).to.equal(JSON.stringify(singles));
    };

    /** The statements a call runs on knex's connection. */
    const statementsOf = async (fn: () => Promise<void>) => {
        const seen: string[] = [];
        const listener = (query: { sql: string }) => seen.push(query.sql);
        knex().on('query', listener);
        try {
            await fn();
        }
        finally {
            knex().off('query', listener);
        }

        return seen;
    };

    it('follows a write that goes around the ORM, and one to a nested field', async () => {
        await knex()('apps').where({ name: 'sj-plain' }).update({ status: 'running', instances: 3, updated_at: '2026-11-25T05:00:00.000Z' });
        await knex()('apps').where({ name: 'sj-repo' }).update({ repo_branch: 'release "2"' });
        await expectListMatches();
        const stored = await knex()('apps').where({ name: 'sj-repo' }).first('list_json');
        expect(JSON.parse(stored.list_json).repository.branch).to.equal('release "2"');
    });

    it('writes a changed shape into every row once, and the next boot writes the kind\'s own back', async () => {
        await syncStoredJson(knex(), 'apps', [{ name: 'id', column: 'id' }, { name: 'label', column: 'name' }]);
        const rows = await knex()('apps').select('id', 'name', 'list_json');
        expect(rows.length).to.equal(2);
        for (const row of rows) {
            expect(row.list_json).to.equal(JSON.stringify({ id: row.id, label: row.name }));
        }

        const again = await statementsOf(() => syncStoredJson(knex(), 'apps', [{ name: 'id', column: 'id' }, { name: 'label', column: 'name' }]));
        expect(again.length).to.be.above(0);
        expect(again.filter((sql) => !/^\s*(select|pragma)/i.test(sql))).to.equal([]);

        const next = await testServer({ database: instance.config.database });
        try {
            await expectListMatches(next.server);
        }
        finally {
            await next.stop();
        }

        await expectListMatches();
    });

    it('lets a migration rename a table', async () => {
        await knex().schema.renameTable('metric_points', 'metric_points_away');
        await knex().schema.renameTable('metric_points_away', 'metric_points');
        await knex().schema.renameTable('apps', 'apps_away');
        await knex().schema.renameTable('apps_away', 'apps');
        await expectListMatches();
    });

    it('puts back a trigger a table rebuild dropped', async () => {
        const postgres = dialect(knex()) === 'postgres';
        await knex().raw(postgres ? 'DROP TRIGGER apps_list_json ON apps' : 'DROP TRIGGER apps_list_json_insert');
        const next = await testServer({ database: instance.config.database });
        try {
            expect((await next.server.inject({ method: 'POST', url: '/v1/apps', headers: { authorization: key }, payload: { name: 'sj-after', projectId: owner.projectId } })).statusCode).to.equal(201);
            await expectListMatches(next.server);
            const stored = await knex()('apps').where({ name: 'sj-after' }).first('list_json');
            expect(JSON.parse(stored.list_json).name).to.equal('sj-after');
        }
        finally {
            await next.stop();
        }
    });
});
