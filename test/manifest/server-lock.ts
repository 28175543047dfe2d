import * as ChildProcess from 'node:child_process';
import * as Fs from 'node:fs';
import * as Os from 'node:os';
import * as Path from 'node:path';

import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { serverLockFile } from '../../lib/db/server-lock';
import { deployment } from '../../manifest';
import { testConfig } from '../helpers/server';

const { describe, it, before, after } = exports.lab = Lab.script();
const { expect } = Code;

// SQLite is one server (lib/db/server-lock.ts): whatever the test pass's database, these run on SQLite.
describe('SQLite is one server', () => {

    let dataDir: string;
    let config: ReturnType<typeof testConfig>;
    let lockFile: string;
    let other: ChildProcess.ChildProcess | null = null;

    before(() => {
        dataDir = Fs.mkdtempSync(Path.join(Os.tmpdir(), 'hostless-lock-'));
        config = testConfig(dataDir, { database: { client: 'sqlite', filename: Path.join(dataDir, 'hostless.sqlite') } });
        lockFile = serverLockFile(Path.join(dataDir, 'hostless.sqlite'));
    });

    after(() => {
        other?.kill('SIGKILL');
        Fs.rmSync(dataDir, { recursive: true, force: true });
    });

    it('holds the database while a server has a port open, and lets it go when the server stops', async () => {
        const server = await deployment({ config, start: true, log: () => { } });
        expect(Fs.readFileSync(lockFile, 'utf8').trim()).to.equal(String(process.pid));
        await server.stop();
        expect(Fs.existsSync(lockFile)).to.be.false();
    });

    it('stops a second server at boot with a sentence naming PostgreSQL, while a worker or the CLI still opens the database', async () => {
        // Another live process holds the lock, as a running server does.
        other = ChildProcess.spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
        Fs.writeFileSync(lockFile, `${other.pid}\n`);

        await expect(deployment({ config, start: true, log: () => { } })).to.reject(
            `Another Hostless server (process ${other.pid}) already serves the SQLite database ${config.database.client === 'sqlite' ? config.database.filename : ''}: SQLite is one server. ` +
            'To run more than one API process, use PostgreSQL (set DATABASE_URL); `npm run cli` and JOBS_MODE=worker processes may run beside the one server.');
        expect(Fs.readFileSync(lockFile, 'utf8').trim(), 'the holder keeps its lock').to.equal(String(other.pid));

        const worker = await deployment({ config: { ...config, jobs: { mode: 'worker', concurrency: 1 } }, log: () => { } });
        try {
            expect(await worker.app.knex('users').count({ n: '*' }).first()).to.equal({ n: 0 });
        }
        finally {
            await worker.stop();
        }

        expect(Fs.readFileSync(lockFile, 'utf8').trim(), 'a process without a port takes no lock').to.equal(String(other.pid));
    });

    it('takes over a lock whose process is gone', async () => {
        const exited = new Promise((resolve) => other!.once('exit', resolve));
        other!.kill('SIGKILL');
        await exited;

        const server = await deployment({ config, start: true, log: () => { } });
        expect(Fs.readFileSync(lockFile, 'utf8').trim()).to.equal(String(process.pid));
        await server.stop();
        other = null;
    });
});
