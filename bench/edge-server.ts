// The server side of the edge benchmark: a server under the `process` driver deploys a small Node.js app from a local
// Git repository (each request spends about 1 ms of CPU), and reports the edge's port and the app's own port, so
// the load generator can measure the app through the edge against the app served directly. The server and the app
// it starts share one CPU (the app inherits the server's affinity); the load runs on the other.
import * as ChildProcess from 'node:child_process';
import * as Fs from 'node:fs';
import * as Os from 'node:os';
import * as Path from 'node:path';

import { deployment } from '../manifest';
import { benchConfig, serve } from './serve';

export const EDGE_APP = 'bench-edge';

const APP = `
const http = require('node:http');
http.createServer((req, res) => {
    const start = process.cpuUsage();
    let spent = 0;
    while (spent < 1000) {                              // about 1 ms of CPU per request
        const used = process.cpuUsage(start);
        spent = used.user + used.system;
    }
    res.setHeader('content-type', 'application/json');
    res.end('{"ok":true}');
}).listen(Number(process.env.PORT), '127.0.0.1');
`;

async function main(): Promise<void> {
    const root = Fs.mkdtempSync(Path.join(Os.tmpdir(), 'hostless-bench-edge-'));
    Fs.chmodSync(root, 0o755);                                  // the app's own user enters its release folder below
    const repo = Path.join(root, 'repo');
    Fs.mkdirSync(repo);
    Fs.writeFileSync(Path.join(repo, 'server.js'), APP);
    const git = (...args: string[]) => ChildProcess.execFileSync('git', args, { cwd: repo, stdio: 'pipe', env: { ...process.env, GIT_AUTHOR_NAME: 'b', GIT_AUTHOR_EMAIL: 'b@example.test', GIT_COMMITTER_NAME: 'b', GIT_COMMITTER_EMAIL: 'b@example.test' } });
    git('init', '--quiet', '--initial-branch=main');
    git('add', '-A');
    git('commit', '--quiet', '-m', 'bench app');

    const dataDir = Path.join(root, 'data');
    const config = benchConfig({ DATA_DIR: dataDir, PASSWORD_HASH_COST: '1024', RUNTIME_DRIVER: 'process', RUNTIME_ALLOW_FILE_GIT: 'true', RUNTIME_SAME_USER: 'true', EDGE_FLUSH_MS: '1000' });
    const server = await deployment({ config, log: () => { }, start: true });
    const registered = await server.inject({ method: 'POST', url: '/v1/auth/register', payload: { email: 'bench@example.test', password: 'bench password' } });
    const authorization = `Bearer ${(registered.result as { accessToken: string }).accessToken}`;
    await server.inject({ method: 'POST', url: '/v1/apps', headers: { authorization }, payload: { name: EDGE_APP, startCommand: 'node server.js', repository: { provider: 'git', repo: `file://${repo}`, branch: 'main' } } });
    const created = await server.inject({ method: 'POST', url: `/v1/apps/${EDGE_APP}/deployments/new`, headers: { authorization }, payload: {} });
    const id = (created.result as { id: string }).id;
    for (; ;) {
        const state = (await server.inject({ method: 'GET', url: `/v1/apps/${EDGE_APP}/deployments/${id}`, headers: { authorization } })).result as { status: string; error: string | null };
        if (state.status === 'failed') {
            throw new Error(`The bench app's deployment failed: ${state.error}`);
        }

        if (state.status === 'live') {
            break;
        }

        await new Promise((resolve) => setTimeout(resolve, 100));
    }

    const instance = await server.app.knex('runtime_instances').where({ state: 'serving' }).first<{ port: number }>('port');
    serve({ port: server.info.port, appPort: Number(instance.port), host: `${EDGE_APP}.localhost` }, async () => {
        await server.stop();
        Fs.rmSync(root, { recursive: true, force: true });
        Fs.rmSync(`${dataDir}-runtime`, { recursive: true, force: true });
    });
}

main().catch((err) => {
    console.error(err);
    process.exit(1);
});
