import * as Http from 'node:http';
import * as Https from 'node:https';
import * as Net from 'node:net';

import { redact } from '../redact';
import { DestinationPolicy, DestinationRefusedError } from './destination';

// The one HTTP client every outside-service adapter is built on: timeouts, retries of idempotent calls on transient
// failures, redirects followed only to allowed destinations (and never carrying credentials to another origin), a
// cap on response size, and errors that name the service but never a header or a token.

export interface OutsideRequest {
    method: string;
    url: string;
    headers?: Record<string, string>;
    body?: string | Buffer;
    timeoutMs?: number;
}

export interface OutsideResponse {
    status: number;
    headers: Http.IncomingHttpHeaders;
    body: Buffer;
    url: string;                                                // after redirects
    text(): string;
    json<T = unknown>(): T;
}

export type OutsideErrorCode = 'refused_destination' | 'timeout' | 'network' | 'too_many_redirects' | 'too_large' | 'bad_url';

export class OutsideServiceError extends Error {
    constructor(readonly service: string, readonly code: OutsideErrorCode, message: string) {
        super(`${service}: ${redact(message)}`);
    }
}

export interface OutsideClientOptions {
    service: string;                                            // named in errors and the User-Agent
    allowlist?: readonly string[];
    timeoutMs?: number;
    retries?: number;
    retryBaseMs?: number;
    maxRedirects?: number;
    maxResponseBytes?: number;
}

const IDEMPOTENT = new Set(['GET', 'HEAD', 'PUT', 'DELETE', 'OPTIONS']);
const TRANSIENT = new Set([429, 502, 503, 504]);
const CREDENTIAL_HEADERS = ['authorization', 'cookie', 'proxy-authorization', 'private-token', 'x-api-key'];

export class OutsideClient {
    private readonly policy: DestinationPolicy;
    private readonly settings: Required<Omit<OutsideClientOptions, 'allowlist'>>;

    constructor(options: OutsideClientOptions) {
        this.policy = new DestinationPolicy(options.allowlist ?? []);
        this.settings = {
            service: options.service,
            timeoutMs: options.timeoutMs ?? 10_000,
            retries: options.retries ?? 2,
            retryBaseMs: options.retryBaseMs ?? 200,
            maxRedirects: options.maxRedirects ?? 3,
            maxResponseBytes: options.maxResponseBytes ?? 10 * 1024 * 1024
        };
    }

    async request(request: OutsideRequest): Promise<OutsideResponse> {
        const method = request.method.toUpperCase();
        const attempts = IDEMPOTENT.has(method) ? this.settings.retries + 1 : 1;
        for (let attempt = 1; ; ++attempt) {
            try {
                const response = await this.follow({ ...request, method });
                if (attempt < attempts && TRANSIENT.has(response.status)) {
                    await this.pause(attempt, response.headers['retry-after']);
                    continue;
                }

                return response;
            }
            catch (err) {
                const retryable = err instanceof OutsideServiceError && (err.code === 'network' || err.code === 'timeout');
                if (!retryable || attempt >= attempts) {
                    throw err;
                }

                await this.pause(attempt);
            }
        }
    }

    private async follow(request: OutsideRequest): Promise<OutsideResponse> {
        let current = request;
        for (let hop = 0; ; ++hop) {
            const response = await this.once(current);
            const location = response.headers.location;
            if (![301, 302, 303, 307, 308].includes(response.status) || !location || !['GET', 'HEAD'].includes(current.method)) {
                return response;
            }

            if (hop >= this.settings.maxRedirects) {
                throw new OutsideServiceError(this.settings.service, 'too_many_redirects', `more than ${this.settings.maxRedirects} redirects`);
            }

            const next = new URL(location, current.url);
            const sameOrigin = next.origin === new URL(current.url).origin;
            const headers = Object.fromEntries(Object.entries(current.headers ?? {}).filter(([name]) => sameOrigin || !CREDENTIAL_HEADERS.includes(name.toLowerCase())));
            current = { ...current, url: next.href, headers };
        }
    }

    private once(request: OutsideRequest): Promise<OutsideResponse> {
        const { service, timeoutMs, maxResponseBytes } = this.settings;
        let url: URL;
        try {
            url = new URL(request.url);
        }
        catch {
            return Promise.reject(new OutsideServiceError(service, 'bad_url', 'the URL is not valid'));
        }

        if (url.protocol !== 'http:' && url.protocol !== 'https:') {
            return Promise.reject(new OutsideServiceError(service, 'refused_destination', `the ${url.protocol} scheme is not allowed`));
        }

        const hostname = url.hostname.replace(/^\[|\]$/g, '');
        if (Net.isIP(hostname)) {
            try {
                this.policy.assertAllowed(hostname, hostname);
            }
            catch (err) {
                return Promise.reject(new OutsideServiceError(service, 'refused_destination', (err as Error).message));
            }
        }

        const transport = url.protocol === 'https:' ? Https : Http;
        return new Promise((resolve, reject) => {
            const req = transport.request(url, {
                method: request.method,
                // A body carries its length: Node frames no body of a DELETE (or GET) unless told, and servers drop it.
                headers: { 'user-agent': `hostless (${service})`, ...request.headers, ...(request.body !== undefined ? { 'content-length': String(Buffer.byteLength(request.body)) } : {}) },
                lookup: this.policy.lookup(),
                timeout: request.timeoutMs ?? timeoutMs
            }, (res) => {
                const chunks: Buffer[] = [];
                let size = 0;
                let tooLarge = false;
                // Past the cap the answer is refused at once and the connection dropped: chunks already on their way,
                // and the end of a cut-off body, must not turn into another error or a truncated success.
                res.on('data', (chunk: Buffer) => {
                    size += chunk.length;
                    if (size > maxResponseBytes && !tooLarge) {
                        tooLarge = true;
                        reject(new OutsideServiceError(service, 'too_large', `the response is larger than ${maxResponseBytes} bytes`));
                        req.destroy();
                    }

                    if (!tooLarge) {
                        chunks.push(chunk);
                    }
                });
                res.on('end', () => {
                    if (tooLarge) {
                        return;
                    }

                    const body = Buffer.concat(chunks);
                    resolve({
                        status: res.statusCode!,
                        headers: res.headers,
                        body,
                        url: url.href,
                        text: () => body.toString('utf8'),
                        json: <T>() => JSON.parse(body.toString('utf8')) as T
                    });
                });
                res.on('error', (err) => reject(this.wrap(err)));
            });

            req.on('timeout', () => req.destroy(new OutsideServiceError(service, 'timeout', `no answer within ${request.timeoutMs ?? timeoutMs} ms`)));
            req.on('error', (err) => reject(this.wrap(err)));
            req.end(request.body);
        });
    }

    private wrap(err: Error): OutsideServiceError {
        if (err instanceof OutsideServiceError) {
            return err;
        }

        if (err instanceof DestinationRefusedError) {
            return new OutsideServiceError(this.settings.service, 'refused_destination', err.message);
        }

        return new OutsideServiceError(this.settings.service, 'network', `${(err as NodeJS.ErrnoException).code ?? 'error'}: ${err.message}`);
    }

    private pause(attempt: number, retryAfter?: string | string[]): Promise<void> {
        const seconds = Number(Array.isArray(retryAfter) ? retryAfter[0] : retryAfter);
        const wait = Number.isFinite(seconds) && seconds > 0 ? Math.min(seconds * 1000, 5000) : this.settings.retryBaseMs * 2 ** (attempt - 1);
        return new Promise((resolve) => setTimeout(resolve, wait));
    }
}
