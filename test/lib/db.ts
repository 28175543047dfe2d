import * as Crypto from 'node:crypto';
import * as Fs from 'node:fs';
import * as Os from 'node:os';
import * as Path from 'node:path';

import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import knexFactory from 'knex';

import { bulkInsert, type BulkColumn } from '../../lib/db/bulk-insert';
import { createKnex, databaseLog, dialect, type DatabaseConfig } from '../../lib/db/knex';
import { MIGRATIONS } from '../../lib/db/migrations';
import { postgresUrl, testServer, usePostgres } from '../helpers/server';

const { describe, it } = exports.lab = Lab.script();
const { expect } = Code;

describe('database', () => {

    it('runs SQLite in WAL mode with synchronous=FULL, foreign keys and a busy timeout', async () => {
        const instance = await testServer();
        try {
            const knex = instance.server.app.knex;
            if (dialect(knex) !== 'sqlite') {
                // PostgreSQL pass: durability is the server's own setting, which must not be relaxed.
                const [row] = (await knex.raw('SHOW synchronous_commit')).rows;
                expect(row.synchronous_commit).to.equal('on');
                return;
            }

            const pragma = async (name: string) => Object.values((await knex.raw(`PRAGMA ${name}`))[0])[0];
            expect(await pragma('journal_mode')).to.equal('wal');
            expect(await pragma('synchronous')).to.equal(2);
            expect(await pragma('foreign_keys')).to.equal(1);
            expect(await pragma('busy_timeout')).to.equal(5000);
        }
        finally {
            await instance.stop();
        }
    });

    it('migrates an empty database at boot and leaves a migrated one as it is', async () => {
        // Test servers start from a copy of a migrated database (helpers/server.ts): this one is given an empty one.
        const dir = Fs.mkdtempSync(Path.join(Os.tmpdir(), 'hostless-empty-'));
        const schema = `e_${Crypto.randomBytes(6).toString('hex')}`;
        const admin = usePostgres ? knexFactory({ client: 'pg', connection: postgresUrl! }) : null;
        await admin?.raw(`CREATE SCHEMA ${schema}`);
        const database: DatabaseConfig = admin ? { client: 'postgres', connectionString: postgresUrl!, searchPath: schema } : { client: 'sqlite', filename: Path.join(dir, 'empty.sqlite') };
        const first = await testServer({ database });
        const again = await testServer({ database, sessionSecret: first.config.sessionSecret });
        try {
            for (const instance of [first, again]) {
                const rows = await instance.server.app.knex('knex_migrations').orderBy('id').select('name');
                expect(rows.map((row: { name: string }) => row.name)).to.equal(MIGRATIONS.map((migration) => migration.name));
            }
        }
        finally {
            await again.stop();
            await first.stop();
            await admin?.raw(`DROP SCHEMA ${schema} CASCADE`);
            await admin?.destroy();
            Fs.rmSync(dir, { recursive: true, force: true });
        }
    });

    it('writes what knex says of itself as JSON lines of the server\'s log, with credentials redacted', async () => {
        const lines: string[] = [];
        const knex = createKnex({ client: 'sqlite', filename: ':memory:' }, (line) => lines.push(line));
        try {
            const logger = (knex.client as { logger: { warn(message: unknown): void; error(message: unknown): void; deprecate(method: string, alternative: string): void } }).logger;
            logger.warn('Connection Error: Error: Connection ended unexpectedly');
            logger.error({ code: 'E1', token: 'svk_abcdefghij_0123456789012345678901234567890123456789' });
            logger.deprecate('knex.old', 'knex.new');
            const parsed = lines.map((line) => JSON.parse(line) as Record<string, string>);
            expect(lines.every((line) => line.endsWith('}\n'))).to.be.true();
            expect(parsed.map(({ level, source }) => `${level} ${source}`)).to.equal(['warn database', 'error database', 'warn database']);
            expect(parsed[0].message).to.equal('Connection Error: Error: Connection ended unexpectedly');
            expect(parsed[1].message).to.include('E1');
            expect(lines[1]).to.not.include('0123456789012345678901234567890123456789');
            expect(parsed[2].message).to.equal('knex.old is deprecated, please use knex.new');
            expect(Number.isNaN(Date.parse(parsed[0].time))).to.be.false();
        }
        finally {
            await knex.destroy();
        }

        expect(databaseLog(() => undefined)).to.include(['warn', 'error', 'deprecate']);
    });

    describe('SQLite files', () => {

        const mode = (file: string) => Fs.statSync(file).mode & 0o777;

        it('creates the data folder 0700 and the database, -wal and -shm files 0600', async () => {
            const root = Fs.mkdtempSync(Path.join(Os.tmpdir(), 'hostless-modes-'));
            const filename = Path.join(root, 'data', 'hostless.sqlite');
            const knex = createKnex({ client: 'sqlite', filename });
            try {
                await knex.raw('CREATE TABLE t (x INTEGER)');
                await knex('t').insert({ x: 1 });
                expect(mode(Path.dirname(filename))).to.equal(0o700);
                for (const file of [filename, `${filename}-wal`, `${filename}-shm`]) {
                    expect(mode(file), file).to.equal(0o600);
                }
            }
            finally {
                await knex.destroy();
                Fs.rmSync(root, { recursive: true, force: true });
            }
        });

        it('narrows the files of an earlier run that were readable by others to 0600', async () => {
            const root = Fs.mkdtempSync(Path.join(Os.tmpdir(), 'hostless-modes-'));
            const filename = Path.join(root, 'hostless.sqlite');
            for (const file of [filename, `${filename}-wal`]) {
                Fs.writeFileSync(file, '', { mode: 0o644 });
                Fs.chmodSync(file, 0o644);
            }

            const knex = createKnex({ client: 'sqlite', filename });
            try {
                await knex.raw('CREATE TABLE t (x INTEGER)');
                for (const file of [filename, `${filename}-wal`, `${filename}-shm`]) {
                    expect(mode(file), file).to.equal(0o600);
                }
            }
            finally {
                await knex.destroy();
                Fs.rmSync(root, { recursive: true, force: true });
            }
        });
    });

    describe('bulk insert', () => {

        const COLUMNS: readonly BulkColumn[] = [{ name: 'label' }, { name: 'note' }, { name: 'big', pgType: 'bigint' }, { name: 'ratio', pgType: 'double precision' }, { name: 'flag', pgType: 'boolean' }, { name: 'count', pgType: 'integer' }];

        it('writes every row in order, with its types, nulls and any text, in one statement past both databases\' parameter limits', async () => {
            const instance = await testServer();
            const knex = instance.server.app.knex;
            try {
                await knex.schema.createTable('bulk_insert_test', (t) => {
                    t.increments('seq');
                    t.string('label', 64).notNullable();
                    t.text('note');
                    t.bigInteger('big').notNullable();
                    t.double('ratio').notNullable();
                    t.boolean('flag').notNullable();
                    t.integer('count').notNullable();
                });
                // 12,000 rows of 6 values: 72,000, past SQLite's 32,766 and PostgreSQL's 65,535 placeholders.
                const rows = Array.from({ length: 12_000 }, (_, i) => [`row ${i} "quoted" 'single' ✓ \\ \n`, i % 3 ? null : `note ${i}`, 1_700_000_000_000 + i, i / 4, i % 2 === 0, i]);
                const statements: string[] = [];
                const listener = (query: { sql: string }) => statements.push(query.sql);
                knex.on('query', listener);
                await bulkInsert(knex, 'bulk_insert_test', COLUMNS, rows);
                knex.off('query', listener);
                expect(statements).to.have.length(1);

                const stored = await knex('bulk_insert_test').orderBy('seq').select('label', 'note', 'big', 'ratio', 'flag', 'count');
                expect(stored).to.have.length(rows.length);
                stored.forEach((row: Record<string, unknown>, i: number) => {
                    const [label, note, big, ratio, flag, count] = rows[i];
                    expect([row.label, row.note, Number(row.big), Number(row.ratio), !!row.flag, Number(row.count)]).to.equal([label, note, big, ratio, flag, count]);
                });

                await bulkInsert(knex, 'bulk_insert_test', COLUMNS, []);
                expect(await knex('bulk_insert_test').count({ n: '*' }).first()).to.equal({ n: dialect(knex) === 'postgres' ? '12000' : 12000 });
            }
            finally {
                await knex.schema.dropTableIfExists('bulk_insert_test');
                await instance.stop();
            }
        });

        it('writes nothing when a row breaks a constraint (one statement: all or none)', async () => {
            const instance = await testServer();
            const knex = instance.server.app.knex;
            try {
                await knex.schema.createTable('bulk_insert_test', (t) => {
                    t.string('label', 64).notNullable();
                });
                await expect(bulkInsert(knex, 'bulk_insert_test', [{ name: 'label' }], [['one'], [null], ['three']])).to.reject();
                expect(await knex('bulk_insert_test').select('label')).to.equal([]);
            }
            finally {
                await knex.schema.dropTableIfExists('bulk_insert_test');
                await instance.stop();
            }
        });
    });
});
