import * as Fs from 'node:fs';
import * as Os from 'node:os';
import * as Path from 'node:path';

import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { createKnex, dialect } from '../../lib/db/knex';
import { MIGRATIONS } from '../../lib/db/migrations';
import { testServer } from '../helpers/server';

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

    it('migrates a fresh database at boot and leaves a migrated one as it is', async () => {
        const first = await testServer();
        const again = await testServer({ database: first.config.database, sessionSecret: first.config.sessionSecret });
        try {
            const rows = await again.server.app.knex('knex_migrations').select('name');
            expect(rows.map((row: { name: string }) => row.name)).to.equal(MIGRATIONS.map((migration) => migration.name));
        }
        finally {
            await again.stop();
            await first.stop();
        }
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
});
