import type { OutsideClient, OutsideResponse } from '../outside/http-client';
import { ProviderHttp } from './http';
import {
    assertRepo, cursorNumber, type GitAccount, type GitBranch, type GitCommit, type GitProvider, type GitPullRequest, type GitRepository,
    type ProviderPage, type ProviderPageRequest, type WriteFileInput, type WriteFileResult
} from './provider';

// GitLab's REST API v4, on gitlab.com or a self-managed instance (`<GITLAB_URL>/api/v4`). A project is named by
// its full path (`group/subgroup/name`), URL-encoded as its id. Lists page with `page` and `per_page`; the
// `X-Next-Page` header holds the next page, empty on the last.
export interface GitLabOptions {
    baseUrl: string;                                            // the API: https://gitlab.com/api/v4
    token: string;
    client: OutsideClient;
    maxPages?: number;
}

// The fields of GitLab's answers this adapter reads.
interface GlUser { username: string; name?: string | null }
interface GlGroup { full_path: string; full_name?: string | null; name?: string | null }
interface GlProject { path_with_namespace: string; path: string; namespace?: { full_path: string } | null; visibility?: string; default_branch?: string | null; web_url: string; last_activity_at?: string | null }
interface GlBranch { name: string; commit: { id: string } }
interface GlCommit { id: string; title: string; message?: string | null; author_name?: string | null; author_email?: string | null; authored_date?: string | null; web_url: string }
interface GlMerge { iid: number; title: string; state: string; source_branch: string; sha: string; target_branch: string; author?: { username: string } | null; web_url: string; updated_at?: string | null }

const project = (repo: string) => {
    assertRepo('gitlab', repo);
    return `/projects/${encodeURIComponent(repo)}`;
};

const STATES: Readonly<Record<string, GitPullRequest['state']>> = { opened: 'open', merged: 'merged', closed: 'closed', locked: 'closed' };

export class GitLabProvider implements GitProvider {
    readonly provider = 'gitlab' as const;
    private readonly http: ProviderHttp;
    private readonly maxPages: number;
    private login: Promise<string> | null = null;

    constructor(options: GitLabOptions) {
        this.http = new ProviderHttp({ provider: 'gitlab', baseUrl: options.baseUrl, token: options.token, client: options.client });
        this.maxPages = options.maxPages ?? 10;
    }

    async currentUser(): Promise<GitAccount> {
        const user = await this.http.get<GlUser>('/user');
        return { login: user.username, type: 'user', name: user.name ?? null };
    }

    /** The user (on the first page) and the groups where they may push (developer or more). */
    async accounts(page: ProviderPageRequest): Promise<ProviderPage<GitAccount>> {
        const number = cursorNumber('gitlab', page.cursor, 1);
        const groups = await this.page<GlGroup>('/groups?min_access_level=30&order_by=path', number, page.limit);
        const items = groups.items.map((group): GitAccount => ({ login: group.full_path, type: 'group', name: group.full_name ?? group.name ?? null }));
        return { items: number === 1 ? [await this.currentUser(), ...items] : items, next: groups.next };
    }

    async repositories(account: string | null, page: ProviderPageRequest): Promise<ProviderPage<GitRepository>> {
        const number = cursorNumber('gitlab', page.cursor, 1);
        const order = 'order_by=last_activity_at&sort=desc';
        const path = account === null
            ? `/projects?membership=true&${order}`
            : account.toLowerCase() === (await this.userLogin()).toLowerCase()
                ? `/users/${encodeURIComponent(account)}/projects?${order}`
                : `/groups/${encodeURIComponent(account)}/projects?include_subgroups=true&${order}`;
        const found = await this.page<GlProject>(path, number, page.limit);
        return { items: found.items.map(repository), next: found.next };
    }

    async listBranches(repo: string): Promise<GitBranch[]> {
        return (await this.all<GlBranch>(`${project(repo)}/repository/branches`)).map((branch) => ({ name: branch.name, commitSha: branch.commit.id }));
    }

    async listCommits(repo: string, options: { branch?: string; limit?: number } = {}): Promise<GitCommit[]> {
        const limit = Math.min(Math.max(options.limit ?? 30, 1), 100);
        const query = new URLSearchParams({ per_page: String(limit), ...(options.branch ? { ref_name: options.branch } : {}) });
        const commits = await this.http.get<GlCommit[]>(`${project(repo)}/repository/commits?${query.toString()}`);
        return commits.map((commit) => ({
            sha: commit.id,
            message: commit.message ?? commit.title,
            author: { name: commit.author_name ?? 'unknown', email: commit.author_email ?? null, date: commit.authored_date ?? null },
            url: commit.web_url
        }));
    }

    async listPullRequests(repo: string, options: { state?: 'open' | 'closed' | 'all' } = {}): Promise<GitPullRequest[]> {
        const state = options.state === 'open' || options.state === undefined ? 'opened' : 'all';
        const requests = (await this.all<GlMerge>(`${project(repo)}/merge_requests?state=${state}`)).map((merge): GitPullRequest => ({
            number: merge.iid,
            title: merge.title,
            state: STATES[merge.state] ?? 'closed',
            headBranch: merge.source_branch,
            headSha: merge.sha,
            baseBranch: merge.target_branch,
            author: merge.author?.username ?? null,
            url: merge.web_url,
            updatedAt: merge.updated_at ?? null
        }));
        return options.state === 'closed' ? requests.filter((merge) => merge.state !== 'open') : requests;
    }

    /** Creates or replaces one file on a branch in a single commit (the commits API, told whether the file exists). */
    async writeFile(input: WriteFileInput): Promise<WriteFileResult> {
        const base = project(input.repo);
        const existing = await this.http.call('HEAD', `${base}/repository/files/${encodeURIComponent(input.path)}?ref=${encodeURIComponent(input.branch)}`, { accept: [404] });
        const body = {
            branch: input.branch,
            commit_message: input.message,
            actions: [{ action: existing.status === 404 ? 'create' : 'update', file_path: input.path, content: input.content }],
            ...(input.author ? { author_name: input.author.name, author_email: input.author.email } : {})
        };
        const written = (await this.http.call('POST', `${base}/repository/commits`, { json: body })).json<{ id: string; web_url?: string | null }>();
        return { commitSha: written.id, path: input.path, url: written.web_url ?? null };
    }

    private userLogin(): Promise<string> {
        this.login ??= this.currentUser().then((user) => user.login);
        return this.login;
    }

    private async page<T>(path: string, number: number, limit: number): Promise<ProviderPage<T>> {
        const response = await this.http.call('GET', `${path}${path.includes('?') ? '&' : '?'}per_page=${limit}&page=${number}`);
        return { items: response.json<T[]>(), next: nextPage(response) };
    }

    private async all<T>(path: string): Promise<T[]> {
        const items: T[] = [];
        let next: string | null = '1';
        for (let count = 0; next && count < this.maxPages; ++count) {
            const found: ProviderPage<T> = await this.page<T>(path, Number(next), 100);
            items.push(...found.items);
            next = found.next;
        }

        return items;
    }
}

function nextPage(response: OutsideResponse): string | null {
    const header = response.headers['x-next-page'];
    const next = (Array.isArray(header) ? header[0] ?? '' : header ?? '').trim();
    return /^\d+$/.test(next) ? next : null;
}

function repository(repo: GlProject): GitRepository {
    return {
        fullName: repo.path_with_namespace,
        owner: repo.namespace?.full_path ?? String(repo.path_with_namespace).split('/').slice(0, -1).join('/'),
        name: repo.path,
        private: repo.visibility !== 'public',
        defaultBranch: repo.default_branch ?? null,
        url: repo.web_url,
        updatedAt: repo.last_activity_at ?? null
    };
}

