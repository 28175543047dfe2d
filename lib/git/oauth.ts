import type { OutsideClient, OutsideResponse } from '../outside/http-client';
import { GitProviderError, PROVIDER_LABELS, type GitProviderName } from './provider';

// The OAuth 2.0 authorization-code client each Git host is connected through: the address the browser is sent to,
// the exchange of the code the host sends back, and the refresh of an expiring token. Hosts differ only in their
// endpoints, scopes and how the client authenticates (GitHub, GitLab and Bitbucket Data Center: in the form body;
// Bitbucket Cloud: HTTP Basic).

export interface OAuthClientSettings {
    provider: GitProviderName;
    clientId: string;
    clientSecret: string;
    authorizeUrl: string;
    tokenUrl: string;
    scope: string | null;                                       // space-separated; null: the scopes set on the host's OAuth consumer
    clientAuth: 'body' | 'basic';
    client: OutsideClient;
}

/** What a host issued: the access token, and where it expires, the refresh token and when. Never logged. */
export interface TokenSet {
    accessToken: string;
    refreshToken: string | null;
    expiresAt: string | null;
    scopes: string | null;
}

/** The host refused the code or the refresh token (`invalid_grant`), or the client (`invalid_client`). */
export class OAuthGrantError extends Error {
    constructor(readonly provider: GitProviderName, readonly error: string, readonly description: string | null) {
        super(`${PROVIDER_LABELS[provider]} refused the grant: ${error}${description ? ` (${description.slice(0, 200)})` : ''}`);
    }
}

export class OAuthClient {
    constructor(private readonly settings: OAuthClientSettings, private readonly now: () => number = Date.now) { }

    /** Where the browser goes to approve the connection; the host sends it back to `redirectUri` with a code and the state. */
    authorizeUrl(state: string, redirectUri: string): string {
        const url = new URL(this.settings.authorizeUrl);
        url.searchParams.set('client_id', this.settings.clientId);
        url.searchParams.set('redirect_uri', redirectUri);
        url.searchParams.set('response_type', 'code');
        url.searchParams.set('state', state);
        if (this.settings.scope) {
            url.searchParams.set('scope', this.settings.scope);
        }

        return url.href;
    }

    get authorizeOrigin(): string {
        return new URL(this.settings.authorizeUrl).origin;
    }

    exchange(code: string, redirectUri: string): Promise<TokenSet> {
        return this.grant({ grant_type: 'authorization_code', code, redirect_uri: redirectUri });
    }

    refresh(refreshToken: string): Promise<TokenSet> {
        return this.grant({ grant_type: 'refresh_token', refresh_token: refreshToken });
    }

    private async grant(fields: Record<string, string>): Promise<TokenSet> {
        const { provider, clientId, clientSecret, clientAuth } = this.settings;
        const form = new URLSearchParams(fields);
        const headers: Record<string, string> = { accept: 'application/json', 'content-type': 'application/x-www-form-urlencoded' };
        if (clientAuth === 'basic') {
            headers.authorization = `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}`;
        }
        else {
            form.set('client_id', clientId);
            form.set('client_secret', clientSecret);
        }

        const response = await this.settings.client.request({ method: 'POST', url: this.settings.tokenUrl, headers, body: form.toString() });
        const body = parse(response);
        // GitHub answers a refused code with 200 and an `error` field.
        if (typeof body?.error === 'string' && (response.status < 500)) {
            throw new OAuthGrantError(provider, body.error, typeof body.error_description === 'string' ? body.error_description : null);
        }

        if (response.status >= 300 || typeof body?.access_token !== 'string' || !body.access_token) {
            if (response.status === 400 || response.status === 401) {
                throw new OAuthGrantError(provider, 'invalid_grant', null);
            }

            throw new GitProviderError(provider, 'unavailable', `${PROVIDER_LABELS[provider]}'s token endpoint answered ${response.status}`, response.status);
        }

        const expiresIn = Number(body.expires_in);
        return {
            accessToken: body.access_token,
            refreshToken: typeof body.refresh_token === 'string' && body.refresh_token ? body.refresh_token : null,
            expiresAt: Number.isFinite(expiresIn) && expiresIn > 0 ? new Date(this.now() + expiresIn * 1000).toISOString() : null,
            scopes: typeof body.scope === 'string' ? body.scope : typeof body.scopes === 'string' ? body.scopes : null
        };
    }
}

function parse(response: OutsideResponse): Record<string, unknown> | null {
    try {
        const body = response.json<unknown>();
        return body && typeof body === 'object' ? body as Record<string, unknown> : null;
    }
    catch {
        return null;
    }
}
