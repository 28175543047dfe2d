import * as ChildProcess from 'node:child_process';
import * as Dns from 'node:dns/promises';
import * as Fs from 'node:fs/promises';
import * as Net from 'node:net';
import * as Path from 'node:path';
import { promisify } from 'node:util';

import type { GitAccess } from '../../git/access';
import { cloneCredentials } from '../../git/clone';
import { DestinationRefusedError, type DestinationPolicy } from '../../outside/destination';
import { DeploymentFailure } from '../driver';

// A deployment's source: the resource's Git repository at the requested branch or commit, cloned by the `git`
// binary into the release folder. A URL of any host (`provider: git`) is cloned over https only, its address
// checked by the outbound destination rules and pinned for the clone (`http.curloptResolve`), redirects refused;
// `file://` only where the operator allows it. A connected provider's repository is cloned with the project's
// connection through GIT_ASKPASS (lib/git/clone.ts): the token is never in a URL, an argv or a log.
const execFile = promisify(ChildProcess.execFile);

export interface SourceRequest {
    projectId: string;
    name: string;
    repository: { provider: string; repo: string; branch: string };
    commitSha: string | null;
    dir: string;
}

export interface SourceOptions {
    git: GitAccess | null;
    policy: DestinationPolicy;
    allowFileGit: boolean;
    timeoutMs: number;
    tmpDir: string;
    path: string;                                               // PATH for git
}

/** Why a Git URL cannot be used here, in a user's words, or null. */
export function gitUrlProblem(url: string, allowFileGit: boolean): string | null {
    let parsed: URL;
    try {
        parsed = new URL(url);
    }
    catch {
        return 'The repository must be a Git URL such as https://git.example.com/team/app.git';
    }

    if (parsed.username || parsed.password) {
        return 'The repository URL must not hold credentials: connect the Git host instead';
    }

    if (parsed.protocol === 'file:') {
        return allowFileGit ? null : 'file:// repositories are allowed only in laptop mode or with RUNTIME_ALLOW_FILE_GIT=true';
    }

    return parsed.protocol === 'https:' ? null : 'The repository URL must use https (or file:// where RUNTIME_ALLOW_FILE_GIT allows it)';
}

export async function fetchSource(request: SourceRequest, options: SourceOptions, log: (line: string) => Promise<void>): Promise<string> {
    const { repository } = request;
    const base = ['-c', 'protocol.allow=never', '-c', 'protocol.https.allow=always', '-c', 'http.followRedirects=false'];
    let url: string;
    let env: Record<string, string> = { PATH: options.path, HOME: options.tmpDir, GIT_TERMINAL_PROMPT: '0', GIT_CONFIG_NOSYSTEM: '1' };
    let dispose = async () => { /* nothing to remove */ };
    if (repository.provider === 'git') {
        const problem = gitUrlProblem(repository.repo, options.allowFileGit);
        if (problem) {
            throw new DeploymentFailure(problem);
        }

        url = repository.repo;
        const parsed = new URL(url);
        if (parsed.protocol === 'file:') {
            base.push('-c', 'protocol.file.allow=always');
        }
        else {
            base.push('-c', `http.curloptResolve=${parsed.hostname}:${parsed.port || 443}:${await pinned(parsed.hostname, options.policy)}`);
        }
    }
    else {
        if (!options.git) {
            throw new DeploymentFailure(`Cloning from ${repository.provider} needs the Git connections of this server`);
        }

        const clone = await cloneCredentials(options.git, { projectId: request.projectId, name: request.name, repoProvider: repository.provider as never, repoName: repository.repo, repoBranch: repository.branch }, 'resource', '', { tmpDir: options.tmpDir })
            .catch((err: Error) => {
                throw new DeploymentFailure(err.message);
            });
        url = clone.url;
        env = { ...env, ...clone.env };
        dispose = () => clone.dispose();
    }

    const shown = repository.provider === 'git' ? url : `${repository.provider}:${repository.repo}`;
    await log(`Fetching ${shown} (${request.commitSha ?? repository.branch})`);
    try {
        const shallow = request.commitSha ? ['--no-checkout'] : ['--depth', '1'];
        await execFile('git', [...base, 'clone', '--quiet', '--single-branch', ...shallow, '--branch', repository.branch, '--', url, request.dir], { env, timeout: options.timeoutMs });
        if (request.commitSha) {
            await execFile('git', ['-C', request.dir, 'checkout', '--quiet', '--detach', request.commitSha], { env, timeout: options.timeoutMs });
        }

        const { stdout } = await execFile('git', ['-C', request.dir, 'rev-parse', 'HEAD'], { env });
        await log(`Fetched commit ${stdout.trim()}`);
        return stdout.trim();
    }
    catch (err) {
        const message = ((err as { stderr?: string }).stderr ?? '').split('\n').map((line) => line.trim()).filter(Boolean).at(-1);
        throw new DeploymentFailure(`The source could not be fetched from ${shown}${message ? `: ${message}` : ''}`);
    }
    finally {
        await dispose();
    }
}

/** The address git may connect to for this host: resolved once, checked by the outbound rules. */
async function pinned(hostname: string, policy: DestinationPolicy): Promise<string> {
    const address = Net.isIP(hostname) ? hostname : (await Dns.lookup(hostname).catch(() => {
        throw new DeploymentFailure(`The repository's host ${hostname} could not be resolved`);
    })).address;
    try {
        policy.assertAllowed(hostname, address);
    }
    catch (err) {
        throw err instanceof DestinationRefusedError ? new DeploymentFailure(err.message) : err;
    }

    return Net.isIPv6(address) ? `[${address}]` : address;
}

/** A Procfile's line for the process type, or `npm start` when package.json has a start script. */
export async function defaultCommand(cwd: string, processType: 'web' | 'worker'): Promise<string | null> {
    const procfile = await Fs.readFile(Path.join(cwd, 'Procfile'), 'utf8').catch(() => null);
    const line = procfile?.split('\n').map((entry) => entry.match(/^([\w-]+):\s*(.+)$/)).find((match) => match?.[1] === processType);
    if (line) {
        return line[2].trim();
    }

    const pkg = await Fs.readFile(Path.join(cwd, 'package.json'), 'utf8').then((text) => JSON.parse(text) as { scripts?: Record<string, string> }, () => null);
    return processType === 'web' && pkg?.scripts?.start ? 'npm start' : null;
}
