import type { Request, ResponseToolkit } from '@hapi/hapi';

import { FakeGitStore, type StoreRepo } from './fake-git-store';
import { bearer, fakeOAuth, type FakeOAuth, type FakeOAuthOptions } from './fake-oauth';
import { fakeService, type FakeService } from './fake-service';

// Bitbucket Data Center's REST API 1.0 and its OAuth 2.0 incoming application link, as far as the platform uses
// them: the signed-in user named in the X-AUSERNAME header of every answer, projects and their repositories
// (start/limit, isLastPage, nextPageStart), branches, commits until a branch, pull requests, and browse (GET to
// see a file, a multipart PUT to write one, refused without sourceCommitId when it exists). The token endpoint
// takes the client in the body. A switch makes it answer like an outage.
export interface FakeBitbucketServer extends FakeService {
    login: string;
    store: FakeGitStore;
    oauth: FakeOAuth;
    projects: string[];
    down: boolean;
}

const API = '/rest/api/1.0';
const branchOf = (ref: unknown, fallback: string) => String(ref ?? fallback).replace(/^refs\/heads\//, '');

export async function fakeBitbucketServer(options: { login?: string; oauth?: Partial<FakeOAuthOptions> } = {}): Promise<FakeBitbucketServer> {
    const login = options.login ?? 'ada';
    const store = new FakeGitStore(login);
    const oauth = fakeOAuth({ clientAuth: 'body', expiresIn: 3600, refresh: true, refusal: 'standard', prefix: 'bdc_', ...options.oauth });
    const projects: string[] = [];
    const state = { down: false };

    const notFound = (h: ResponseToolkit) => h.response({ errors: [{ message: 'Repository does not exist.' }] }).code(404);
    const repoOf = (request: Request) => store.repos.get(`${request.params.key}/${request.params.slug}`);
    const paged = <T>(request: Request, items: T[]) => {
        const limit = Math.min(Number(request.query.limit ?? 25), 1000);
        const start = Number(request.query.start ?? 0);
        const values = items.slice(start, start + limit);
        const last = start + limit >= items.length;
        return { values, start, limit, size: values.length, isLastPage: last, ...(last ? {} : { nextPageStart: start + limit }) };
    };
    const repoJson = (repo: StoreRepo) => ({
        slug: repo.name, name: repo.name, project: { key: repo.owner }, public: !repo.private,
        links: { self: [{ href: `${service.url}/projects/${repo.owner}/repos/${repo.name}/browse` }] }
    });
    const sorted = () => [...store.repos.values()].sort((a, b) => a.fullName.localeCompare(b.fullName));
    const STATES: Record<string, string> = { open: 'OPEN', merged: 'MERGED', closed: 'DECLINED' };

    const service = await fakeService([
        { method: 'POST', path: '/rest/oauth2/latest/token', handler: (request, h) => oauth.tokenHandler(request, h) },
        { method: 'GET', path: `${API}/application-properties`, handler: () => ({ version: '9.4.0', displayName: 'Bitbucket' }) },
        { method: 'GET', path: `${API}/users/{slug}`, handler: (request, h) => request.params.slug === login ? { name: login, slug: login, displayName: 'Ada Dev' } : h.response({ errors: [{ message: 'No such user' }] }).code(404) },
        { method: 'GET', path: `${API}/projects`, handler: (request) => paged(request, [...projects].sort().map((key) => ({ key, name: `Project ${key}` }))) },
        { method: 'GET', path: `${API}/repos`, handler: (request) => paged(request, sorted().map(repoJson)) },
        {
            method: 'GET', path: `${API}/projects/{key}/repos`, handler: (request, h) => projects.includes(String(request.params.key))
                ? paged(request, sorted().filter((repo) => repo.owner === request.params.key).map(repoJson))
                : h.response({ errors: [{ message: 'Project does not exist.' }] }).code(404)
        },
        {
            method: 'GET', path: `${API}/projects/{key}/repos/{slug}/branches`, handler: (request, h) => {
                const repo = repoOf(request);
                return repo ? paged(request, [...repo.branches].map(([name, sha]) => ({ id: `refs/heads/${name}`, displayId: name, latestCommit: sha }))) : notFound(h);
            }
        },
        {
            method: 'GET', path: `${API}/projects/{key}/repos/{slug}/commits`, handler: (request, h) => {
                const repo = repoOf(request);
                const head = repo?.branches.get(branchOf(request.query.until, repo.defaultBranch));
                if (!repo || !head) {
                    return notFound(h);
                }

                return paged(request, store.history(head).map((c) => ({
                    id: c.sha, displayId: c.sha.slice(0, 11), message: c.message, authorTimestamp: Date.parse(c.author.date),
                    author: { name: c.author.name.toLowerCase().replace(/\s+/g, '.'), displayName: c.author.name, emailAddress: c.author.email }
                })));
            }
        },
        {
            method: 'GET', path: `${API}/projects/{key}/repos/{slug}/pull-requests`, handler: (request, h) => {
                const repo = repoOf(request);
                const wanted = String(request.query.state ?? 'OPEN');
                return repo ? paged(request, repo.pulls.filter((pull) => wanted === 'ALL' || STATES[pull.state] === wanted).map((pull) => ({
                    id: pull.number, title: pull.title, state: STATES[pull.state],
                    fromRef: { displayId: pull.head, latestCommit: repo.branches.get(pull.head) ?? '0'.repeat(40) }, toRef: { displayId: pull.base },
                    author: { user: { name: pull.author } }, links: { self: [{ href: `${service.url}/projects/${repo.owner}/repos/${repo.name}/pull-requests/${pull.number}` }] },
                    updatedDate: Date.parse(pull.updatedAt)
                }))) : notFound(h);
            }
        },
        {
            method: 'GET', path: `${API}/projects/{key}/repos/{slug}/browse/{path*}`, handler: (request, h) => {
                const repo = repoOf(request);
                const content = repo ? store.file(repo.fullName, branchOf(request.query.at, repo.defaultBranch), String(request.params.path)) : undefined;
                return content === undefined ? h.response({ errors: [{ message: 'The path does not exist at revision' }] }).code(404) : { lines: content.split('\n').map((text) => ({ text })), isLastPage: true };
            }
        },
        {
            method: 'PUT', path: `${API}/projects/{key}/repos/{slug}/browse/{path*}`,
            options: { payload: { multipart: { output: 'data' }, maxBytes: 1024 * 1024 } } as never,
            handler: (request, h) => {
                const repo = repoOf(request);
                const form = request.payload as Record<string, string | Buffer>;
                const branch = String(form.branch ?? repo?.defaultBranch);
                if (!repo || !repo.branches.has(branch)) {
                    return notFound(h);
                }

                const path = String(request.params.path);
                if (store.file(repo.fullName, branch, path) !== undefined && form.sourceCommitId === undefined) {
                    return h.response({ errors: [{ message: 'The file already exists: send sourceCommitId to edit it' }] }).code(409);
                }

                const sha = store.write(repo.fullName, branch, path, String(form.content ?? ''), String(form.message ?? ''));
                return { id: sha, displayId: sha.slice(0, 11), message: form.message };
            }
        }
    ]);

    service.server.ext('onPreHandler', (request, h) => {
        if (state.down) {
            return h.response({ errors: [{ message: 'Bitbucket is starting up' }] }).code(503).takeover();
        }

        if (request.path.startsWith('/rest/oauth2/')) {
            return h.continue;
        }

        return oauth.valid(bearer(request)) ? h.continue : h.response({ errors: [{ message: 'Authentication failed. Please check your credentials and try again.' }] }).code(401).takeover();
    });
    service.server.ext('onPreResponse', (request, h) => {
        const user = oauth.valid(bearer(request));
        const response = request.response;
        if (user && !('isBoom' in response && response.isBoom)) {
            (response as { header(name: string, value: string): void }).header('x-ausername', user);
        }

        return h.continue;
    });

    const fake = Object.assign(service, { login, store, oauth, projects, down: false });
    Object.defineProperty(fake, 'down', { get: () => state.down, set: (value: boolean) => void (state.down = value) });
    return fake;
}
