// What the platform needs from a Git host, whichever it is: who the token signs in as, the accounts (users,
// organisations, groups, workspaces) and repositories it reaches, page by page as the host pages them, and each
// repository's branches, commits, pull requests, and writing one file in a commit (the service file). GitHub,
// GitLab, Bitbucket Cloud and Bitbucket Data Center implement it (github.ts, gitlab.ts, bitbucket*.ts).

export type GitProviderName = 'github' | 'gitlab' | 'bitbucket';
export const GIT_PROVIDERS: readonly GitProviderName[] = ['github', 'gitlab', 'bitbucket'];
export const PROVIDER_LABELS: Readonly<Record<GitProviderName, string>> = { github: 'GitHub', gitlab: 'GitLab', bitbucket: 'Bitbucket' };

export interface GitAccount {
    login: string;                                              // what names it in a URL: a login, a group path, a workspace slug, a project key
    type: 'user' | 'organization' | 'group' | 'workspace' | 'project';
    name: string | null;
}

export interface GitRepository {
    fullName: string;                                           // owner/name (GitLab: group/subgroup/name)
    owner: string;
    name: string;
    private: boolean;
    defaultBranch: string | null;                               // null where the host's list does not say (Bitbucket Data Center)
    url: string;
    updatedAt: string | null;
}

export interface GitBranch {
    name: string;
    commitSha: string;
}

export interface GitCommit {
    sha: string;
    message: string;
    author: { name: string; email: string | null; date: string | null };
    url: string;
}

export interface GitPullRequest {
    number: number;
    title: string;
    state: 'open' | 'closed' | 'merged';
    headBranch: string;
    headSha: string;
    baseBranch: string;
    author: string | null;
    url: string;
    updatedAt: string | null;
}

export interface WriteFileInput {
    repo: string;
    branch: string;
    path: string;
    content: string;
    message: string;
    author?: { name: string; email: string };
}

export interface WriteFileResult {
    commitSha: string;
    path: string;
    url: string | null;
}

/** A page of a host's list: `cursor` is the host's own position (a page number or an offset), opaque to callers. */
export interface ProviderPageRequest {
    cursor?: string | undefined;
    limit: number;                                              // 1 to 100
}

export interface ProviderPage<T> {
    items: T[];
    next: string | null;
}

export interface GitProvider {
    readonly provider: GitProviderName;
    /** The account the token signs in as. */
    currentUser(): Promise<GitAccount>;
    /** The accounts the token reaches: GitHub the user and their organisations, GitLab the user and their groups,
     * Bitbucket Cloud workspaces, Bitbucket Data Center projects. */
    accounts(page: ProviderPageRequest): Promise<ProviderPage<GitAccount>>;
    /** Repositories of one account, or (null) every repository the token is a member of. */
    repositories(account: string | null, page: ProviderPageRequest): Promise<ProviderPage<GitRepository>>;
    listBranches(repo: string): Promise<GitBranch[]>;
    listCommits(repo: string, options?: { branch?: string; limit?: number }): Promise<GitCommit[]>;
    listPullRequests(repo: string, options?: { state?: 'open' | 'closed' | 'all' }): Promise<GitPullRequest[]>;
    writeFile(input: WriteFileInput): Promise<WriteFileResult>;
}

export type GitProviderErrorCode = 'unauthorized' | 'forbidden' | 'not_found' | 'conflict' | 'invalid' | 'rate_limited' | 'unavailable';

/** A provider's refusal, with a stable code the API maps to a status; its message never holds the token. */
export class GitProviderError extends Error {
    constructor(readonly provider: GitProviderName, readonly code: GitProviderErrorCode, message: string, readonly status: number | null = null) {
        super(`${provider}: ${message}`);
    }
}

const segment = '[A-Za-z0-9_.~-]{1,100}';
const twoParts = new RegExp(`^${segment}/${segment}$`);
const nested = new RegExp(`^${segment}(?:/${segment}){1,19}$`);

/** `owner/name` (GitLab: up to twenty segments of nested groups), checked so it can be put in a URL path as it is. */
export function assertRepo(provider: GitProviderName, repo: string): void {
    const pattern = provider === 'gitlab' ? nested : twoParts;
    if (!pattern.test(repo) || repo.split('/').some((part) => part === '.' || part === '..' || (part.includes('~') && provider !== 'bitbucket'))) {
        throw new GitProviderError(provider, 'invalid', provider === 'gitlab' ? 'a repository is written group/name or group/subgroup/name' : 'a repository is written owner/name');
    }
}

/** How a repository is written in a resource's settings: `owner/name`, on GitLab also `group/subgroup/name`. */
export const REPOSITORY_NAME = { twoParts: /^[A-Za-z0-9_.-]{1,100}\/[A-Za-z0-9_.-]{1,100}$/, nested: /^[A-Za-z0-9_.-]{1,100}(?:\/[A-Za-z0-9_.-]{1,100}){1,19}$/ };

/** A page cursor the adapters write: a positive whole number (a page or an offset). */
export function cursorNumber(provider: GitProviderName, cursor: string | undefined, first: number): number {
    if (cursor === undefined) {
        return first;
    }

    if (!/^\d{1,7}$/.test(cursor)) {
        throw new GitProviderError(provider, 'invalid', '"cursor" is not a valid cursor');
    }

    return Number(cursor);
}
