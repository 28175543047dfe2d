import * as ChildProcess from 'node:child_process';
import * as Http from 'node:http';
import type { AddressInfo } from 'node:net';

// A Git smart-HTTP server on 127.0.0.1: git's own `git http-backend` behind a small CGI bridge, serving the bare
// repositories under `root` to a client that signs in with HTTP Basic as `username` with `password`. Every
// backend it starts is recorded, so a test can check that none is left running.
export interface GitHttpServer {
    url: string;
    signIns: Array<{ username: string; accepted: boolean }>;
    children: number[];
    stop(): Promise<void>;
}

export async function gitHttpServer(options: { root: string; username: string; password: string }): Promise<GitHttpServer> {
    const signIns: GitHttpServer['signIns'] = [];
    const children: number[] = [];
    const server = Http.createServer((req, res) => {
        const basic = /^Basic (.+)$/.exec(req.headers.authorization ?? '')?.[1];
        const [username, ...rest] = basic ? Buffer.from(basic, 'base64').toString('utf8').split(':') : [];
        const accepted = username === options.username && rest.join(':') === options.password;
        if (!basic || !accepted) {
            if (basic) {
                signIns.push({ username: username ?? '', accepted: false });
            }

            res.writeHead(401, { 'www-authenticate': 'Basic realm="git"' }).end();
            return;
        }

        signIns.push({ username: username, accepted: true });
        const url = new URL(req.url!, 'http://local');
        const backend = ChildProcess.spawn('git', ['http-backend'], {
            env: {
                PATH: process.env.PATH, GIT_PROJECT_ROOT: options.root, GIT_HTTP_EXPORT_ALL: '1', REQUEST_METHOD: req.method!, PATH_INFO: decodeURIComponent(url.pathname),
                QUERY_STRING: url.search.slice(1), CONTENT_TYPE: req.headers['content-type'] ?? '', REMOTE_USER: username, REMOTE_ADDR: '127.0.0.1',
                ...(req.headers['content-encoding'] ? { HTTP_CONTENT_ENCODING: String(req.headers['content-encoding']) } : {}),
                ...(req.headers['git-protocol'] ? { GIT_PROTOCOL: String(req.headers['git-protocol']) } : {})
            }
        });
        children.push(backend.pid!);
        req.pipe(backend.stdin);
        const chunks: Buffer[] = [];
        backend.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
        backend.on('close', () => {
            const output = Buffer.concat(chunks);
            const split = output.indexOf('\r\n\r\n') >= 0 ? output.indexOf('\r\n\r\n') : output.indexOf('\n\n');
            const gap = output.indexOf('\r\n\r\n') >= 0 ? 4 : 2;
            const head = output.subarray(0, split).toString('utf8');
            const headers: Record<string, string> = {};
            let status = 200;
            for (const line of head.split(/\r?\n/).filter(Boolean)) {
                const [name, ...value] = line.split(':');
                if (name.toLowerCase() === 'status') {
                    status = Number.parseInt(value.join(':').trim(), 10);
                }
                else {
                    headers[name.trim()] = value.join(':').trim();
                }
            }

            res.writeHead(status, headers).end(output.subarray(split + gap));
        });
    });

    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return {
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        signIns,
        children,
        stop: () => new Promise((resolve) => {
            server.closeAllConnections();
            server.close(() => resolve());
        })
    };
}
