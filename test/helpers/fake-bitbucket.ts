import type { Request, ResponseToolkit } from '@hapi/hapi';

import { FakeGitStore, pageOf, type StoreRepo } from './fake-git-store';
import { bearer, fakeOAuth, type FakeOAuth, type FakeOAuthOptions } from './fake-oauth';
import { fakeService, type FakeService } from './fake-service';

// Bitbucket Cloud's REST API 2.0 and its OAuth consumer, as far as the platform uses them: the user, their
// workspaces, repositories (page/pagelen with `next` in the body), branches, commits of a branch, pull requests by
// state, and the `src` form that writes files in a commit (its Location names the commit); the token endpoint
// authenticates the consumer with HTTP Basic and issues two-hour tokens with refresh tokens. Bitbucket has no
// revocation endpoint for consumers. A switch makes it answer like an outage.
export interface FakeBitbucket extends FakeService {
    login: string;
    store: FakeGitStore;
    oauth: FakeOAuth;
    workspaces: string[];
    down: boolean;
}

export async function fakeBitbucket(options: { login?: string; oauth?: Partial<FakeOAuthOptions> } = {}): Promise<FakeBitbucket> {
    const login = options.login ?? 'ada';
    const store = new FakeGitStore(login);
    const oauth = fakeOAuth({ clientAuth: 'basic', expiresIn: 7200, refresh: true, refusal: 'standard', prefix: 'bbo_', ...options.oauth });
    const workspaces: string[] = [login];
    const state = { down: false };

    const notFound = (h: ResponseToolkit) => h.response({ type: 'error', error: { message: 'Repository not found' } }).code(404);
    const repoOf = (request: Request) => store.repos.get(`${request.params.workspace}/${request.params.slug}`);
    const paged = <T>(request: Request, items: T[]) => {
        const size = Math.min(Number(request.query.pagelen ?? 10), 100);
        const number = Number(request.query.page ?? 1);
        const { items: values, more } = pageOf(items, number, size);
        const next = new URL(`${service.url}${request.url.pathname}${request.url.search}`);
        next.searchParams.set('page', String(number + 1));
        return { values, page: number, pagelen: size, size: items.length, ...(more ? { next: next.href } : {}) };
    };
    const repoJson = (repo: StoreRepo) => ({
        full_name: repo.fullName, name: repo.name, slug: repo.name, is_private: repo.private, workspace: { slug: repo.owner },
        mainbranch: { name: repo.defaultBranch }, links: { html: { href: `https://bitbucket.test/${repo.fullName}` } }, updated_on: repo.updatedAt
    });
    const byUpdate = () => [...store.repos.values()].sort((a, b) => b.updatedAt.localeCompare(a.updatedAt) || a.fullName.localeCompare(b.fullName));
    const STATES: Record<string, string> = { open: 'OPEN', merged: 'MERGED', closed: 'DECLINED' };

    const service = await fakeService([
        { method: 'POST', path: '/site/oauth2/access_token', handler: (request, h) => oauth.tokenHandler(request, h) },
        { method: 'GET', path: '/2.0/user', handler: () => ({ username: login, nickname: login, display_name: 'Ada Dev', account_id: '5b10a2844c20165700ede21g' }) },
        { method: 'GET', path: '/2.0/user/permissions/workspaces', handler: (request) => paged(request, [...workspaces].sort().map((slug) => ({ permission: 'member', workspace: { slug, name: slug.toUpperCase() } }))) },
        { method: 'GET', path: '/2.0/repositories', handler: (request) => paged(request, byUpdate().map(repoJson)) },
        {
            method: 'GET', path: '/2.0/repositories/{workspace}', handler: (request, h) => workspaces.includes(String(request.params.workspace))
                ? paged(request, byUpdate().filter((repo) => repo.owner === request.params.workspace).map(repoJson))
                : h.response({ type: 'error', error: { message: 'No workspace with identifier' } }).code(404)
        },
        {
            method: 'GET', path: '/2.0/repositories/{workspace}/{slug}/refs/branches', handler: (request, h) => {
                const repo = repoOf(request);
                return repo ? paged(request, [...repo.branches].map(([name, hash]) => ({ name, target: { hash } }))) : notFound(h);
            }
        },
        {
            method: 'GET', path: '/2.0/repositories/{workspace}/{slug}/commits/{branch*}', handler: (request, h) => {
                const repo = repoOf(request);
                const head = repo?.branches.get(decodeURIComponent(String(request.params.branch || repo.defaultBranch)));
                if (!repo || !head) {
                    return notFound(h);
                }

                return paged(request, store.history(head).map((c) => ({
                    hash: c.sha, message: c.message, date: c.author.date, author: { raw: `${c.author.name} <${c.author.email}>`, user: { display_name: c.author.name } },
                    links: { html: { href: `https://bitbucket.test/${repo.fullName}/commits/${c.sha}` } }
                })));
            }
        },
        {
            method: 'GET', path: '/2.0/repositories/{workspace}/{slug}/pullrequests', handler: (request, h) => {
                const repo = repoOf(request);
                const wanted = ([] as string[]).concat((request.query.state as string | string[] | undefined) ?? 'OPEN');
                return repo ? paged(request, repo.pulls.filter((pull) => wanted.includes(STATES[pull.state])).map((pull) => ({
                    id: pull.number, title: pull.title, state: STATES[pull.state], source: { branch: { name: pull.head }, commit: { hash: (repo.branches.get(pull.head) ?? '0'.repeat(40)).slice(0, 12) } },
                    destination: { branch: { name: pull.base } }, author: { nickname: pull.author, display_name: 'Ada Dev' },
                    links: { html: { href: `https://bitbucket.test/${repo.fullName}/pull-requests/${pull.number}` } }, updated_on: pull.updatedAt
                }))) : notFound(h);
            }
        },
        {
            method: 'POST', path: '/2.0/repositories/{workspace}/{slug}/src',
            options: { payload: { multipart: { output: 'data' }, maxBytes: 1024 * 1024 } } as never,
            handler: (request, h) => {
                const repo = repoOf(request);
                const form = request.payload as Record<string, string | Buffer>;
                const branch = String(form.branch ?? repo?.defaultBranch);
                if (!repo || !repo.branches.has(branch)) {
                    return notFound(h);
                }

                const author = /^(.*?) <(.*)>$/.exec(String(form.author ?? ''));
                let sha = '';
                for (const [field, value] of Object.entries(form).filter(([name]) => name.startsWith('/'))) {
                    sha = store.write(repo.fullName, branch, field.slice(1), value.toString(), String(form.message ?? ''), author ? { name: author[1], email: author[2] } : undefined);
                }

                return h.response().code(201).header('location', `${service.url}/2.0/repositories/${repo.fullName}/commit/${sha}`);
            }
        }
    ]);

    service.server.ext('onPreHandler', (request, h) => {
        if (state.down) {
            return h.response({ type: 'error', error: { message: 'Service unavailable' } }).code(503).takeover();
        }

        if (request.path.startsWith('/site/oauth2/')) {
            return h.continue;
        }

        return oauth.valid(bearer(request)) ? h.continue : h.response({ type: 'error', error: { message: 'Access token expired.' } }).code(401).takeover();
    });

    const fake = Object.assign(service, { login, store, oauth, workspaces, down: false });
    Object.defineProperty(fake, 'down', { get: () => state.down, set: (value: boolean) => void (state.down = value) });
    return fake;
}
