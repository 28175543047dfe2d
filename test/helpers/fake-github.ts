import * as Crypto from 'node:crypto';

import type { Request, ResponseToolkit } from '@hapi/hapi';

import { bearer, fakeOAuth, type FakeOAuth, type FakeOAuthOptions } from './fake-oauth';
import { fakeService, type FakeService } from './fake-service';

// GitHub's REST API as far as the platform uses it, in memory: the user and their organisations, repositories with
// branches, commits and files, pull requests, bearer-token auth, page/per_page pagination with Link headers, and
// switches that make it answer like an exhausted rate limit or like an outage. Its OAuth app: the token endpoint
// (`/login/oauth/access_token`, answering a bad code with 200 and `error` as GitHub does) and token revocation
// (`DELETE /applications/{client_id}/token`); `oauth.approve(login)` mints the code a user's approval would.
interface Commit {
    sha: string;
    message: string;
    author: { name: string; email: string; date: string };
    parent: string | null;
    files: Map<string, string>;
}

interface Repo {
    owner: string;
    name: string;
    private: boolean;
    defaultBranch: string;
    branches: Map<string, string>;                              // name -> head sha
    pulls: Array<{ number: number; title: string; state: 'open' | 'closed'; merged: boolean; head: string; base: string; author: string }>;
}

export interface FakeGitHub extends FakeService {
    token: string;
    login: string;
    rateLimited: boolean;
    down: boolean;
    oauth: FakeOAuth;
    addOrg(login: string): void;
    addRepo(fullName: string, options?: { private?: boolean; files?: Record<string, string>; branch?: string }): void;
    addCommit(fullName: string, branch: string, message: string, files?: Record<string, string>): string;
    addPull(fullName: string, pull: { title: string; head: string; base?: string; state?: 'open' | 'closed'; merged?: boolean; number?: number }): number;
    file(fullName: string, branch: string, path: string): string | undefined;
}

export async function fakeGitHub(options: { login?: string; token?: string; oauth?: Partial<FakeOAuthOptions> } = {}): Promise<FakeGitHub> {
    const login = options.login ?? 'octo-dev';
    const token = options.token ?? `ghp_${Crypto.randomBytes(18).toString('hex')}`;
    const orgs: string[] = [];
    const repos = new Map<string, Repo>();
    const commits = new Map<string, Commit>();
    let updatedAt = Date.parse('2026-01-01T00:00:00Z');
    const state = { rateLimited: false, down: false };
    const oauth = fakeOAuth({ clientAuth: 'body', expiresIn: null, refresh: false, refusal: 'github', prefix: 'gho_', ...options.oauth });

    const commit = (message: string, parent: string | null, files: Map<string, string>) => {
        const sha = Crypto.createHash('sha1').update(`${message}:${parent}:${Math.random()}`).digest('hex');
        commits.set(sha, { sha, message, parent, files, author: { name: 'Octo Dev', email: 'octo@example.test', date: new Date(updatedAt += 60_000).toISOString() } });
        return sha;
    };

    const repoOf = (request: Request) => repos.get(`${request.params.owner}/${request.params.repo}`);
    const notFound = (h: ResponseToolkit) => h.response({ message: 'Not Found' }).code(404);
    const page = <T>(request: Request, h: ResponseToolkit, items: T[]) => {
        const perPage = Math.min(Number(request.query.per_page ?? 30), 100);
        const number = Number(request.query.page ?? 1);
        const response = h.response(items.slice((number - 1) * perPage, number * perPage));
        if (number * perPage < items.length) {
            const next = new URL(request.url.href);
            next.searchParams.set('page', String(number + 1));
            response.header('link', `<${service.url}${next.pathname}${next.search}>; rel="next"`);
        }

        return response;
    };

    const repoJson = (repo: Repo) => ({
        full_name: `${repo.owner}/${repo.name}`, name: repo.name, owner: { login: repo.owner }, private: repo.private,
        default_branch: repo.defaultBranch, html_url: `https://github.test/${repo.owner}/${repo.name}`, updated_at: new Date(updatedAt).toISOString()
    });

    const history = (sha: string | undefined) => {
        const list: Commit[] = [];
        for (let current = sha ? commits.get(sha) : undefined; current; current = current.parent ? commits.get(current.parent) : undefined) {
            list.push(current);
        }

        return list;
    };

    const service = await fakeService([
        // The authorization page, as a user who approves at once: back to the redirect URI with a code and the state.
        {
            method: 'GET', path: '/login/oauth/authorize', handler: (request, h) => {
                const query = request.query as Record<string, string>;
                if (query.client_id !== oauth.clientId || !query.redirect_uri) {
                    return h.response('The client is not registered').code(404);
                }

                const back = new URL(query.redirect_uri);
                back.searchParams.set('code', oauth.approve(login));
                back.searchParams.set('state', query.state ?? '');
                return h.redirect(back.href);
            }
        },
        { method: 'POST', path: '/login/oauth/access_token', handler: (request, h) => oauth.tokenHandler(request, h) },
        {
            method: 'DELETE', path: '/applications/{clientId}/token', handler: (request, h) => {
                const basic = Buffer.from(String(request.headers.authorization ?? '').replace(/^Basic /, ''), 'base64').toString();
                if (request.params.clientId !== oauth.clientId || basic !== `${oauth.clientId}:${oauth.clientSecret}`) {
                    return h.response({ message: 'Not Found' }).code(404);
                }

                return oauth.revoke(String((request.payload as { access_token?: string } | null)?.access_token)) ? h.response().code(204) : h.response({ message: 'Not Found' }).code(404);
            }
        },
        { method: 'GET', path: '/user', handler: () => ({ login, name: 'Octo Dev', type: 'User' }) },
        { method: 'GET', path: '/user/orgs', handler: (request, h) => page(request, h, orgs.map((org) => ({ login: org }))) },
        { method: 'GET', path: '/user/repos', handler: (request, h) => page(request, h, [...repos.values()].filter((repo) => repo.owner === login).map(repoJson)) },
        {
            method: 'GET', path: '/orgs/{org}/repos', handler: (request, h) => orgs.includes(String(request.params.org))
                ? page(request, h, [...repos.values()].filter((repo) => repo.owner === String(request.params.org)).map(repoJson))
                : notFound(h)
        },
        {
            method: 'GET', path: '/repos/{owner}/{repo}/branches', handler: (request, h) => {
                const repo = repoOf(request);
                return repo ? page(request, h, [...repo.branches].map(([name, sha]) => ({ name, commit: { sha } }))) : notFound(h);
            }
        },
        {
            method: 'GET', path: '/repos/{owner}/{repo}/commits', handler: (request, h) => {
                const repo = repoOf(request);
                const head = repo?.branches.get(String(request.query.sha ?? repo.defaultBranch));
                if (!repo || !head) {
                    return notFound(h);
                }

                return page(request, h, history(head).map((c) => ({ sha: c.sha, commit: { message: c.message, author: c.author }, html_url: `https://github.test/commit/${c.sha}` })));
            }
        },
        {
            method: 'GET', path: '/repos/{owner}/{repo}/pulls', handler: (request, h) => {
                const repo = repoOf(request);
                const wanted = String(request.query.state ?? 'open');
                return repo ? page(request, h, repo.pulls.filter((pull) => wanted === 'all' || pull.state === wanted).map((pull) => ({
                    number: pull.number, title: pull.title, state: pull.state, merged_at: pull.merged ? new Date(updatedAt).toISOString() : null,
                    head: { ref: pull.head, sha: repo.branches.get(pull.head) ?? '0'.repeat(40) }, base: { ref: pull.base },
                    user: { login: pull.author }, html_url: `https://github.test/${repo.owner}/${repo.name}/pull/${pull.number}`, updated_at: new Date(updatedAt).toISOString()
                }))) : notFound(h);
            }
        },
        {
            method: 'GET', path: '/repos/{owner}/{repo}/contents/{path*}', handler: (request, h) => {
                const repo = repoOf(request);
                const head = repo?.branches.get(String(request.query.ref ?? repo.defaultBranch));
                const content = head ? commits.get(head)!.files.get(String(request.params.path)) : undefined;
                if (content === undefined) {
                    return notFound(h);
                }

                return { path: String(request.params.path), sha: Crypto.createHash('sha1').update(content).digest('hex'), content: Buffer.from(content).toString('base64'), encoding: 'base64' };
            }
        },
        {
            method: 'PUT', path: '/repos/{owner}/{repo}/contents/{path*}', handler: (request, h) => {
                const repo = repoOf(request);
                const body = request.payload as { message?: string; content?: string; branch?: string; sha?: string };
                const branch = body.branch ?? repo?.defaultBranch;
                const head = branch ? repo?.branches.get(branch) : undefined;
                if (!repo || !head) {
                    return notFound(h);
                }

                const files = new Map(commits.get(head)!.files);
                const current = files.get(String(request.params.path));
                if (current !== undefined && body.sha !== Crypto.createHash('sha1').update(current).digest('hex')) {
                    return h.response({ message: current !== undefined && !body.sha ? '"sha" wasn\'t supplied.' : 'sha does not match' }).code(body.sha ? 409 : 422);
                }

                files.set(String(request.params.path), Buffer.from(body.content ?? '', 'base64').toString('utf8'));
                const sha = commit(body.message ?? '', head, files);
                repo.branches.set(branch!, sha);
                return h.response({ content: { path: request.params.path }, commit: { sha, html_url: `https://github.test/commit/${sha}` } }).code(current === undefined ? 201 : 200);
            }
        }
    ]);

    service.server.ext('onPreHandler', (request, h) => {
        if (state.down) {
            return h.response({ message: 'Service Unavailable' }).code(503).takeover();
        }

        if (request.path.startsWith('/login/oauth/') || request.path.startsWith('/applications/')) {
            return h.continue;
        }

        if (request.headers.authorization !== `Bearer ${token}` && !oauth.valid(bearer(request))) {
            return h.response({ message: 'Bad credentials' }).code(401).takeover();
        }

        if (state.rateLimited) {
            return h.response({ message: 'API rate limit exceeded' }).code(403).header('x-ratelimit-remaining', '0').takeover();
        }

        return h.continue;
    });

    const fake: FakeGitHub = Object.assign(service, {
        token,
        login,
        rateLimited: false,
        down: false,
        oauth,
        addOrg: (org: string) => void orgs.push(org),
        addRepo: (fullName: string, repoOptions: { private?: boolean; files?: Record<string, string>; branch?: string } = {}) => {
            const [owner, name] = fullName.split('/') as [string, string];
            const branch = repoOptions.branch ?? 'main';
            const sha = commit('Initial commit', null, new Map(Object.entries(repoOptions.files ?? { 'README.md': `# ${name}\n` })));
            repos.set(fullName, { owner, name, private: repoOptions.private ?? false, defaultBranch: branch, branches: new Map([[branch, sha]]), pulls: [] });
        },
        addCommit: (fullName: string, branch: string, message: string, files: Record<string, string> = {}) => {
            const repo = repos.get(fullName)!;
            const parent = repo.branches.get(branch) ?? repo.branches.get(repo.defaultBranch)!;
            const sha = commit(message, parent, new Map([...commits.get(parent)!.files, ...Object.entries(files)]));
            repo.branches.set(branch, sha);
            return sha;
        },
        addPull: (fullName: string, pull: { title: string; head: string; base?: string; state?: 'open' | 'closed'; merged?: boolean; number?: number }) => {
            const repo = repos.get(fullName)!;
            const number = pull.number ?? repo.pulls.length + 1;
            repo.pulls.push({ number, title: pull.title, head: pull.head, base: pull.base ?? repo.defaultBranch, state: pull.state ?? 'open', merged: pull.merged ?? false, author: login });
            return number;
        },
        file: (fullName: string, branch: string, path: string) => {
            const head = repos.get(fullName)?.branches.get(branch);
            return head ? commits.get(head)!.files.get(path) : undefined;
        }
    });

    // Object.assign copies values, not accessors: the switch is defined on the result.
    Object.defineProperty(fake, 'rateLimited', { get: () => state.rateLimited, set: (value: boolean) => void (state.rateLimited = value) });
    Object.defineProperty(fake, 'down', { get: () => state.down, set: (value: boolean) => void (state.down = value) });
    return fake;
}
