import type { OutsideClient, OutsideResponse } from '../outside/http-client';
import { encodePath, ProviderHttp } from './http';
import {
    assertRepo, cursorNumber, type GitAccount, type GitBranch, type GitCommit, type GitProvider, type GitPullRequest, type GitRepository,
    type ProviderPage, type ProviderPageRequest, type WriteFileInput, type WriteFileResult
} from './provider';

// GitHub's REST API (v3, api version 2022-11-28). The base URL is configurable for GitHub Enterprise Server
// (`https://github.example.com/api/v3`). Lists page with `page` and `per_page`; a `Link: rel="next"` says more remain.
export interface GitHubOptions {
    baseUrl: string;
    token: string;
    client: OutsideClient;
    maxPages?: number;                                          // for the lists read whole (branches, pull requests)
}

// The fields of GitHub's answers this adapter reads.
interface GhUser { login: string; name?: string | null }
interface GhRepo { full_name: string; owner: { login: string }; name: string; private?: boolean; default_branch?: string | null; html_url: string; updated_at?: string | null }
interface GhBranch { name: string; commit: { sha: string } }
interface GhCommit { sha: string; commit: { message: string; author?: { name?: string; email?: string; date?: string } | null }; html_url: string }
interface GhPull {
    number: number; title: string; state: 'open' | 'closed'; merged_at?: string | null; head: { ref: string; sha: string }; base: { ref: string };
    user?: { login: string } | null; html_url: string; updated_at?: string | null
}
interface GhWritten { commit: { sha: string; html_url?: string | null }; content?: { path?: string } | null }

const hasNext = (response: OutsideResponse) => /<[^>]+>;\s*rel="next"/.test(String(response.headers.link ?? ''));

export class GitHubProvider implements GitProvider {
    readonly provider = 'github' as const;
    private readonly http: ProviderHttp;
    private readonly maxPages: number;
    private login: Promise<string> | null = null;

    constructor(options: GitHubOptions) {
        this.http = new ProviderHttp({
            provider: 'github', baseUrl: options.baseUrl, token: options.token, client: options.client,
            headers: { accept: 'application/vnd.github+json', 'x-github-api-version': '2022-11-28' }
        });
        this.maxPages = options.maxPages ?? 10;
    }

    async currentUser(): Promise<GitAccount> {
        const user = await this.http.get<GhUser>('/user');
        return { login: user.login, type: 'user', name: user.name ?? null };
    }

    /** The user (on the first page) and the organisations they belong to. */
    async accounts(page: ProviderPageRequest): Promise<ProviderPage<GitAccount>> {
        const number = cursorNumber('github', page.cursor, 1);
        const orgs = await this.page<GhUser>('/user/orgs', number, page.limit);
        const items = orgs.items.map((org): GitAccount => ({ login: org.login, type: 'organization', name: org.name ?? null }));
        return { items: number === 1 ? [await this.currentUser(), ...items] : items, next: orgs.next };
    }

    async repositories(account: string | null, page: ProviderPageRequest): Promise<ProviderPage<GitRepository>> {
        const number = cursorNumber('github', page.cursor, 1);
        const path = account === null
            ? '/user/repos?affiliation=owner,collaborator,organization_member&sort=updated'
            : account.toLowerCase() === (await this.userLogin()).toLowerCase()
                ? '/user/repos?affiliation=owner&sort=updated'
                : `/orgs/${encodeURIComponent(account)}/repos?sort=updated`;
        const found = await this.page<GhRepo>(path, number, page.limit);
        return { items: found.items.map(repository), next: found.next };
    }

    async listBranches(repo: string): Promise<GitBranch[]> {
        assertRepo('github', repo);
        return (await this.all<GhBranch>(`/repos/${repo}/branches`)).map((branch) => ({ name: branch.name, commitSha: branch.commit.sha }));
    }

    async listCommits(repo: string, options: { branch?: string; limit?: number } = {}): Promise<GitCommit[]> {
        assertRepo('github', repo);
        const limit = Math.min(Math.max(options.limit ?? 30, 1), 100);
        const query = new URLSearchParams({ per_page: String(limit), ...(options.branch ? { sha: options.branch } : {}) });
        const commits = await this.http.get<GhCommit[]>(`/repos/${repo}/commits?${query.toString()}`);
        return commits.map((commit) => ({
            sha: commit.sha,
            message: commit.commit.message,
            author: { name: commit.commit.author?.name ?? 'unknown', email: commit.commit.author?.email ?? null, date: commit.commit.author?.date ?? null },
            url: commit.html_url
        }));
    }

    async listPullRequests(repo: string, options: { state?: 'open' | 'closed' | 'all' } = {}): Promise<GitPullRequest[]> {
        assertRepo('github', repo);
        return (await this.all<GhPull>(`/repos/${repo}/pulls?state=${options.state ?? 'open'}`)).map((pull) => ({
            number: pull.number,
            title: pull.title,
            state: pull.merged_at ? 'merged' : pull.state,
            headBranch: pull.head.ref,
            headSha: pull.head.sha,
            baseBranch: pull.base.ref,
            author: pull.user?.login ?? null,
            url: pull.html_url,
            updatedAt: pull.updated_at ?? null
        }));
    }

    /** Creates or replaces one file on a branch in a single commit (the contents API needs the current blob sha). */
    async writeFile(input: WriteFileInput): Promise<WriteFileResult> {
        assertRepo('github', input.repo);
        const path = `/repos/${input.repo}/contents/${encodePath(input.path)}`;
        const existing = await this.http.call('GET', `${path}?ref=${encodeURIComponent(input.branch)}`, { accept: [404] });
        const body = {
            message: input.message,
            content: Buffer.from(input.content, 'utf8').toString('base64'),
            branch: input.branch,
            ...(existing.status === 200 ? { sha: existing.json<{ sha: string }>().sha } : {}),
            ...(input.author ? { committer: input.author } : {})
        };
        const written = (await this.http.call('PUT', path, { json: body })).json<GhWritten>();
        return { commitSha: written.commit.sha, path: written.content?.path ?? input.path, url: written.commit.html_url ?? null };
    }

    private userLogin(): Promise<string> {
        this.login ??= this.currentUser().then((user) => user.login);
        return this.login;
    }

    private async page<T>(path: string, number: number, limit: number): Promise<ProviderPage<T>> {
        const response = await this.http.call('GET', `${path}${path.includes('?') ? '&' : '?'}per_page=${limit}${number > 1 ? `&page=${number}` : ''}`);
        return { items: response.json<T[]>(), next: hasNext(response) ? String(number + 1) : null };
    }

    /** Every page of a list, up to maxPages of 100. */
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

function repository(repo: GhRepo): GitRepository {
    return {
        fullName: repo.full_name,
        owner: repo.owner.login,
        name: repo.name,
        private: !!repo.private,
        defaultBranch: repo.default_branch ?? null,
        url: repo.html_url,
        updatedAt: repo.updated_at ?? null
    };
}
