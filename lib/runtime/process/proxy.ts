import * as Crypto from 'node:crypto';
import * as Http from 'node:http';
import type * as Net from 'node:net';

import { ProxyServer } from 'httpxy';

import type { Edge, EdgeContext, RawExchange, UpstreamTarget } from '../../edge/edge';
import type { Span, Traces } from '../../resources/traces';

// The edge's `upstream` handler: a request for an app's host is proxied (httpxy, WebSocket upgrades included) to
// one of its serving instances, round-robin, over kept-alive connections. Each request is measured by the edge's
// meter when the response ends, counted in flight per instance (a release switch waits for the old instances' count
// to reach zero), and recorded as a span; the trace context goes on to the app in `traceparent`.
const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

// Trace and span ids come from a pool of random bytes filled 4 KiB at a time (ids, not secrets): one system call for
// about 170 requests instead of two each.
const pool = Buffer.alloc(4096);
let poolOffset = pool.length;

function randomHex(bytes: number): string {
    if (poolOffset + bytes > pool.length) {
        Crypto.randomFillSync(pool);
        poolOffset = 0;
    }

    poolOffset += bytes;
    return pool.toString('hex', poolOffset - bytes, poolOffset);
}

/**
 * The id of a trace the edge starts: the time in milliseconds (6 bytes), then 10 random bytes, as AWS X-Ray's trace
 * ids begin with their time. Spans are stored keyed by trace id: ids in time order go in at the end of that index
 * rather than anywhere in it, which halved the cost of storing a span on SQLite (29 against 13 us a span in batches
 * of 650, with 130,000 stored). A trace continued from a request's `traceparent` keeps its id.
 */
export function newTraceId(now = Date.now()): string {
    return now.toString(16).padStart(12, '0') + randomHex(10);
}

export class UpstreamProxy {
    private readonly proxy: ProxyServer;
    private readonly agent = new Http.Agent({ keepAlive: true, maxSockets: 256 });
    private readonly counts = new Map<string, number>();
    private readonly turns = new Map<string, number>();
    private readonly outcomes = new WeakMap<Http.IncomingMessage, { status: number; bytes: number }>();
    private spans: Span[] = [];
    private timer: NodeJS.Timeout | null = null;

    constructor(private readonly options: { traces: Traces; flushMs: number; onError: (err: unknown) => void }) {
        this.proxy = new ProxyServer({ agent: this.agent, xfwd: true, proxyTimeout: 300_000 });
        this.proxy.on('proxyRes', (proxyRes, req) => {
            const outcome = this.outcomes.get(req);
            if (outcome) {
                outcome.status = proxyRes.statusCode ?? 502;
                proxyRes.on('data', (chunk: Buffer) => {
                    outcome.bytes += chunk.length;
                });
            }
        });
    }

    inflight = (instanceId: string): number => this.counts.get(instanceId) ?? 0;

    /** The edge handler for `upstream` targets, through hapi (server.inject, or an edge not attached to its listener). */
    readonly handle = async (target: UpstreamTarget, context: EdgeContext): Promise<symbol> => {
        const { req, res } = context.request.raw;
        await this.handleRaw(target, { req, res, measure: context.measure });
        return context.h.abandon;
    };

    /** The raw edge handler for `upstream` targets: proxies on Node's request and response (settles when httpxy does). */
    readonly handleRaw = (target: UpstreamTarget, { req, res, measure }: RawExchange): Promise<void> => {
        const upstream = this.pick(target);
        const started = Date.now();
        const trace = this.traceOf(req);
        this.enter(upstream.id);
        const outcome = { status: 502, bytes: 0 };
        this.outcomes.set(req, outcome);
        res.once('close', () => {
            this.leave(upstream.id);
            measure(outcome);
            this.span(target, req, upstream.id, trace, started, outcome.status);
        });
        return this.proxy.web(req, res, { target: { host: upstream.host, port: upstream.port, protocol: 'http:' } }).catch(() => {
            if (!res.headersSent) {
                outcome.status = 502;
                res.writeHead(502, { 'content-type': 'text/plain; charset=utf-8' });
                res.end('The app is not answering.\n');
            }
        });
    };

    /** The HTTP server's `upgrade` listener: WebSocket upgrades of an app's host go to one of its instances. */
    upgrade(edge: Edge): (req: Http.IncomingMessage, socket: Net.Socket, head: Buffer) => void {
        return (req, socket, head) => {
            void (async () => {
                const { target } = await edge.resolve(req.headers.host);
                if (target?.kind !== 'upstream' || !target.upstreams.length) {
                    socket.end('HTTP/1.1 404 Not Found\r\nconnection: close\r\ncontent-length: 0\r\n\r\n');
                    return;
                }

                const upstream = this.pick(target);
                this.enter(upstream.id);
                socket.once('close', () => this.leave(upstream.id));
                await this.proxy.ws(req, socket, { target: { host: upstream.host, port: upstream.port, protocol: 'http:' } }, head);
            })().catch(() => socket.destroy());
        };
    }

    async stop(): Promise<void> {
        await this.flush();
        this.agent.destroy();
    }

    async flush(): Promise<void> {
        if (this.timer) {
            clearTimeout(this.timer);
            this.timer = null;
        }

        const spans = this.spans;
        this.spans = [];
        await this.options.traces.record(spans).catch(this.options.onError);
    }

    private pick(target: UpstreamTarget) {
        const turn = this.turns.get(target.resource.id) ?? 0;
        this.turns.set(target.resource.id, turn + 1);
        return target.upstreams[turn % target.upstreams.length];
    }

    private enter(id: string): void {
        this.counts.set(id, (this.counts.get(id) ?? 0) + 1);
    }

    private leave(id: string): void {
        const count = (this.counts.get(id) ?? 1) - 1;
        if (count > 0) {
            this.counts.set(id, count);
        }
        else {
            this.counts.delete(id);
        }
    }

    /** The request's trace (continued from its `traceparent`, or new) and this span, passed on to the app. */
    private traceOf(req: Http.IncomingMessage) {
        const incoming = TRACEPARENT.exec(String(req.headers.traceparent ?? ''));
        const spanId = randomHex(8);
        const traceId = incoming?.[1] ?? newTraceId();
        req.headers.traceparent = `00-${traceId}-${spanId}-${incoming?.[3] ?? '01'}`;
        return { traceId, spanId, parentSpanId: incoming?.[2] ?? null };
    }

    private span(target: UpstreamTarget, req: Http.IncomingMessage, instanceId: string, trace: ReturnType<UpstreamProxy['traceOf']>, started: number, status: number): void {
        const path = (req.url ?? '/').split('?')[0].slice(0, 512);
        this.spans.push({
            resourceType: target.resource.type, resourceId: target.resource.id, projectId: target.resource.projectId,
            traceId: trace.traceId, spanId: trace.spanId, parentSpanId: trace.parentSpanId, name: `${req.method} ${path}`, kind: 'SERVER',
            startTime: new Date(started).toISOString(), endTime: new Date().toISOString(),
            statusCode: status >= 500 ? 'ERROR' : 'UNSET', statusMessage: status >= 500 ? `HTTP ${status}` : null,
            attributes: { 'http.request.method': req.method ?? 'GET', 'url.path': path, 'http.response.status_code': status, 'hostless.instance': instanceId, 'hostless.deployment': target.deploymentId }
        });
        if (this.spans.length >= 500) {
            void this.flush();
        }

        this.timer ??= setTimeout(() => void this.flush(), this.options.flushMs);
    }
}
