import { OutsideClient } from '../outside/http-client';
import { BitbucketProvider } from './bitbucket';
import { BitbucketServerProvider } from './bitbucket-server';
import { GitHubProvider } from './github';
import { GitLabProvider } from './gitlab';
import { OAuthClient } from './oauth';
import { PROVIDER_LABELS, type GitProvider, type GitProviderName } from './provider';

// The Git hosts of this deployment, from its settings: each one's OAuth client (null until the operator sets its
// client id and secret), its API adapter, how a token is revoked there, and how a repository is cloned over HTTPS.

export interface GitHostsSettings {
    github: { webUrl: string; apiUrl: string; clientId: string | null; clientSecret: string | null };
    gitlab: { url: string; clientId: string | null; clientSecret: string | null };
    bitbucket: { edition: 'cloud' | 'datacenter'; url: string; apiUrl: string; clientId: string | null; clientSecret: string | null };
}

export interface GitHost {
    name: GitProviderName;
    label: string;
    oauth: OAuthClient | null;
    settings: string;                                           // what the operator sets to connect it
    provider(token: string): GitProvider;
    /** Revokes a token at the host: true when revoked there, false when the host offers no way to. */
    revoke(token: string): Promise<boolean>;
    cloneUrl(repo: string): string;
    cloneUsername(accountLogin: string): string;
}

export type GitHosts = Readonly<Record<GitProviderName, GitHost>>;

export const DEFAULT_GIT_HOSTS: GitHostsSettings = {
    github: { webUrl: 'https://github.com', apiUrl: 'https://api.github.com', clientId: null, clientSecret: null },
    gitlab: { url: 'https://gitlab.com', clientId: null, clientSecret: null },
    bitbucket: { edition: 'cloud', url: 'https://bitbucket.org', apiUrl: 'https://api.bitbucket.org/2.0', clientId: null, clientSecret: null }
};

const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;

export function gitHosts(settings: GitHostsSettings, allowlist: readonly string[], now: () => number = Date.now): GitHosts {
    const clients = {
        github: new OutsideClient({ service: 'github', allowlist }),
        gitlab: new OutsideClient({ service: 'gitlab', allowlist }),
        bitbucket: new OutsideClient({ service: 'bitbucket', allowlist })
    };
    const oauth = (provider: GitProviderName, credentials: { clientId: string | null; clientSecret: string | null }, endpoints: { authorizeUrl: string; tokenUrl: string; scope: string | null; clientAuth: 'body' | 'basic' }) =>
        credentials.clientId && credentials.clientSecret
            ? new OAuthClient({ provider, clientId: credentials.clientId, clientSecret: credentials.clientSecret, client: clients[provider], ...endpoints }, now)
            : null;

    const { github, gitlab, bitbucket } = settings;
    const gitlabApi = `${gitlab.url}/api/v4`;
    const datacenter = bitbucket.edition === 'datacenter';

    return {
        github: {
            name: 'github',
            label: PROVIDER_LABELS.github,
            settings: 'GITHUB_CLIENT_ID and GITHUB_CLIENT_SECRET',
            oauth: oauth('github', github, { authorizeUrl: `${github.webUrl}/login/oauth/authorize`, tokenUrl: `${github.webUrl}/login/oauth/access_token`, scope: 'repo read:org', clientAuth: 'body' }),
            provider: (token) => new GitHubProvider({ baseUrl: github.apiUrl, token, client: clients.github }),
            // Revokes this token only: the grant may hold tokens of other projects the user connected.
            revoke: async (token) => {
                const response = await clients.github.request({
                    method: 'DELETE', url: `${github.apiUrl}/applications/${encodeURIComponent(github.clientId ?? '')}/token`,
                    headers: { authorization: basic(github.clientId ?? '', github.clientSecret ?? ''), accept: 'application/vnd.github+json', 'content-type': 'application/json' },
                    body: JSON.stringify({ access_token: token })
                });
                return revoked('github', response.status, [204, 404]);
            },
            cloneUrl: (repo) => `${github.webUrl}/${repo}.git`,
            cloneUsername: () => 'x-access-token'
        },
        gitlab: {
            name: 'gitlab',
            label: PROVIDER_LABELS.gitlab,
            settings: 'GITLAB_CLIENT_ID and GITLAB_CLIENT_SECRET',
            oauth: oauth('gitlab', gitlab, { authorizeUrl: `${gitlab.url}/oauth/authorize`, tokenUrl: `${gitlab.url}/oauth/token`, scope: 'api', clientAuth: 'body' }),
            provider: (token) => new GitLabProvider({ baseUrl: gitlabApi, token, client: clients.gitlab }),
            revoke: async (token) => {
                const body = new URLSearchParams({ token, client_id: gitlab.clientId ?? '', client_secret: gitlab.clientSecret ?? '' });
                const response = await clients.gitlab.request({ method: 'POST', url: `${gitlab.url}/oauth/revoke`, headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: body.toString() });
                return revoked('gitlab', response.status, [200]);
            },
            cloneUrl: (repo) => `${gitlab.url}/${repo}.git`,
            cloneUsername: () => 'oauth2'
        },
        bitbucket: {
            name: 'bitbucket',
            label: PROVIDER_LABELS.bitbucket,
            settings: 'BITBUCKET_CLIENT_ID and BITBUCKET_CLIENT_SECRET',
            oauth: datacenter
                ? oauth('bitbucket', bitbucket, { authorizeUrl: `${bitbucket.url}/rest/oauth2/latest/authorize`, tokenUrl: `${bitbucket.url}/rest/oauth2/latest/token`, scope: 'PUBLIC_REPOS REPO_WRITE', clientAuth: 'body' })
                : oauth('bitbucket', bitbucket, { authorizeUrl: `${bitbucket.url}/site/oauth2/authorize`, tokenUrl: `${bitbucket.url}/site/oauth2/access_token`, scope: null, clientAuth: 'basic' }),
            provider: (token) => datacenter
                ? new BitbucketServerProvider({ baseUrl: bitbucket.apiUrl, webUrl: bitbucket.url, token, client: clients.bitbucket })
                : new BitbucketProvider({ baseUrl: bitbucket.apiUrl, token, client: clients.bitbucket }),
            // Neither Bitbucket Cloud nor Data Center lets an OAuth consumer revoke a token: it expires (after two
            // hours on Cloud) and the refresh token is forgotten here.
            revoke: () => Promise.resolve(false),
            cloneUrl: (repo) => {
                if (!datacenter) {
                    return `${bitbucket.url}/${repo}.git`;
                }

                const [key, slug] = repo.split('/') as [string, string];
                return `${bitbucket.url}/scm/${key.toLowerCase()}/${slug}.git`;
            },
            cloneUsername: (login) => datacenter ? login : 'x-token-auth'
        }
    };
}

function revoked(provider: GitProviderName, status: number, ok: number[]): boolean {
    if (!ok.includes(status)) {
        throw new Error(`${PROVIDER_LABELS[provider]} did not revoke the token: it answered ${status}`);
    }

    return true;
}
