import { isJsonContentType } from '@modelcontextprotocol/sdk/shared/mediaType.js';
import { MAX_BATCH_SIZE } from '@modelcontextprotocol/sdk/server/requestBody.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { isInitializeRequest, JSONRPCMessageSchema, SUPPORTED_PROTOCOL_VERSIONS, type JSONRPCMessage, type RequestId } from '@modelcontextprotocol/sdk/types.js';

import { answerNow, classify, decorate, errorAnswer, hasModernSignal, headerError, versionError, type RevisionProfile } from './revision';

// The streamable HTTP transport of one stateless POST in JSON-response mode, for a body hapi has already parsed: the
// SDK's Transport interface under the SDK's Server. It answers exactly as the SDK's WebStandardStreamableHTTPServerTransport
// does in that mode (test/mcp/transport.ts sends both the same table of requests and compares the answers) with
// the same checks in the same order, the SDK's own message schema, batch limit and content-type test.
//
// Why not that class itself: built for a web Request and answering with a web Response, it costs more than the
// REST call a tool makes. Per request it builds headers, a Request, a Response over a web stream (each stream made
// transferable), a random stream id, and runs five schema type guards per message, most of them failing and
// building zod errors. This one validates each message once and hands back the JSON-RPC answers themselves, which
// hapi serializes once. apps_list through MCP answered 1.5x the requests per second on this transport than on the SDK
// class (two runs, the same route on both, alternating rounds over HTTP, medians).

/** The request headers the transport reads. */
export interface TransportHeaders {
    accept?: string | undefined;
    contentType?: string | undefined;
    protocolVersion?: string | undefined;
    mcpMethod?: string | undefined;                             // Mcp-Method (revision 2026-07-28)
    mcpName?: string | undefined;                               // Mcp-Name (revision 2026-07-28)
}

/** An HTTP answer: a status and a JSON body, or null for none (202). */
export interface TransportAnswer {
    status: number;
    body: unknown;
}

/** The body of an HTTP-level refusal, in the JSON-RPC error shape the SDK uses for its own (no request id). */
export const rpcError = (code: number, message: string) => ({ jsonrpc: '2.0', error: { code, message }, id: null });

/** The SDK's refusal of a body that is not JSON, which says what to send. */
export const UNSUPPORTED_MEDIA_TYPE = 'Unsupported Media Type: Content-Type must be application/json';

const refusal = (status: number, code: number, message: string): TransportAnswer => ({ status, body: rpcError(code, message) });

const isRequest = (message: JSONRPCMessage): message is JSONRPCMessage & { id: RequestId; method: string } => 'method' in message && 'id' in message;
const isAnswer = (message: JSONRPCMessage): message is JSONRPCMessage & { id: RequestId } => 'id' in message && ('result' in message || 'error' in message);

export class JsonResponseTransport implements Transport {
    onclose?: () => void;
    onerror?: (error: Error) => void;
    onmessage?: Transport['onmessage'];
    sessionId = undefined;                                      // stateless: no session, no Mcp-Session-Id

    private used = false;
    private readonly waiting = new Map<RequestId, number>();    // a request's id -> its place among the answers
    private answers: JSONRPCMessage[] = [];
    private settle: (() => void) | null = null;
    private modernMethod: string | null = null;                 // the method of a 2026-07-28 request in flight

    /** With a profile, the transport also serves revision 2026-07-28 (see revision.ts); without, the 2025 revisions only. */
    constructor(private readonly profile?: RevisionProfile) { }

    async start(): Promise<void> { }

    async close(): Promise<void> {
        this.onclose?.();
    }

    /** The Server's answer to a request of this POST; anything else (notifications, requests to the client) has no stream in JSON mode and is dropped, as the SDK's transport does. */
    async send(message: JSONRPCMessage): Promise<void> {
        if (!isAnswer(message) || !this.waiting.has(message.id)) {
            return;
        }

        this.answers[this.waiting.get(message.id)!] = this.modernMethod && this.profile ? decorate(message, this.modernMethod, this.profile) : message;
        this.waiting.delete(message.id);
        if (!this.waiting.size) {
            this.settle?.();
        }
    }

    /** Handles one POST's parsed body; resolves once every request in it has its answer. */
    async handle(headers: TransportHeaders, body: unknown): Promise<TransportAnswer> {
        if (this.used) {
            throw new Error('Stateless transport cannot be reused across requests. Create a new transport per request.');
        }

        this.used = true;
        if (this.profile && hasModernSignal(body, headers.protocolVersion)) {
            const refused = this.checkHttp(headers);
            if (refused) {
                return refused;
            }

            const classified = classify(body, { protocolVersion: headers.protocolVersion, method: headers.mcpMethod, name: headers.mcpName });
            if (classified.kind !== 'legacy') {
                return this.handleModern(classified, headers);
            }
        }

        const messages = this.check(headers, body);
        if (!Array.isArray(messages)) {
            this.onerror?.(new Error((messages.body as { error: { message: string } }).error.message));
            return messages;
        }

        const requests = messages.filter(isRequest);
        if (!requests.length) {
            messages.forEach((message) => this.onmessage?.(message));
            return { status: 202, body: null };
        }

        new Set(requests.map((request) => request.id)).forEach((id) => this.waiting.set(id, this.waiting.size));
        const answered = new Promise<void>((resolve) => this.settle = resolve);
        messages.forEach((message) => this.onmessage?.(message));
        await answered;
        return { status: 200, body: this.answers.length === 1 ? this.answers[0] : this.answers };
    }

    /** One POST of revision 2026-07-28: a refusal, an answer of the revision's own, or the Server's answer decorated. */
    private async handleModern(classified: Exclude<ReturnType<typeof classify>, { kind: 'legacy' }>, headers: TransportHeaders): Promise<TransportAnswer> {
        if (classified.kind === 'reject') {
            return { status: classified.status, body: errorAnswer(null, classified.error) };
        }

        if (classified.kind === 'notification') {
            return { status: 202, body: null };                 // nothing in this server acts on a notification of the new revision
        }

        const request = classified.message;
        const refusal = versionError(request) ?? headerError(request, { protocolVersion: headers.protocolVersion, method: headers.mcpMethod, name: headers.mcpName });
        if (refusal) {
            return { status: 400, body: errorAnswer(request.id, refusal) };
        }

        const now = answerNow(request, this.profile!);
        if (now) {
            return { status: 200, body: now };
        }

        this.modernMethod = request.method;
        this.waiting.set(request.id, 0);
        const answered = new Promise<void>((resolve) => this.settle = resolve);
        this.onmessage?.(request as unknown as JSONRPCMessage);
        await answered;
        return { status: 200, body: this.answers[0] };
    }

    /** The HTTP-level checks both eras share, first: what the client accepts and what it sends. */
    private checkHttp(headers: TransportHeaders): TransportAnswer | null {
        if (!headers.accept?.includes('application/json') || !headers.accept.includes('text/event-stream')) {
            return refusal(406, -32000, 'Not Acceptable: Client must accept both application/json and text/event-stream');
        }

        return isJsonContentType(headers.contentType ?? null) ? null : refusal(415, -32000, UNSUPPORTED_MEDIA_TYPE);
    }

    /** The messages of a body the transport accepts, or its refusal: the SDK's checks, in the SDK's order. */
    private check(headers: TransportHeaders, body: unknown): JSONRPCMessage[] | TransportAnswer {
        const refused = this.checkHttp(headers);
        if (refused) {
            return refused;
        }

        if (Array.isArray(body) && body.length > MAX_BATCH_SIZE) {
            return refusal(400, -32600, `Invalid Request: Batch must not exceed ${MAX_BATCH_SIZE} messages`);
        }

        const messages: JSONRPCMessage[] = [];
        for (const raw of Array.isArray(body) ? body : [body]) {
            const parsed = JSONRPCMessageSchema.safeParse(raw);
            if (!parsed.success) {
                return refusal(400, -32700, 'Parse error: Invalid JSON-RPC message');
            }

            messages.push(parsed.data);
        }

        // The SDK's test for an initialization: a method of `initialize` whose params also fit its schema.
        const initializing = messages.some((message) => 'method' in message && message.method === 'initialize' && isInitializeRequest(message));
        if (initializing && messages.length > 1) {
            return refusal(400, -32600, 'Invalid Request: Only one initialization request is allowed');
        }

        const version = headers.protocolVersion;
        if (!initializing && version !== undefined && !SUPPORTED_PROTOCOL_VERSIONS.includes(version)) {
            return refusal(400, -32000, `Bad Request: Unsupported protocol version: ${version} (supported versions: ${SUPPORTED_PROTOCOL_VERSIONS.join(', ')})`);
        }

        return messages;
    }
}
