import * as ChildProcess from 'node:child_process';
import * as Fs from 'node:fs';
import * as Os from 'node:os';
import * as Path from 'node:path';
import * as Util from 'node:util';

import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { cloneCredentials } from '../../lib/git/clone';
import { register, type TestUser } from '../helpers/api';
import { createApp } from '../helpers/apps';
import { gitHttpServer, type GitHttpServer } from '../helpers/git-http';
import { testServer, type TestServer } from '../helpers/server';

// What the process runtime clones with: a real `git clone` over HTTPS-style smart HTTP (git's http-backend behind a
// CGI bridge on 127.0.0.1), authenticated with the project's connection through GIT_ASKPASS, with the token in no
// URL, no argument, no git configuration and no file left behind.
const { describe, it, before, after } = exports.lab = Lab.script();
const { expect } = Code;

const execFile = Util.promisify(ChildProcess.execFile);
const TOKEN = 'gho_clonetokenclonetokenclonetoken0123';

describe('cloning with a connection\'s token', () => {

    let work: string;
    let git: GitHttpServer;
    let instance: TestServer;
    let owner: TestUser;
    let app: { name: string; projectId: string; id: string };
    // git run as a runtime would run it: no user or system configuration, nothing to prompt with.
    const baseEnv = () => ({ PATH: process.env.PATH!, HOME: Path.join(work, 'home'), GIT_CONFIG_NOSYSTEM: '1', GIT_TERMINAL_PROMPT: '0' });
    const settings = () => ({ name: app.name, projectId: app.projectId, repoProvider: 'github' as const, repoName: 'acme/shop', repoBranch: 'main' });
    const run = (args: string[], env: Record<string, string> = {}, cwd = work) => execFile('git', args, { cwd, env: { ...baseEnv(), ...env } });

    before(async () => {
        work = Fs.mkdtempSync(Path.join(Os.tmpdir(), 'hostless-clone-'));
        Fs.mkdirSync(Path.join(work, 'home'));
        const source = Path.join(work, 'source');
        await run(['init', '-q', '-b', 'main', source]);
        Fs.writeFileSync(Path.join(source, 'server.js'), 'console.log("hi")\n');
        await run(['add', '.'], {}, source);
        await run(['-c', 'user.name=Ada', '-c', 'user.email=ada@example.test', 'commit', '-q', '-m', 'First'], {}, source);
        Fs.mkdirSync(Path.join(work, 'root', 'acme'), { recursive: true });
        await run(['clone', '-q', '--bare', source, Path.join(work, 'root', 'acme', 'shop.git')]);

        git = await gitHttpServer({ root: Path.join(work, 'root'), username: 'x-access-token', password: TOKEN });
        instance = await testServer({ github: { apiUrl: `${git.url}/api/v3`, webUrl: git.url, clientId: 'id', clientSecret: 'secret-secret' } });
        owner = await register(instance.server, 'cloner');
        app = await createApp(instance.server, owner, { repository: { provider: 'github', repo: 'acme/shop', branch: 'main' } });
        await instance.server.plugins['hostless-resources'].services.git.store({
            projectId: owner.projectId, provider: 'github', account: { login: 'ada', name: null }, userId: owner.id,
            tokens: { accessToken: TOKEN, refreshToken: null, expiresAt: null, scopes: 'repo' }
        });
    });

    after(async () => {
        await instance?.stop();
        await git?.stop();
        Fs.rmSync(work, { recursive: true, force: true });
    });

    it('clones the resource\'s branch with the token, never in the URL, the arguments or the clone\'s configuration', async () => {
        const clone = await cloneCredentials(instance.server.plugins['hostless-resources'].services.git, settings(), 'app', `/v1/apps/${app.name}`, { tmpDir: work });
        const target = Path.join(work, 'checkout');
        const args = ['clone', '-q', '--branch', clone.branch, clone.url, target];
        try {
            expect(clone.url).to.equal(`${git.url}/acme/shop.git`);
            expect(JSON.stringify(args)).to.not.include(TOKEN);
            expect(JSON.stringify(clone.env)).to.not.include(TOKEN);
            const helperDir = Path.dirname(clone.env.GIT_ASKPASS);
            expect(Fs.statSync(helperDir).mode & 0o777).to.equal(0o700);
            expect(Fs.statSync(Path.join(helperDir, 'token')).mode & 0o777).to.equal(0o600);

            await run(args, clone.env);
            expect(Fs.readFileSync(Path.join(target, 'server.js'), 'utf8')).to.equal('console.log("hi")\n');
            expect(git.signIns.filter((signIn) => signIn.accepted).map((signIn) => signIn.username)).to.include('x-access-token');
            expect(Fs.readFileSync(Path.join(target, '.git', 'config'), 'utf8')).to.not.include(TOKEN);
            expect(Fs.readdirSync(Path.join(work, 'home'))).to.equal([]);     // no credential store was written
        }
        finally {
            await clone.dispose();
        }

        expect(Fs.existsSync(Path.dirname(clone.env.GIT_ASKPASS)), 'the helper and the token file are gone').to.be.false();
    });

    it('is refused by the host without the helper, or with another token', async () => {
        const clone = await cloneCredentials(instance.server.plugins['hostless-resources'].services.git, settings(), 'app', `/v1/apps/${app.name}`, { tmpDir: work });
        try {
            await expect(run(['clone', '-q', clone.url, Path.join(work, 'no-helper')])).to.reject();
            Fs.writeFileSync(Path.join(Path.dirname(clone.env.GIT_ASKPASS), 'token'), 'gho_wrong');
            await expect(run(['clone', '-q', clone.url, Path.join(work, 'wrong-token')], clone.env)).to.reject();
            expect(git.signIns.some((signIn) => !signIn.accepted)).to.be.true();
        }
        finally {
            await clone.dispose();
        }
    });

    it('leaves no git process running', () => {
        expect(git.children.length).to.be.above(0);
        for (const pid of git.children) {
            expect(() => process.kill(pid, 0), `git http-backend ${pid}`).to.throw();
        }
    });
});
