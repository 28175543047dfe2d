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
// A target is a deployment's stored files (`files`) or a set of upstream instances to proxy to (`upstream`). A
// handler answers with a hapi response (the edge measures it when it is sent), or answers on the raw request and
// response itself (a proxy: `request.raw`), returns `h.abandon`, and calls `context.measure()` when it is done.
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
    measure(outcome: { status: number; bytes: number }): void;
}

export type TargetHandler<T extends EdgeTarget = EdgeTarget> = (target: T, context: EdgeContext) => Promise<ResponseObject | symbol>;

export interface EdgeOptions {
    hosts: HostRules;
    reader: FastReader;
    measure(measurement: Measurement): void;
}

export class Edge {
    private readonly providers = new Map<string, TargetProvider>();
    private readonly handlers = new Map<EdgeTarget['kind'], TargetHandler<never>>();

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

    /** What a host names: the platform (null target), or a tenant's resource and its current target (null: nothing live). */
    async resolve(hostHeader: string | undefined): Promise<{ host: HostClass; target: EdgeTarget | null }> {
        const host = this.options.hosts.classify(hostHeader);
        if (host.kind === 'platform') {
            return { host, target: null };
        }

        const named = host.kind === 'tenant'
            ? await this.options.reader.get<{ resource_type: string; resource_id: string }>('SELECT resource_type, resource_id FROM edge_names WHERE name = ?', [host.name])
            : await this.options.reader.get<{ resource_type: string; resource_id: string }>('SELECT resource_type, resource_id FROM domains WHERE hostname = ? AND status = \'verified\'', [host.hostname]);
        const provider = named && this.providers.get(named.resource_type);
        const target = provider ? await provider({ resourceId: named.resource_id, review: host.kind === 'tenant' ? host.review : null, host: hostHeader ?? '' }) : null;
        return { host, target };
    }

    /** The onRequest step: platform hosts go on to the platform's routes; every other host is answered here. */
    readonly onRequest: Lifecycle.Method = async (request, h) => {
        const { host, target } = await this.resolve(request.info.host);
        if (host.kind === 'platform') {
            return h.continue;
        }

        const handler = target && this.handlers.get(target.kind);
        if (!target || !handler) {
            return notFoundPage(h, 'There is no site at this address.').takeover();
        }

        // The path as sent (the router strips a trailing slash, which tells a folder here), dot segments resolved.
        let path: string;
        try {
            path = decodeURIComponent(new URL(request.raw.req.url ?? '/', 'http://edge.invalid').pathname);
        }
        catch {
            return notFoundPage(h, 'This address is not valid.', 400).takeover();
        }

        let measured = false;
        const visitor = { address: request.info.remoteAddress ?? '', userAgent: (request.headers['user-agent'] as string | undefined) ?? '' };     // read now: the socket may be gone at the end
        const context: EdgeContext = {
            request, h, path,
            measure: (outcome) => {
                if (!measured) {
                    measured = true;
                    this.options.measure({
                        resource: target.resource, status: outcome.status, bytes: outcome.bytes, path,
                        durationMs: Date.now() - request.info.received, at: request.info.received,
                        visitor
                    });
                }
            }
        };
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
