import { OutsideClient, type OutsideResponse } from '../outside/http-client';
import {
    assertRepo, GitProviderError, type GitAccount, type GitBranch, type GitCommit, type GitProvider, type GitProviderErrorCode,
    type GitPullRequest, type GitRepository, type WriteFileInput, type WriteFileResult
} from './provider';

// GitHub's REST API (v3, api version 2022-11-28) through the outside-service client. The base URL is configurable
// for GitHub Enterprise (`https://github.example.com/api/v3`).
export interface GitHubOptions {
    baseUrl: string;
    token: string;
    client: OutsideClient;
    maxPages?: number;
}

interface Json {
    [key: string]: any;
}

const encodePath = (path: string) => path.split('/').map(encodeURIComponent).join('/');

export class GitHubProvider implements GitProvider {
    readonly provider = 'github' as const;
    private readonly maxPages: number;

    constructor(private readonly options: GitHubOptions) {
        this.maxPages = options.maxPages ?? 10;
    }

    async listAccounts(): Promise<GitAccount[]> {
        const user = await this.get<Json>('/user');
        const orgs = await this.all<Json>('/user/orgs');
        return [
            { login: user.login, type: 'user', name: user.name ?? null },
            ...orgs.map((org) => ({ login: org.login, type: 'organization' as const, name: org.name ?? null }))
        ];
    }

    async listRepositories(account: string): Promise<GitRepository[]> {
        const user = await this.get<Json>('/user');
        const path = account.toLowerCase() === String(user.login).toLowerCase()
            ? '/user/repos?affiliation=owner&sort=updated'
            : `/orgs/${encodeURIComponent(account)}/repos?sort=updated`;
        return (await this.all<Json>(path)).map((repo) => ({
            fullName: repo.full_name,
            owner: repo.owner.login,
            name: repo.name,
            private: !!repo.private,
            defaultBranch: repo.default_branch,
            url: repo.html_url,
            updatedAt: repo.updated_at ?? null
        }));
    }

    async listBranches(repo: string): Promise<GitBranch[]> {
        assertRepo('github', repo);
        return (await this.all<Json>(`/repos/${repo}/branches`)).map((branch) => ({ name: branch.name, commitSha: branch.commit.sha }));
    }

    async listCommits(repo: string, options: { branch?: string; limit?: number } = {}): Promise<GitCommit[]> {
        assertRepo('github', repo);
        const limit = Math.min(Math.max(options.limit ?? 30, 1), 100);
        const query = new URLSearchParams({ per_page: String(limit), ...(options.branch ? { sha: options.branch } : {}) });
        const commits = await this.get<Json[]>(`/repos/${repo}/commits?${query}`);
        return commits.map((commit) => ({
            sha: commit.sha,
            message: commit.commit.message,
            author: { name: commit.commit.author?.name ?? 'unknown', email: commit.commit.author?.email ?? null, date: commit.commit.author?.date ?? null },
            url: commit.html_url
        }));
    }

    async listPullRequests(repo: string, options: { state?: 'open' | 'closed' | 'all' } = {}): Promise<GitPullRequest[]> {
        assertRepo('github', repo);
        return (await this.all<Json>(`/repos/${repo}/pulls?state=${options.state ?? 'open'}`)).map((pull) => ({
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
        const existing = await this.call('GET', `${path}?ref=${encodeURIComponent(input.branch)}`, undefined, [404]);
        const body = {
            message: input.message,
            content: Buffer.from(input.content, 'utf8').toString('base64'),
            branch: input.branch,
            ...(existing.status === 200 ? { sha: existing.json<Json>().sha } : {}),
            ...(input.author ? { committer: input.author } : {})
        };
        const written = (await this.call('PUT', path, body)).json<Json>();
        return { commitSha: written.commit.sha, path: written.content?.path ?? input.path, url: written.commit.html_url ?? null };
    }

    private async get<T>(path: string): Promise<T> {
        return (await this.call('GET', path)).json<T>();
    }

    /** Every page of a list, following Link rel="next" (itself a checked destination), up to maxPages. */
    private async all<T>(path: string): Promise<T[]> {
        const items: T[] = [];
        let next: string | null = `${path}${path.includes('?') ? '&' : '?'}per_page=100`;
        for (let page = 0; next && page < this.maxPages; ++page) {
            const response = await this.call('GET', next);
            items.push(...response.json<T[]>());
            const link = /<([^>]+)>;\s*rel="next"/.exec(String(response.headers.link ?? ''));
            next = link ? link[1]! : null;
        }

        return items;
    }

    private async call(method: string, pathOrUrl: string, body?: object, accept: number[] = []): Promise<OutsideResponse> {
        const url = pathOrUrl.startsWith('http') ? pathOrUrl : `${this.options.baseUrl}${pathOrUrl}`;
        if (!url.startsWith(this.options.baseUrl)) {
            throw new GitProviderError('github', 'invalid', 'GitHub pointed outside its API');
        }

        const response = await this.options.client.request({
            method,
            url,
            headers: {
                authorization: `Bearer ${this.options.token}`,
                accept: 'application/vnd.github+json',
                'x-github-api-version': '2022-11-28',
                ...(body ? { 'content-type': 'application/json' } : {})
            },
            ...(body ? { body: JSON.stringify(body) } : {})
        });

        if (response.status < 300 || accept.includes(response.status)) {
            return response;
        }

        throw this.failure(response);
    }

    private failure(response: OutsideResponse): GitProviderError {
        let message = `GitHub answered ${response.status}`;
        try {
            const text = response.json<Json>().message;
            if (typeof text === 'string') {
                message = `${message}: ${text.slice(0, 200)}`;
            }
        }
        catch { }

        const code: GitProviderErrorCode =
            response.status === 401 ? 'unauthorized'
                : response.status === 403 && response.headers['x-ratelimit-remaining'] === '0' ? 'rate_limited'
                    : response.status === 429 ? 'rate_limited'
                        : response.status === 403 ? 'forbidden'
                            : response.status === 404 ? 'not_found'
                                : response.status === 409 ? 'conflict'
                                    : response.status === 422 ? 'invalid'
                                        : 'unavailable';
        return new GitProviderError('github', code, message);
    }
}
