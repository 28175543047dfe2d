import type { OutsideClient, OutsideResponse } from '../outside/http-client';
import { GitProviderError, PROVIDER_LABELS, type GitProviderErrorCode, type GitProviderName } from './provider';

// The HTTP side every Git host adapter shares: calls under the host's API base URL (a next-page URL the host gives
// is followed only when it stays under it), the bearer token on each call, and refusals turned into
// GitProviderError with a stable code and the host's own words, never a header or the token.

export interface ProviderHttpOptions {
    provider: GitProviderName;
    baseUrl: string;
    token: string;
    client: OutsideClient;
    headers?: Record<string, string>;
}

export interface CallOptions {
    json?: object;
    form?: FormData;                                            // multipart/form-data (Bitbucket's file writes)
    accept?: number[];                                          // statuses answered as they are, not as refusals
}

export class ProviderHttp {
    constructor(private readonly options: ProviderHttpOptions) { }

    get baseUrl(): string {
        return this.options.baseUrl;
    }

    async get<T>(pathOrUrl: string): Promise<T> {
        return (await this.call('GET', pathOrUrl)).json<T>();
    }

    async call(method: string, pathOrUrl: string, options: CallOptions = {}): Promise<OutsideResponse> {
        const { provider, baseUrl } = this.options;
        const url = /^https?:/.test(pathOrUrl) ? pathOrUrl : `${baseUrl}${pathOrUrl}`;
        if (url !== baseUrl && !url.startsWith(`${baseUrl}/`) && !url.startsWith(`${baseUrl}?`)) {
            throw new GitProviderError(provider, 'invalid', `${PROVIDER_LABELS[provider]} pointed outside its API`);
        }

        let body: string | Buffer | undefined;
        const headers: Record<string, string> = { authorization: `Bearer ${this.options.token}`, accept: 'application/json', ...this.options.headers };
        if (options.json) {
            body = JSON.stringify(options.json);
            headers['content-type'] = 'application/json';
        }
        else if (options.form) {
            const encoded = new Response(options.form);
            body = Buffer.from(await encoded.arrayBuffer());
            headers['content-type'] = encoded.headers.get('content-type')!;
        }

        const response = await this.options.client.request({ method, url, headers, ...(body !== undefined ? { body } : {}) });
        if (response.status < 300 || options.accept?.includes(response.status)) {
            return response;
        }

        throw providerRefusal(provider, response);
    }
}

/** A host's refusal: its status as a stable code, with the first thing it said about why. */
export function providerRefusal(provider: GitProviderName, response: OutsideResponse): GitProviderError {
    let message = `${PROVIDER_LABELS[provider]} answered ${response.status}`;
    const said = hostMessage(response);
    if (said) {
        message = `${message}: ${said.slice(0, 200)}`;
    }

    const status = response.status;
    const code: GitProviderErrorCode =
        status === 401 ? 'unauthorized'
            : status === 429 || (status === 403 && response.headers['x-ratelimit-remaining'] === '0') ? 'rate_limited'
                : status === 403 ? 'forbidden'
                    : status === 404 ? 'not_found'
                        : status === 409 ? 'conflict'
                            : status === 400 || status === 422 ? 'invalid'
                                : 'unavailable';
    return new GitProviderError(provider, code, message, status);
}

// GitHub and GitLab say `message` (GitLab sometimes an object of fields), Bitbucket Cloud `error.message`,
// Bitbucket Data Center `errors[0].message`, OAuth endpoints `error_description` or `error`.
function hostMessage(response: OutsideResponse): string | null {
    let body: unknown;
    try {
        body = response.json<unknown>();
    }
    catch {
        return null;
    }

    const field = (value: unknown, key: string): unknown => value && typeof value === 'object' ? (value as Record<string, unknown>)[key] : undefined;
    const candidates = [field(body, 'message'), field(field(body, 'error'), 'message'), field(field(field(body, 'errors'), '0'), 'message'), field(body, 'error_description'), field(body, 'error')];
    for (const candidate of candidates) {
        if (typeof candidate === 'string' && candidate) {
            return candidate;
        }

        if (candidate && typeof candidate === 'object' && !Array.isArray(candidate)) {
            return Object.entries(candidate as Record<string, unknown>).map(([name, value]) => `${name} ${Array.isArray(value) ? value.join(', ') : String(value)}`).join('; ');
        }
    }

    return null;
}

export const encodePath = (path: string) => path.split('/').map(encodeURIComponent).join('/');
