import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { LookupBatches, type Lookup } from '../../lib/db/lookup-batch';
import { caller, createKey, register } from '../helpers/api';
import { forgedKeys } from '../helpers/route-cases';
import { testServer, type TestServer } from '../helpers/server';

// Lookups by key gathered over a turn of the event loop (lib/db/lookup-batch.ts): the turn's first is read at once,
// the others together at its end; every one reads the database after it was asked, so nothing is kept.
const { describe, it, before, after } = exports.lab = Lab.script();
const { expect } = Code;

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));
const USERS: Lookup = { key: 'id', columns: 'email, disabled_at', from: 'users' };

describe('lookup batches', () => {

    it('reads the turn\'s first lookup at once and the later ones together at the end of the turn, each key once', async () => {
        const table = new Map([['a', ['A']], ['b', ['B']], ['c', ['C']]]);
        const reads: string[][] = [];
        const batches = new LookupBatches(async (lookup, keys) => {
            reads.push([...keys]);
            return keys.flatMap((key) => table.has(key) ? [[key, ...table.get(key)!]] : []);
        });

        const first = batches.get(USERS, 'a');
        expect(reads).to.equal([['a']]);                        // read before the turn ends: a lone request waits for nothing
        const later = [batches.get(USERS, 'b'), batches.get(USERS, 'missing'), batches.get(USERS, 'b'), batches.get(USERS, 'c')];
        expect(reads).to.have.length(1);
        expect(await first).to.equal(['A']);
        expect(await Promise.all(later)).to.equal([['B'], undefined, ['B'], ['C']]);
        expect(reads).to.equal([['a'], ['b', 'missing', 'c']]);

        // The next turn starts again: its first lookup is read at once, and reads the table as it is then.
        table.set('a', ['A2']);
        await nextTurn();
        expect(await batches.get(USERS, 'a')).to.equal(['A2']);
        expect(reads).to.have.length(3);
    });

    it('keeps the lookups of different statements apart', async () => {
        const OTHER: Lookup = { key: 'id', columns: 'name', from: 'projects' };
        const reads: Array<[string, string[]]> = [];
        const batches = new LookupBatches(async (lookup, keys) => {
            reads.push([lookup.from, [...keys]]);
            return keys.map((key) => [key, `${lookup.from}:${key}`]);
        });

        const answers = await Promise.all([batches.get(USERS, 'x'), batches.get(USERS, 'y'), batches.get(OTHER, 'y'), batches.get(USERS, 'z')]);
        expect(answers).to.equal([['users:x'], ['users:y'], ['projects:y'], ['users:z']]);
        expect(reads).to.equal([['users', ['x']], ['users', ['y', 'z']], ['projects', ['y']]]);
    });

    it('fails every lookup of a failed read, and reads again at the next turn', async () => {
        let fail = true;
        const batches = new LookupBatches(async (lookup, keys) => {
            if (fail) {
                throw new Error('database unreachable');
            }

            return keys.map((key) => [key, 'ok']);
        });

        const first = batches.get(USERS, 'a');
        const rest = [batches.get(USERS, 'b'), batches.get(USERS, 'c')];
        await expect(first).to.reject('database unreachable');
        for (const lookup of rest) {
            await expect(lookup).to.reject('database unreachable');
        }

        fail = false;
        await nextTurn();
        expect(await batches.get(USERS, 'a')).to.equal(['ok']);
    });

    describe('through the prepared-statement reader', () => {

        let instance: TestServer;
        const call = caller(() => instance.server);

        before(async () => {
            instance = await testServer();
        });

        after(async () => {
            await instance?.stop();
        });

        it('reads a batch\'s rows from the database as it is when the batch is read: a change shows at the next turn', async () => {
            const [one, two] = [await register(instance.server), await register(instance.server)];
            const { reader } = instance.server.plugins['hostless-auth'];
            const { knex } = instance.server.app;
            const seen: string[] = [];
            await nextTurn();
            reader.observe((sql) => seen.push(sql));
            try {
                const read = await Promise.all([reader.lookup(USERS, one.id), reader.lookup(USERS, two.id), reader.lookup(USERS, 'usr_nobody'), reader.lookup(USERS, one.id)]);
                expect(read).to.equal([[one.email, null], [two.email, null], undefined, [one.email, null]]);
                expect(seen, seen.join('\n')).to.have.length(2);
                expect(seen[1]).to.contain('FROM users WHERE id');
            }
            finally {
                reader.observe(null);
            }

            await knex('users').where({ id: two.id }).update({ disabled_at: '2026-01-01T00:00:00.000Z' });
            await nextTurn();
            const again = await Promise.all([reader.lookup(USERS, one.id), reader.lookup(USERS, two.id)]);
            expect(again).to.equal([[one.email, null], [two.email, '2026-01-01T00:00:00.000Z']]);
        });

        it('answers the same statement as objects through all() and as values in the SELECT\'s order through values()', async () => {
            const one = await register(instance.server);
            const { reader } = instance.server.plugins['hostless-auth'];
            const sql = 'SELECT email, id, disabled_at FROM users WHERE id = ?';
            const seen: string[] = [];
            reader.observe((text) => seen.push(text));
            try {
                expect(await reader.values<[string, string, null]>(sql, [one.id])).to.equal([[one.email, one.id, null]]);
                expect(await reader.all(sql, [one.id])).to.equal([{ email: one.email, id: one.id, disabled_at: null }]);
                expect(await reader.values(sql, [one.id])).to.equal([[one.email, one.id, null]]);   // each mode keeps its own
                expect(await reader.values(sql, ['usr_nobody'])).to.equal([]);
            }
            finally {
                reader.observe(null);
            }

            expect(seen).to.equal([sql, sql, sql, sql]);
        });

        it('reads every row of a key, under a fixed condition, for each of a turn\'s lookups', async () => {
            const [one, two] = [await register(instance.server), await register(instance.server)];
            for (const name of ['first', 'second']) {
                expect((await call('POST', '/v1/projects', one.session, { name: `${name} project` })).statusCode).to.equal(201);
            }

            const { reader } = instance.server.plugins['hostless-auth'];
            const MEMBERSHIPS: Lookup = { key: 'user_id', columns: 'project_id, role', from: 'memberships' };
            const OWNED: Lookup = { ...MEMBERSHIPS, where: 'role = \'owner\'' };
            const read = await Promise.all([
                reader.lookupAll<[string, string]>(MEMBERSHIPS, one.id), reader.lookupAll<[string, string]>(MEMBERSHIPS, two.id),
                reader.lookupAll<[string, string]>(MEMBERSHIPS, 'usr_nobody'), reader.lookupAll<[string, string]>(OWNED, one.id)
            ]);
            const { knex } = instance.server.app;
            const stored = async (userId: string) => (await knex('memberships').where({ user_id: userId }).select('project_id', 'role')).map((row: { project_id: string; role: string }): [string, string] => [row.project_id, row.role]);
            const sorted = (rows: Array<[string, string]>) => [...rows].sort((a, b) => a[0] < b[0] ? -1 : 1);
            expect(sorted(read[0])).to.equal(sorted(await stored(one.id)));
            expect(read[0]).to.have.length(3);                  // the personal project and the two made above
            expect(sorted(read[1])).to.equal(sorted(await stored(two.id)));
            expect(read[2]).to.equal([]);
            expect(sorted(read[3])).to.equal(sorted(read[0]));  // the owner of all three
        });

        it('answers each of a turn\'s requests with its own credential: other users, a revoked key and a wrong secret among them', async () => {
            const users = [await register(instance.server), await register(instance.server), await register(instance.server)];
            const keys = await Promise.all(users.map((user) => createKey(instance.server, user, ['projects:read'])));
            const revoked = await createKey(instance.server, users[0], ['projects:read']);
            expect((await call('DELETE', `/v1/users/me/api-keys/${revoked.id}`, users[0].session)).statusCode).to.equal(200);
            const wrongSecret = forgedKeys(keys[1].token)['a wrong secret'];

            const { reader } = instance.server.plugins['hostless-auth'];
            const seen: string[] = [];
            reader.observe((sql) => seen.push(sql));
            let answers;
            try {
                const tokens = [keys[0].token, keys[1].token, revoked.token, keys[2].token, wrongSecret, keys[0].token];
                answers = await Promise.all(tokens.map((token) => instance.server.inject({ method: 'GET', url: '/v1/auth/introspect', headers: { authorization: token } })));
            }
            finally {
                reader.observe(null);
            }

            expect(answers.map((res) => res.statusCode)).to.equal([200, 200, 401, 200, 401, 200]);
            expect(answers.map((res) => res.statusCode === 200 ? (res.result as { userId: string }).userId : null)).to.equal([users[0].id, users[1].id, null, users[2].id, null, users[0].id]);
            const credentialReads = seen.filter((sql) => sql.includes('FROM api_keys'));
            expect(credentialReads.length, seen.join('\n')).to.be.between(1, 3);     // not one a request: the turn's reads go together
        });
    });
});
