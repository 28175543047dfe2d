import type * as Http from 'node:http';

import type { Lifecycle, Request, ResponseObject, ResponseToolkit } from '@hapi/hapi';

import type { FastReader } from '../db/fast-reader';
import type { HostClass, HostRules } from './hosts';
import type { Measurement } from './meter';
import { notFoundPage } from './pages';

// The edge: on the API server's port, a request whose Host is not one of the platform's belongs to a tenant. Its
// host resolves to a resource (a name in the edge's name space, `<name>.<SITES_DOMAIN>`, or a verified custom
// domain), the resource's kind turns it into a target (what serves it now), and the target's handler answers.
// Every answered request is measured once, keyed by (resourceType, resourceId), through the meter.
//
// The interface, for a kind that serves on the edge:
//   edge.provide('<kind>', provider)  a TargetProvider: (lookup) => the resource's current target, or null
//   edge.serve('<target kind>', handler)  a TargetHandler for a kind of target; 'files' is built in (files.ts)
//   edge.serveRaw('<target kind>', handler)  a RawHandler: answers on Node's request and response, before hapi
// A target is a deployment's stored files (`files`) or a set of upstream instances to proxy to (`upstream`). A
// handler answers with a hapi response (the edge measures it when it is sent), or answers on the raw request and
// response itself (a proxy: `request.raw`), returns `h.abandon`, and calls `context.measure()` when it is done.
// Once attached to the server's listener (`attach`), the edge looks up every tenant host before hapi sees the
// request: a target with a raw handler is answered there, without building a hapi request or running its lifecycle,
// and every other request goes on to hapi with what was looked up, so nothing is read twice.
// server.inject never reaches the listener: there every target goes through the onRequest step.
export interface EdgeResource {
    type: string;                                               // the kind: `site`, `app`
    id: string;
    projectId: string;
    name: string;
}

/** A deployment's files in the file store (store.ts), served as they are. */
export interface FilesTarget {
    kind: 'files';
    resource: EdgeResource;
    deploymentId: string;
    spa: boolean;                                               // unknown paths answer /index.html (200) instead of the 404 page
}

export interface Upstream {
    id: string;                                                 // the instance
    host: string;
    port: number;
}

/** Instances of a release to proxy to (the process runtime's; round-robin, WebSocket upgrades included). */
export interface UpstreamTarget {
    kind: 'upstream';
    resource: EdgeResource;
    deploymentId: string;
    upstreams: readonly Upstream[];
}

export type EdgeTarget = FilesTarget | UpstreamTarget;

/** What a provider is asked: a resource of its kind, the review lane a `<name>-pr-<n>` host names, and the host. */
export interface EdgeLookup {
    resourceId: string;
    review: number | null;
    host: string;
}

export type TargetProvider = (lookup: EdgeLookup) => Promise<EdgeTarget | null>;

export interface EdgeContext {
    request: Request;
    h: ResponseToolkit;
    path: string;                                               // the decoded path
    /** Records the request's outcome (once; later calls are ignored). The edge calls it for hapi responses. */
    measure: (outcome: { status: number; bytes: number }) => void;
}

export type TargetHandler<T extends EdgeTarget = EdgeTarget> = (target: T, context: EdgeContext) => Promise<ResponseObject | symbol>;

/** Node's request and response of a tenant request answered before hapi, and its measurement hook. */
export interface RawExchange {
    req: Http.IncomingMessage;
    res: Http.ServerResponse;
    measure: (outcome: { status: number; bytes: number }) => void;
}

export type RawHandler<T extends EdgeTarget = EdgeTarget> = (target: T, exchange: RawExchange) => unknown;

type Resolved = { host: HostClass; target: EdgeTarget | null };

export interface EdgeOptions {
    hosts: HostRules;
    reader: FastReader;
    measure(measurement: Measurement): void;
}

export class Edge {
    private readonly providers = new Map<string, TargetProvider>();
    private readonly handlers = new Map<EdgeTarget['kind'], TargetHandler<never>>();
    private readonly rawHandlers = new Map<EdgeTarget['kind'], RawHandler<never>>();
    private readonly looked = new WeakMap<Http.IncomingMessage, Resolved>();        // looked up before hapi, for onRequest
    private inflight = 0;                                       // requests answered by a raw handler, not yet closed
    private idle: Array<() => void> = [];

    constructor(private readonly options: EdgeOptions) { }

    get hosts(): HostRules {
        return this.options.hosts;
    }

    provide(resourceType: string, provider: TargetProvider): void {
        if (this.providers.has(resourceType)) {
            throw new Error(`An edge provider for ${resourceType} is registered twice`);
        }

        this.providers.set(resourceType, provider);
    }

    serve<K extends EdgeTarget['kind']>(kind: K, handler: TargetHandler<Extract<EdgeTarget, { kind: K }>>): void {
        if (this.handlers.has(kind)) {
            throw new Error(`An edge handler for ${kind} targets is registered twice`);
        }

        this.handlers.set(kind, handler);
    }

    serveRaw<K extends EdgeTarget['kind']>(kind: K, handler: RawHandler<Extract<EdgeTarget, { kind: K }>>): void {
        if (this.rawHandlers.has(kind)) {
            throw new Error(`A raw edge handler for ${kind} targets is registered twice`);
        }

        this.rawHandlers.set(kind, handler);
    }

    /** What a host names: the platform (null target), or a tenant's resource and its current target (null: nothing live). */
    async resolve(hostHeader: string | undefined): Promise<Resolved> {
        const host = this.options.hosts.classify(hostHeader);
        return { host, target: host.kind === 'platform' ? null : await this.lookup(host, hostHeader) };
    }

    /**
     * Takes over the HTTP server's `request` event: platform hosts go straight on to hapi's listener; a tenant's host
     * is looked up first, and a target with a raw handler is answered there.
     */
    attach(listener: Http.Server): void {
        const hapi = listener.listeners('request') as Array<(req: Http.IncomingMessage, res: Http.ServerResponse) => void>;
        listener.removeAllListeners('request');
        const dispatch = (req: Http.IncomingMessage, res: Http.ServerResponse) => {
            for (const next of hapi) {
                next.call(listener, req, res);
            }
        };

        listener.on('request', (req: Http.IncomingMessage, res: Http.ServerResponse) => {
            const host = this.rawHandlers.size ? this.options.hosts.classify(req.headers.host) : null;
            if (!host || host.kind === 'platform') {
                dispatch(req, res);
                return;
            }

            const received = Date.now();
            void this.lookup(host, req.headers.host).then((target) => {
                const raw = target && this.rawHandlers.get(target.kind);
                const path = raw ? pathOf(req.url) : null;
                if (!raw || path === null) {
                    this.looked.set(req, { host, target });
                    dispatch(req, res);
                    return;
                }

                ++this.inflight;
                res.once('close', () => this.settle());
                const visitor = { address: req.socket.remoteAddress ?? '', userAgent: req.headers['user-agent'] ?? '' };
                return (raw as RawHandler)(target, { req, res, measure: this.measurer(target, path, received, visitor) });
            }, () => dispatch(req, res))                // hapi looks again and answers the failure as every request's
                .catch(() => failed(res));              // a handler that threw: the request ends, the server goes on
        });
    }

    /** Resolves when the requests answered by raw handlers have ended, or after `timeoutMs`. */
    drained(timeoutMs: number): Promise<void> {
        return this.inflight === 0 ? Promise.resolve() : new Promise((resolve) => {
            this.idle.push(resolve);
            setTimeout(resolve, timeoutMs).unref();
        });
    }

    private settle(): void {
        if (--this.inflight === 0) {
            const idle = this.idle;
            this.idle = [];
            idle.forEach((resolve) => resolve());
        }
    }

    /** A tenant host's current target: its resource by name or verified custom domain, then the kind's provider. */
    private async lookup(host: Exclude<HostClass, { kind: 'platform' }>, hostHeader: string | undefined): Promise<EdgeTarget | null> {
        const named = host.kind === 'tenant'
            ? await this.options.reader.get<{ resource_type: string; resource_id: string }>('SELECT resource_type, resource_id FROM edge_names WHERE name = ?', [host.name])
            : await this.options.reader.get<{ resource_type: string; resource_id: string }>('SELECT resource_type, resource_id FROM domains WHERE hostname = ? AND status = \'verified\'', [host.hostname]);
        const provider = named && this.providers.get(named.resource_type);
        return provider ? provider({ resourceId: named.resource_id, review: host.kind === 'tenant' ? host.review : null, host: hostHeader ?? '' }) : null;
    }

    /** The measurement hook of one request: records its outcome once, later calls are ignored. */
    private measurer(target: EdgeTarget, path: string, received: number, visitor: { address: string; userAgent: string }) {
        let measured = false;
        return (outcome: { status: number; bytes: number }) => {
            if (!measured) {
                measured = true;
                this.options.measure({ resource: target.resource, status: outcome.status, bytes: outcome.bytes, path, durationMs: Date.now() - received, at: received, visitor });
            }
        };
    }

    /** The onRequest step: platform hosts go on to the platform's routes; every other host is answered here. */
    readonly onRequest: Lifecycle.Method = async (request, h) => {
        const looked = this.looked.get(request.raw.req);
        const { host, target } = looked ?? await this.resolve(request.info.host);
        if (host.kind === 'platform') {
            return h.continue;
        }

        const handler = target && this.handlers.get(target.kind);
        if (!target || !handler) {
            return notFoundPage(h, 'There is no site at this address.').takeover();
        }

        const path = pathOf(request.raw.req.url);
        if (path === null) {
            return notFoundPage(h, 'This address is not valid.', 400).takeover();
        }

        const visitor = { address: request.info.remoteAddress ?? '', userAgent: (request.headers['user-agent'] as string | undefined) ?? '' };     // read now: the socket may be gone at the end
        const context: EdgeContext = { request, h, path, measure: this.measurer(target, path, request.info.received, visitor) };
        const answer = await (handler as TargetHandler)(target, context);
        if (answer === h.abandon || answer === h.close) {
            return answer;
        }

        // The body's bytes as they leave (after a stored gzip variant was chosen; before hapi's own compression).
        const response = answer as ResponseObject;
        let bytes = 0;
        response.events.on('peek', (chunk: string | Buffer) => {
            bytes += typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk.length;
        });
        response.events.once('finish', () => context.measure({ status: response.statusCode, bytes }));
        request.events.once('disconnect', () => context.measure({ status: response.statusCode, bytes }));
        return response.takeover();
    };
}

// What the URL parser would change in a path: escapes, backslashes, a fragment, controls and spaces (it strips some),
// dot segments, a leading `//`. A path without any of them is its own decoded, normalised form.
const UNPLAIN = /[\x00-\x20%\\#]|\/\.\.?(?:\/|$)|^\/\//;

/** Ends a response whose raw handler failed: 502 when nothing was sent yet, else the connection is cut. */
function failed(res: Http.ServerResponse): void {
    if (res.headersSent) {
        res.destroy();
        return;
    }

    res.writeHead(502, { 'content-type': 'text/plain; charset=utf-8' }).end('The edge could not answer this request.\n');
}

/** The path as sent (the router strips a trailing slash, which tells a folder here), decoded, dot segments resolved; null when it cannot be decoded. */
export function pathOf(url: string | undefined): string | null {
    const query = url?.indexOf('?') ?? -1;
    const raw = url === undefined ? '/' : query < 0 ? url : url.slice(0, query);
    if (raw.startsWith('/') && !UNPLAIN.test(raw)) {
        return raw;
    }

    try {
        return decodeURIComponent(new URL(url ?? '/', 'http://edge.invalid').pathname);
    }
    catch {
        return null;
    }
}
