import * as Crypto from 'node:crypto';

// The repositories of a fake Git host, in memory: commits with their files and parent, branches, pull requests.
// The GitLab and Bitbucket fakes serve it in their own APIs' shapes.
export interface StoreCommit {
    sha: string;
    message: string;
    author: { name: string; email: string; date: string };
    parent: string | null;
    files: Map<string, string>;
}

export interface StorePull {
    number: number;
    title: string;
    state: 'open' | 'closed' | 'merged';
    head: string;
    base: string;
    author: string;
    updatedAt: string;
}

export interface StoreRepo {
    fullName: string;
    owner: string;
    name: string;
    private: boolean;
    defaultBranch: string;
    branches: Map<string, string>;
    pulls: StorePull[];
    updatedAt: string;
}

export class FakeGitStore {
    readonly repos = new Map<string, StoreRepo>();
    readonly commits = new Map<string, StoreCommit>();
    private clock = Date.parse('2026-01-01T00:00:00Z');

    constructor(private readonly login: string) { }

    private tick(): string {
        this.clock += 60_000;
        return new Date(this.clock).toISOString();
    }

    private commit(message: string, parent: string | null, files: Map<string, string>, author?: { name: string; email: string }): string {
        const sha = Crypto.createHash('sha1').update(`${message}:${parent}:${Math.random()}`).digest('hex');
        this.commits.set(sha, { sha, message, parent, files, author: { name: author?.name ?? 'Ada Dev', email: author?.email ?? 'ada@example.test', date: this.tick() } });
        return sha;
    }

    addRepo(fullName: string, options: { private?: boolean; files?: Record<string, string>; branch?: string } = {}): void {
        const parts = fullName.split('/');
        const branch = options.branch ?? 'main';
        const sha = this.commit('Initial commit', null, new Map(Object.entries(options.files ?? { 'README.md': `# ${parts.at(-1)}\n` })));
        this.repos.set(fullName, {
            fullName, owner: parts.slice(0, -1).join('/'), name: parts.at(-1)!, private: options.private ?? true, defaultBranch: branch,
            branches: new Map([[branch, sha]]), pulls: [], updatedAt: this.tick()
        });
    }

    addCommit(fullName: string, branch: string, message: string, files: Record<string, string> = {}): string {
        const repo = this.repos.get(fullName)!;
        const parent = repo.branches.get(branch) ?? repo.branches.get(repo.defaultBranch)!;
        const sha = this.commit(message, parent, new Map([...this.commits.get(parent)!.files, ...Object.entries(files)]));
        repo.branches.set(branch, sha);
        return sha;
    }

    addPull(fullName: string, pull: { title: string; head: string; base?: string; state?: StorePull['state']; number?: number }): number {
        const repo = this.repos.get(fullName)!;
        const number = pull.number ?? repo.pulls.length + 1;
        repo.pulls.push({ number, title: pull.title, head: pull.head, base: pull.base ?? repo.defaultBranch, state: pull.state ?? 'open', author: this.login, updatedAt: this.tick() });
        return number;
    }

    history(sha: string | undefined): StoreCommit[] {
        const list: StoreCommit[] = [];
        for (let current = sha ? this.commits.get(sha) : undefined; current; current = current.parent ? this.commits.get(current.parent) : undefined) {
            list.push(current);
        }

        return list;
    }

    head(fullName: string, branch: string): string | undefined {
        return this.repos.get(fullName)?.branches.get(branch);
    }

    file(fullName: string, branch: string, path: string): string | undefined {
        const head = this.head(fullName, branch);
        return head ? this.commits.get(head)!.files.get(path) : undefined;
    }

    /** One file written on a branch in a new commit; answers its sha. */
    write(fullName: string, branch: string, path: string, content: string, message: string, author?: { name: string; email: string }): string {
        const repo = this.repos.get(fullName)!;
        const parent = repo.branches.get(branch)!;
        const sha = this.commit(message, parent, new Map([...this.commits.get(parent)!.files, [path, content]]), author);
        repo.branches.set(branch, sha);
        return sha;
    }
}

/** A page of a list, numbered from 1. */
export function pageOf<T>(items: T[], page: number, size: number): { items: T[]; more: boolean } {
    return { items: items.slice((page - 1) * size, page * size), more: page * size < items.length };
}
