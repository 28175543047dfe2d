import Joi from 'joi';

import { OutsideClient, OutsideServiceError } from '../outside/http-client';
import { fields, validationPreferences } from '../validation';
import { isLoopbackUrl, MAX_REDIRECT_URI_LENGTH, redirectUriProblem } from './redirect-uri';

// Client ID Metadata Documents (draft-ietf-oauth-client-id-metadata-document; the MCP 2026-07-28 way for a client to
// identify itself without registering): a `client_id` that is an https URL names a JSON document about the client.
// It is fetched through the outbound client (private destinations refused, no redirects, 5 KiB, a time limit), must
// name itself in `client_id`, and is cached as its Cache-Control says, for at most 24 hours; errors are never cached.
// Plain http is allowed for loopback URLs outside production only (tests).
export const MAX_DOCUMENT_BYTES = 5 * 1024;
export const MAX_CACHE_MS = 24 * 3600 * 1000;
const DEFAULT_CACHE_MS = 3600 * 1000;
const MAX_ENTRIES = 1000;

export interface ClientMetadata {
    clientId: string;
    name: string;
    host: string;                                               // what the consent screen shows the user
    redirectUris: string[];
}

/** The document could not be used; the message says why in a user's words. */
export class ClientMetadataError extends Error { }

export interface ClientMetadataOptions {
    allowlist: readonly string[];                               // OUTBOUND_ALLOWLIST: destinations allowed though not public
    allowHttpLoopback: boolean;                                 // outside production: http://127.0.0.1... documents (tests)
    timeoutMs?: number;
}

/** Whether a client_id names a metadata document rather than a registered client. */
export function isMetadataDocumentId(clientId: string): boolean {
    return /^https?:\/\//i.test(clientId);
}

const documentSchema = Joi.object({
    client_id: Joi.string().required(),
    client_name: fields.text(128),                              // shown on the consent screen: nothing invisible nor reordering
    redirect_uris: Joi.array().items(Joi.string().max(MAX_REDIRECT_URI_LENGTH)).min(1).max(20).required(),
    token_endpoint_auth_method: Joi.string().valid('none'),
    grant_types: Joi.array().items(Joi.string()).has(Joi.string().valid('authorization_code')),
    response_types: Joi.array().items(Joi.string()).has(Joi.string().valid('code')),
    client_secret: Joi.forbidden(),
    client_secret_expires_at: Joi.forbidden()
}).unknown(true);

export class ClientMetadataDocuments {
    private readonly client: OutsideClient;
    private readonly cache = new Map<string, { metadata: ClientMetadata; until: number }>();

    constructor(private readonly options: ClientMetadataOptions) {
        this.client = new OutsideClient({
            service: 'client metadata document',
            allowlist: options.allowlist,
            timeoutMs: options.timeoutMs ?? 5000,
            retries: 0,
            maxRedirects: 0,
            maxResponseBytes: MAX_DOCUMENT_BYTES
        });
    }

    async resolve(clientId: string): Promise<ClientMetadata> {
        const url = this.documentUrl(clientId);
        const cached = this.cache.get(clientId);
        if (cached && cached.until > Date.now()) {
            return cached.metadata;
        }

        const response = await this.fetch(clientId);
        if (response.status !== 200) {
            throw new ClientMetadataError(`its metadata document answered with status ${response.status}`);
        }

        if (!/^application\/([\w.+-]+\+)?json\s*(;|$)/i.test(String(response.headers['content-type'] ?? ''))) {
            throw new ClientMetadataError('its metadata document is not served as JSON');
        }

        let document: unknown;
        try {
            document = response.json();
        }
        catch {
            throw new ClientMetadataError('its metadata document is not valid JSON');
        }

        const metadata = this.validate(clientId, url, document);
        const lifetime = cacheLifetime(response.headers['cache-control']);
        if (lifetime > 0) {
            if (this.cache.size >= MAX_ENTRIES) {
                this.cache.delete(this.cache.keys().next().value!);
            }

            this.cache.set(clientId, { metadata, until: Date.now() + lifetime });
        }

        return metadata;
    }

    // The URL rules of the draft: https with a path, no fragment, no user info, no dot segments (canonical form).
    private documentUrl(clientId: string): URL {
        let url: URL;
        try {
            url = new URL(clientId);
        }
        catch {
            throw new ClientMetadataError('its client_id is not a valid URL');
        }

        const http = url.protocol === 'http:' && this.options.allowHttpLoopback && isLoopbackUrl(url);
        if (url.protocol !== 'https:' && !http) {
            throw new ClientMetadataError('a client_id URL must use https');
        }

        if (url.href !== clientId || clientId.length > MAX_REDIRECT_URI_LENGTH || url.hash || url.username || url.password || url.pathname === '/') {
            throw new ClientMetadataError('a client_id URL must be in canonical form, with a path, and without a fragment or user info');
        }

        return url;
    }

    private async fetch(clientId: string) {
        try {
            return await this.client.request({ method: 'GET', url: clientId, headers: { accept: 'application/json' } });
        }
        catch (err) {
            if (err instanceof OutsideServiceError) {
                const reasons: Record<string, string> = {
                    refused_destination: 'its metadata document is on an address this server may not fetch',
                    too_many_redirects: 'its metadata document answered with a redirect, which is not followed',
                    too_large: `its metadata document is larger than ${MAX_DOCUMENT_BYTES} bytes`,
                    timeout: 'its metadata document did not arrive in time'
                };
                throw new ClientMetadataError(reasons[err.code] ?? 'its metadata document could not be fetched');
            }

            throw err;
        }
    }

    private validate(clientId: string, url: URL, document: unknown): ClientMetadata {
        const result = documentSchema.validate(document, validationPreferences);
        if (result.error) {
            throw new ClientMetadataError(`its metadata document is not valid: ${result.error.details[0].message}`);
        }

        const value = result.value as { client_id: string; client_name?: string; redirect_uris: string[] };

        if (value.client_id !== clientId) {
            throw new ClientMetadataError('its metadata document names another client_id than its own URL');
        }

        for (const uri of value.redirect_uris) {
            const problem = redirectUriProblem(uri);
            if (problem) {
                throw new ClientMetadataError(`its metadata document lists a redirect URI that ${problem}`);
            }
        }

        return { clientId, name: value.client_name ?? url.host, host: url.host, redirectUris: value.redirect_uris };
    }
}

/** How long a document may be kept: its max-age, at most 24 hours; an hour when it says nothing; never for no-store. */
function cacheLifetime(header: string | string[] | undefined): number {
    const value = String(header ?? '').toLowerCase();
    if (/(^|,)\s*(no-store|no-cache)\s*(,|$)/.test(value)) {
        return 0;
    }

    const maxAge = /(^|,)\s*max-age\s*=\s*"?(\d+)"?/.exec(value);
    return maxAge ? Math.min(Number(maxAge[2]) * 1000, MAX_CACHE_MS) : DEFAULT_CACHE_MS;
}
