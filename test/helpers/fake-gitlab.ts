import type { Request, ResponseToolkit } from '@hapi/hapi';

import { FakeGitStore, pageOf, type StoreRepo } from './fake-git-store';
import { bearer, fakeOAuth, type FakeOAuth, type FakeOAuthOptions } from './fake-oauth';
import { fakeService, type FakeService } from './fake-service';

// GitLab's REST API v4 and its OAuth application, as far as the platform uses them: the user, their groups, projects
// by membership (page/per_page, X-Next-Page), branches, commits, merge requests, file existence (HEAD) and the
// commits API with actions; /oauth/token (two-hour tokens with rotating refresh tokens) and /oauth/revoke. A
// switch makes it answer like an outage.
export interface FakeGitLab extends FakeService {
    login: string;
    store: FakeGitStore;
    oauth: FakeOAuth;
    groups: string[];
    down: boolean;
}

export async function fakeGitLab(options: { login?: string; oauth?: Partial<FakeOAuthOptions> } = {}): Promise<FakeGitLab> {
    const login = options.login ?? 'ada';
    const store = new FakeGitStore(login);
    const oauth = fakeOAuth({ clientAuth: 'body', expiresIn: 7200, refresh: true, refusal: 'standard', prefix: 'glo_', ...options.oauth });
    const groups: string[] = [];
    const state = { down: false };

    const notFound = (h: ResponseToolkit) => h.response({ message: '404 Project Not Found' }).code(404);
    const repoOf = (request: Request) => store.repos.get(decodeURIComponent(String(request.params.id)));
    const paged = <T>(request: Request, h: ResponseToolkit, items: T[]) => {
        const size = Math.min(Number(request.query.per_page ?? 20), 100);
        const number = Number(request.query.page ?? 1);
        const { items: slice, more } = pageOf(items, number, size);
        return h.response(slice).header('x-next-page', more ? String(number + 1) : '').header('x-page', String(number));
    };
    const projectJson = (repo: StoreRepo) => ({
        id: repo.fullName.length, path: repo.name, path_with_namespace: repo.fullName, namespace: { full_path: repo.owner },
        visibility: repo.private ? 'private' : 'public', default_branch: repo.defaultBranch, web_url: `https://gitlab.test/${repo.fullName}`, last_activity_at: repo.updatedAt
    });
    const byActivity = () => [...store.repos.values()].sort((a, b) => b.updatedAt.localeCompare(a.updatedAt) || a.fullName.localeCompare(b.fullName));

    const service = await fakeService([
        { method: 'POST', path: '/oauth/token', handler: (request, h) => oauth.tokenHandler(request, h) },
        {
            method: 'POST', path: '/oauth/revoke', handler: (request, h) => {
                const form = request.payload as Record<string, string>;
                if (form.client_id !== oauth.clientId || form.client_secret !== oauth.clientSecret) {
                    return h.response({ error: 'invalid_client' }).code(401);
                }

                oauth.revoke(form.token ?? '');
                return {};
            }
        },
        { method: 'GET', path: '/api/v4/user', handler: () => ({ id: 1, username: login, name: 'Ada Dev' }) },
        { method: 'GET', path: '/api/v4/groups', handler: (request, h) => paged(request, h, groups.map((group) => ({ full_path: group, full_name: group.toUpperCase(), name: group }))) },
        { method: 'GET', path: '/api/v4/projects', handler: (request, h) => paged(request, h, byActivity().map(projectJson)) },
        { method: 'GET', path: '/api/v4/users/{user}/projects', handler: (request, h) => paged(request, h, byActivity().filter((repo) => repo.owner === request.params.user).map(projectJson)) },
        { method: 'GET', path: '/api/v4/groups/{group}/projects', handler: (request, h) => paged(request, h, byActivity().filter((repo) => repo.owner.startsWith(decodeURIComponent(String(request.params.group)))).map(projectJson)) },
        {
            method: 'GET', path: '/api/v4/projects/{id}/repository/branches', handler: (request, h) => {
                const repo = repoOf(request);
                return repo ? paged(request, h, [...repo.branches].map(([name, sha]) => ({ name, commit: { id: sha } }))) : notFound(h);
            }
        },
        {
            method: 'GET', path: '/api/v4/projects/{id}/repository/commits', handler: (request, h) => {
                const repo = repoOf(request);
                const head = repo?.branches.get(String(request.query.ref_name ?? repo.defaultBranch));
                if (!repo || !head) {
                    return notFound(h);
                }

                return paged(request, h, store.history(head).map((c) => ({
                    id: c.sha, title: c.message.split('\n')[0], message: c.message, author_name: c.author.name, author_email: c.author.email,
                    authored_date: c.author.date, web_url: `https://gitlab.test/${repo.fullName}/-/commit/${c.sha}`
                })));
            }
        },
        {
            method: 'GET', path: '/api/v4/projects/{id}/merge_requests', handler: (request, h) => {
                const repo = repoOf(request);
                const wanted = String(request.query.state ?? 'all');
                const names: Record<string, string> = { open: 'opened', closed: 'closed', merged: 'merged' };
                return repo ? paged(request, h, repo.pulls.filter((pull) => wanted === 'all' || names[pull.state] === wanted).map((pull) => ({
                    iid: pull.number, title: pull.title, state: names[pull.state], source_branch: pull.head, target_branch: pull.base,
                    sha: repo.branches.get(pull.head) ?? '0'.repeat(40), author: { username: pull.author }, web_url: `https://gitlab.test/${repo.fullName}/-/merge_requests/${pull.number}`, updated_at: pull.updatedAt
                }))) : notFound(h);
            }
        },
        {
            method: 'GET', path: '/api/v4/projects/{id}/repository/files/{path}', handler: (request, h) => {
                const repo = repoOf(request);
                const content = repo ? store.file(repo.fullName, String(request.query.ref ?? repo.defaultBranch), decodeURIComponent(String(request.params.path))) : undefined;
                return content === undefined ? h.response({ message: '404 File Not Found' }).code(404) : { file_path: request.params.path, content: Buffer.from(content).toString('base64') };
            }
        },
        {
            method: 'POST', path: '/api/v4/projects/{id}/repository/commits', handler: (request, h) => {
                const repo = repoOf(request);
                const body = request.payload as { branch: string; commit_message: string; actions: Array<{ action: string; file_path: string; content: string }>; author_name?: string; author_email?: string };
                if (!repo || !repo.branches.has(body.branch)) {
                    return notFound(h);
                }

                let sha = '';
                for (const action of body.actions) {
                    const exists = store.file(repo.fullName, body.branch, action.file_path) !== undefined;
                    if ((action.action === 'create' && exists) || (action.action === 'update' && !exists)) {
                        return h.response({ message: action.action === 'create' ? 'A file with this name already exists' : 'A file with this name doesn\'t exist' }).code(400);
                    }

                    sha = store.write(repo.fullName, body.branch, action.file_path, action.content, body.commit_message, body.author_name ? { name: body.author_name, email: body.author_email ?? '' } : undefined);
                }

                return h.response({ id: sha, web_url: `https://gitlab.test/${repo.fullName}/-/commit/${sha}` }).code(201);
            }
        }
    ]);

    service.server.ext('onPreHandler', (request, h) => {
        if (state.down) {
            return h.response({ message: '503 Service Unavailable' }).code(503).takeover();
        }

        if (request.path.startsWith('/oauth/')) {
            return h.continue;
        }

        return oauth.valid(bearer(request)) ? h.continue : h.response({ message: '401 Unauthorized' }).code(401).takeover();
    });

    const fake = Object.assign(service, { login, store, oauth, groups, down: false });
    Object.defineProperty(fake, 'down', { get: () => state.down, set: (value: boolean) => void (state.down = value) });
    return fake;
}
