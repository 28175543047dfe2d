import type { OutsideClient } from '../outside/http-client';
import { ProviderHttp } from './http';
import {
    assertRepo, cursorNumber, type GitAccount, type GitBranch, type GitCommit, type GitProvider, type GitPullRequest, type GitRepository,
    type ProviderPage, type ProviderPageRequest, type WriteFileInput, type WriteFileResult
} from './provider';

// Bitbucket Cloud's REST API 2.0 (https://api.bitbucket.org/2.0). Lists page with `page` and `pagelen` in the body's
// `next`; accounts are the workspaces the user is a member of; a file is written by posting a form to `src`, whose
// answer names the new commit in its Location header.
export interface BitbucketOptions {
    baseUrl: string;
    token: string;
    client: OutsideClient;
    maxPages?: number;
}

// The fields of Bitbucket Cloud's answers this adapter reads.
interface BbPage<T> { values: T[]; next?: string }
interface BbUser { username?: string; nickname?: string; account_id: string; display_name?: string | null }
interface BbWorkspace { workspace: { slug: string; name?: string | null } }
interface BbRepo { full_name: string; name: string; slug?: string; is_private?: boolean; workspace?: { slug: string }; mainbranch?: { name: string } | null; links?: { html?: { href: string } }; updated_on?: string | null }
interface BbBranch { name: string; target: { hash: string } }
interface BbCommit { hash: string; message: string; date?: string | null; author?: { raw?: string; user?: { display_name?: string } }; links?: { html?: { href: string } } }
interface BbPull {
    id: number; title: string; state: string; source: { branch: { name: string }; commit?: { hash: string } | null }; destination: { branch: { name: string } };
    author?: { nickname?: string; display_name?: string } | null; links?: { html?: { href: string } }; updated_on?: string | null
}

const STATES: Readonly<Record<string, GitPullRequest['state']>> = { OPEN: 'open', MERGED: 'merged', DECLINED: 'closed', SUPERSEDED: 'closed' };

/** `Ada Lovelace <ada@example.com>` into its name and address. */
function author(raw: string | undefined, fallback: string): { name: string; email: string | null } {
    const match = /^(.*?)\s*<([^>]*)>\s*$/.exec(raw ?? '');
    return match ? { name: match[1] || fallback, email: match[2] || null } : { name: raw || fallback, email: null };
}

export class BitbucketProvider implements GitProvider {
    readonly provider = 'bitbucket' as const;
    private readonly http: ProviderHttp;
    private readonly maxPages: number;

    constructor(options: BitbucketOptions) {
        this.http = new ProviderHttp({ provider: 'bitbucket', baseUrl: options.baseUrl, token: options.token, client: options.client });
        this.maxPages = options.maxPages ?? 10;
    }

    async currentUser(): Promise<GitAccount> {
        const user = await this.http.get<BbUser>('/user');
        return { login: user.username ?? user.nickname ?? user.account_id, type: 'user', name: user.display_name ?? null };
    }

    /** The workspaces the user is a member of. */
    async accounts(page: ProviderPageRequest): Promise<ProviderPage<GitAccount>> {
        const found = await this.page<BbWorkspace>('/user/permissions/workspaces?sort=workspace.slug', page);
        return { items: found.items.map((entry) => ({ login: entry.workspace.slug, type: 'workspace', name: entry.workspace.name ?? null })), next: found.next };
    }

    async repositories(account: string | null, page: ProviderPageRequest): Promise<ProviderPage<GitRepository>> {
        const path = account === null ? '/repositories?role=member&sort=-updated_on' : `/repositories/${encodeURIComponent(account)}?role=member&sort=-updated_on`;
        const found = await this.page<BbRepo>(path, page);
        return { items: found.items.map(repository), next: found.next };
    }

    async listBranches(repo: string): Promise<GitBranch[]> {
        assertRepo('bitbucket', repo);
        return (await this.all<BbBranch>(`/repositories/${repo}/refs/branches`)).map((branch) => ({ name: branch.name, commitSha: branch.target.hash }));
    }

    async listCommits(repo: string, options: { branch?: string; limit?: number } = {}): Promise<GitCommit[]> {
        assertRepo('bitbucket', repo);
        const limit = Math.min(Math.max(options.limit ?? 30, 1), 100);
        const ref = options.branch ? `/${encodeURIComponent(options.branch)}` : '';
        const body = await this.http.get<BbPage<BbCommit>>(`/repositories/${repo}/commits${ref}?pagelen=${limit}`);
        return body.values.slice(0, limit).map((commit) => {
            const who = author(commit.author?.raw, commit.author?.user?.display_name ?? 'unknown');
            return { sha: commit.hash, message: commit.message, author: { ...who, date: commit.date ?? null }, url: commit.links?.html?.href ?? '' };
        });
    }

    async listPullRequests(repo: string, options: { state?: 'open' | 'closed' | 'all' } = {}): Promise<GitPullRequest[]> {
        assertRepo('bitbucket', repo);
        const states = options.state === 'all' ? ['OPEN', 'MERGED', 'DECLINED', 'SUPERSEDED'] : options.state === 'closed' ? ['MERGED', 'DECLINED', 'SUPERSEDED'] : ['OPEN'];
        const query = states.map((state) => `state=${state}`).join('&');
        return (await this.all<BbPull>(`/repositories/${repo}/pullrequests?${query}`)).map((pull) => ({
            number: pull.id,
            title: pull.title,
            state: STATES[pull.state] ?? 'closed',
            headBranch: pull.source.branch.name,
            headSha: pull.source.commit?.hash ?? '',
            baseBranch: pull.destination.branch.name,
            author: pull.author?.nickname ?? pull.author?.display_name ?? null,
            url: pull.links?.html?.href ?? '',
            updatedAt: pull.updated_on ?? null
        }));
    }

    /** Creates or replaces one file on a branch in a single commit: the form field named by the path holds the content. */
    async writeFile(input: WriteFileInput): Promise<WriteFileResult> {
        assertRepo('bitbucket', input.repo);
        const form = new FormData();
        form.set('message', input.message);
        form.set('branch', input.branch);
        if (input.author) {
            form.set('author', `${input.author.name} <${input.author.email}>`);
        }

        // A file part, not a text field: multipart encoding turns a text field's line ends into CRLF.
        const path = input.path.startsWith('/') ? input.path : `/${input.path}`;
        form.set(path, new Blob([input.content]), path.slice(path.lastIndexOf('/') + 1));
        const written = await this.http.call('POST', `/repositories/${input.repo}/src`, { form });
        const location = written.headers.location ?? '';
        const sha = /\/commit\/([0-9a-f]{7,64})\/?$/.exec(location)?.[1] ?? (await this.listCommits(input.repo, { branch: input.branch, limit: 1 }))[0]?.sha;
        return { commitSha: sha ?? '', path: input.path, url: location || null };
    }

    private async page<T>(path: string, page: ProviderPageRequest): Promise<ProviderPage<T>> {
        const number = cursorNumber('bitbucket', page.cursor, 1);
        const body = await this.http.get<BbPage<T>>(`${path}${path.includes('?') ? '&' : '?'}pagelen=${page.limit}&page=${number}`);
        return { items: body.values, next: body.next ? String(number + 1) : null };
    }

    private async all<T>(path: string): Promise<T[]> {
        const items: T[] = [];
        let next: string | null = '1';
        for (let count = 0; next && count < this.maxPages; ++count) {
            const found: ProviderPage<T> = await this.page<T>(path, { cursor: next, limit: 50 });
            items.push(...found.items);
            next = found.next;
        }

        return items;
    }
}

function repository(repo: BbRepo): GitRepository {
    return {
        fullName: repo.full_name,
        owner: repo.workspace?.slug ?? repo.full_name.split('/')[0],
        name: repo.slug ?? repo.name,
        private: !!repo.is_private,
        defaultBranch: repo.mainbranch?.name ?? null,
        url: repo.links?.html?.href ?? '',
        updatedAt: repo.updated_on ?? null
    };
}
