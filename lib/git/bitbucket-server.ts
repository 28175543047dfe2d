import type { OutsideClient } from '../outside/http-client';
import { encodePath, ProviderHttp } from './http';
import {
    assertRepo, cursorNumber, GitProviderError, type GitAccount, type GitBranch, type GitCommit, type GitProvider, type GitPullRequest, type GitRepository,
    type ProviderPage, type ProviderPageRequest, type WriteFileInput, type WriteFileResult
} from './provider';

// Bitbucket Data Center (and Server)'s REST API 1.0 (`<BITBUCKET_URL>/rest/api/1.0`). A repository is named
// `PROJECT/slug`; the accounts are the projects the user sees. Lists page with `start` and `limit`; the body says
// `isLastPage` and `nextPageStart`. Data Center has no "who am I" resource: every answer names the signed-in user in
// its X-AUSERNAME header.
export interface BitbucketServerOptions {
    baseUrl: string;                                            // the API: https://bitbucket.example.com/rest/api/1.0
    webUrl: string;                                             // links to commits
    token: string;
    client: OutsideClient;
    maxPages?: number;
}

// The fields of Bitbucket Data Center's answers this adapter reads.
interface DcPage<T> { values: T[]; isLastPage?: boolean; nextPageStart?: number }
interface DcProject { key: string; name?: string | null }
interface DcRepo { slug: string; project: { key: string }; public?: boolean; links?: { self?: Array<{ href: string }> } }
interface DcBranch { displayId: string; latestCommit: string }
interface DcCommit { id: string; message: string; authorTimestamp?: number; author?: { name?: string; displayName?: string; emailAddress?: string } }
interface DcPull {
    id: number; title: string; state: string; fromRef: { displayId: string; latestCommit: string }; toRef: { displayId: string };
    author?: { user?: { name?: string } }; links?: { self?: Array<{ href: string }> }; updatedDate?: number
}

const STATES: Readonly<Record<string, GitPullRequest['state']>> = { OPEN: 'open', MERGED: 'merged', DECLINED: 'closed' };

const repoPath = (repo: string) => {
    assertRepo('bitbucket', repo);
    const [key, slug] = repo.split('/') as [string, string];
    return `/projects/${encodeURIComponent(key)}/repos/${encodeURIComponent(slug)}`;
};

const when = (ms: number | undefined) => typeof ms === 'number' ? new Date(ms).toISOString() : null;

export class BitbucketServerProvider implements GitProvider {
    readonly provider = 'bitbucket' as const;
    private readonly http: ProviderHttp;
    private readonly maxPages: number;

    constructor(private readonly options: BitbucketServerOptions) {
        this.http = new ProviderHttp({ provider: 'bitbucket', baseUrl: options.baseUrl, token: options.token, client: options.client });
        this.maxPages = options.maxPages ?? 10;
    }

    async currentUser(): Promise<GitAccount> {
        const probe = await this.http.call('GET', '/application-properties');
        const header = probe.headers['x-ausername'];
        const slug = Array.isArray(header) ? header[0] ?? '' : header ?? '';
        if (!slug || slug === 'anonymous') {
            throw new GitProviderError('bitbucket', 'unauthorized', 'Bitbucket signed no one in with the token', 401);
        }

        const user = await this.http.call('GET', `/users/${encodeURIComponent(slug)}`, { accept: [404] });
        return { login: slug, type: 'user', name: user.status === 200 ? user.json<{ displayName?: string }>().displayName ?? null : null };
    }

    /** The projects the user sees. */
    async accounts(page: ProviderPageRequest): Promise<ProviderPage<GitAccount>> {
        const found = await this.page<DcProject>('/projects', page);
        return { items: found.items.map((entry) => ({ login: entry.key, type: 'project', name: entry.name ?? null })), next: found.next };
    }

    async repositories(account: string | null, page: ProviderPageRequest): Promise<ProviderPage<GitRepository>> {
        const path = account === null ? '/repos?permission=REPO_READ' : `/projects/${encodeURIComponent(account)}/repos`;
        const found = await this.page<DcRepo>(path, page);
        return {
            items: found.items.map((repo): GitRepository => ({
                fullName: `${repo.project.key}/${repo.slug}`,
                owner: repo.project.key,
                name: repo.slug,
                private: !repo.public,
                defaultBranch: null,
                url: repo.links?.self?.[0]?.href ?? '',
                updatedAt: null
            })),
            next: found.next
        };
    }

    async listBranches(repo: string): Promise<GitBranch[]> {
        return (await this.all<DcBranch>(`${repoPath(repo)}/branches`)).map((branch) => ({ name: branch.displayId, commitSha: branch.latestCommit }));
    }

    async listCommits(repo: string, options: { branch?: string; limit?: number } = {}): Promise<GitCommit[]> {
        const limit = Math.min(Math.max(options.limit ?? 30, 1), 100);
        const query = new URLSearchParams({ limit: String(limit), ...(options.branch ? { until: options.branch } : {}) });
        const body = await this.http.get<DcPage<DcCommit>>(`${repoPath(repo)}/commits?${query.toString()}`);
        const [key, slug] = repo.split('/') as [string, string];
        return body.values.map((commit) => ({
            sha: commit.id,
            message: commit.message,
            author: { name: commit.author?.displayName ?? commit.author?.name ?? 'unknown', email: commit.author?.emailAddress ?? null, date: when(commit.authorTimestamp) },
            url: `${this.options.webUrl}/projects/${encodeURIComponent(key)}/repos/${encodeURIComponent(slug)}/commits/${commit.id}`
        }));
    }

    async listPullRequests(repo: string, options: { state?: 'open' | 'closed' | 'all' } = {}): Promise<GitPullRequest[]> {
        const state = options.state === 'open' || options.state === undefined ? 'OPEN' : 'ALL';
        const pulls = (await this.all<DcPull>(`${repoPath(repo)}/pull-requests?state=${state}`)).map((pull): GitPullRequest => ({
            number: pull.id,
            title: pull.title,
            state: STATES[pull.state] ?? 'closed',
            headBranch: pull.fromRef.displayId,
            headSha: pull.fromRef.latestCommit,
            baseBranch: pull.toRef.displayId,
            author: pull.author?.user?.name ?? null,
            url: pull.links?.self?.[0]?.href ?? '',
            updatedAt: when(pull.updatedDate)
        }));
        return options.state === 'closed' ? pulls.filter((pull) => pull.state !== 'open') : pulls;
    }

    /** Creates or replaces one file on a branch in a single commit; replacing names the commit it edits. */
    async writeFile(input: WriteFileInput): Promise<WriteFileResult> {
        const base = repoPath(input.repo);
        const at = encodeURIComponent(`refs/heads/${input.branch}`);
        const existing = await this.http.call('GET', `${base}/browse/${encodePath(input.path)}?at=${at}&limit=1`, { accept: [404] });
        const form = new FormData();
        // A file part, not a text field: multipart encoding turns a text field's line ends into CRLF.
        form.set('content', new Blob([input.content]), input.path.slice(input.path.lastIndexOf('/') + 1));
        form.set('message', input.message);
        form.set('branch', input.branch);
        if (existing.status === 200) {
            const head = await this.http.get<DcPage<DcCommit>>(`${base}/commits?until=${at}&limit=1`);
            form.set('sourceCommitId', head.values[0].id);
        }

        const written = (await this.http.call('PUT', `${base}/browse/${encodePath(input.path)}`, { form })).json<{ id: string }>();
        const [key, slug] = input.repo.split('/') as [string, string];
        return { commitSha: written.id, path: input.path, url: `${this.options.webUrl}/projects/${encodeURIComponent(key)}/repos/${encodeURIComponent(slug)}/commits/${written.id}` };
    }

    private async page<T>(path: string, page: ProviderPageRequest): Promise<ProviderPage<T>> {
        const start = cursorNumber('bitbucket', page.cursor, 0);
        const body = await this.http.get<DcPage<T>>(`${path}${path.includes('?') ? '&' : '?'}start=${start}&limit=${page.limit}`);
        return { items: body.values, next: body.isLastPage === false && body.nextPageStart !== undefined ? String(body.nextPageStart) : null };
    }

    private async all<T>(path: string): Promise<T[]> {
        const items: T[] = [];
        let next: string | null = '0';
        for (let count = 0; next !== null && count < this.maxPages; ++count) {
            const found: ProviderPage<T> = await this.page<T>(path, { cursor: next, limit: 100 });
            items.push(...found.items);
            next = found.next;
        }

        return items;
    }
}
