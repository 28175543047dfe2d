import * as Fs from 'node:fs/promises';
import * as Os from 'node:os';
import * as Path from 'node:path';

import type { GitAccess, RepositorySettings } from './access';
import type { GitProviderName } from './provider';

// What a runtime needs to clone a resource's repository with its project's connection, without the token in the
// URL, in argv or in git's configuration: a plain HTTPS URL, and the environment that makes git ask a helper
// (GIT_ASKPASS) for the username and the password. The helper reads the token from a file only its owner can read,
// in a folder only its owner can enter; credential helpers are switched off for the run, so git stores the token
// nowhere. Run `git clone <url> <dir>` with `env` added to git's environment, then call `dispose()`.
//
//   const clone = await cloneCredentials(services.git, app, 'app', `/v1/apps/${app.name}`);
//   try { await execFile('git', ['clone', '--branch', clone.branch, clone.url, dir], { env: { ...baseEnv, ...clone.env } }); }
//   finally { await clone.dispose(); }

export interface CloneCredentials {
    url: string;                                                // https://host/owner/name.git, no credentials in it
    branch: string;
    env: Record<string, string>;                                // to add to git's environment
    dispose(): Promise<void>;                                   // removes the helper and the token file
}

export interface CloneOptions {
    tmpDir?: string;                                            // where the helper's folder is made (default: the OS's)
}

const quote = (value: string) => `'${value.replace(/'/g, '\'\\\'\'')}'`;

export async function cloneCredentials(access: GitAccess, resource: RepositorySettings, noun: string, path: string, options: CloneOptions = {}): Promise<CloneCredentials> {
    const repository = await access.repositoryOf(resource, noun, path);
    const connection = await access.required(resource.projectId, resource.repoProvider as GitProviderName);
    const host = access.host(connection.provider);
    const token = await access.tokenFor(connection);

    const dir = await Fs.mkdtemp(Path.join(options.tmpDir ?? Os.tmpdir(), 'hostless-git-'));
    await Fs.chmod(dir, 0o700);
    const tokenFile = Path.join(dir, 'token');
    const helper = Path.join(dir, 'askpass');
    await Fs.writeFile(tokenFile, token, { mode: 0o600 });
    await Fs.writeFile(helper, [
        '#!/bin/sh',
        '# git asks "Username for ..." then "Password for ...": the connection\'s account, then its token.',
        'case "$1" in',
        `    Username*) printf '%s\\n' ${quote(host.cloneUsername(connection.accountLogin))} ;;`,
        `    *) cat ${quote(tokenFile)} ;;`,
        'esac',
        ''
    ].join('\n'), { mode: 0o700 });

    return {
        url: host.cloneUrl(repository.repo),
        branch: repository.branch,
        env: {
            GIT_ASKPASS: helper,
            GIT_TERMINAL_PROMPT: '0',
            // No credential helper for this run: git would otherwise hand the token to one to store.
            GIT_CONFIG_COUNT: '1',
            GIT_CONFIG_KEY_0: 'credential.helper',
            GIT_CONFIG_VALUE_0: ''
        },
        dispose: () => Fs.rm(dir, { recursive: true, force: true })
    };
}
