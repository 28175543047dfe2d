// What the platform needs from a Git host, whichever it is: the connected accounts and their repositories, branches,
// commits, pull requests, and writing one file in a commit (the service file). GitHub now; GitLab and Bitbucket
// adapters implement the same interface.

export type GitProviderName = 'github' | 'gitlab' | 'bitbucket';

export interface GitAccount {
    login: string;
    type: 'user' | 'organization';
    name: string | null;
}

export interface GitRepository {
    fullName: string;                                           // owner/name
    owner: string;
    name: string;
    private: boolean;
    defaultBranch: string;
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

export interface GitProvider {
    readonly provider: GitProviderName;
    listAccounts(): Promise<GitAccount[]>;
    listRepositories(account: string): Promise<GitRepository[]>;
    listBranches(repo: string): Promise<GitBranch[]>;
    listCommits(repo: string, options?: { branch?: string; limit?: number }): Promise<GitCommit[]>;
    listPullRequests(repo: string, options?: { state?: 'open' | 'closed' | 'all' }): Promise<GitPullRequest[]>;
    writeFile(input: WriteFileInput): Promise<WriteFileResult>;
}

export type GitProviderErrorCode = 'unauthorized' | 'forbidden' | 'not_found' | 'conflict' | 'invalid' | 'rate_limited' | 'unavailable';

/** A provider's refusal, with a stable code the API maps to a status; its message never holds the token. */
export class GitProviderError extends Error {
    constructor(readonly provider: GitProviderName, readonly code: GitProviderErrorCode, message: string) {
        super(`${provider}: ${message}`);
    }
}

const repoPattern = /^[A-Za-z0-9_.-]{1,100}\/[A-Za-z0-9_.-]{1,100}$/;

/** `owner/name`, checked so it can be put in a URL path as it is. */
export function assertRepo(provider: GitProviderName, repo: string): void {
    if (!repoPattern.test(repo) || repo.split('/').some((part) => part === '.' || part === '..')) {
        throw new GitProviderError(provider, 'invalid', 'a repository is written owner/name');
    }
}
