import { classifyInboundRequest } from '@modelcontextprotocol/server';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage, RequestId } from '@modelcontextprotocol/sdk/types.js';

import type { ServerInfo } from './tool';

// Revision 2026-07-28 beside the 2025 revisions. The 2025 revisions keep their `initialize` handshake, answered by
// the SDK v1 Server exactly as before. A 2026-07-28 request names its version (and the client's capabilities) in its
// own `params._meta`; it needs no handshake, so it goes to the same Server's tools/list and tools/call handlers with
// the rules of the new revision around them: `server/discover`, `resultType` on every result, cache hints on the
// lists, no `ping` or `logging/setLevel`, -32022 with the supported list for a version this server does not speak.
// Which era a message belongs to, and whether its envelope is well formed, is decided by the SDK 2.x classifier
// (`classifyInboundRequest`, the routing step of its own handler), so both agree on every edge.

export const MODERN_REVISION = '2026-07-28';
export const MODERN_REVISIONS: readonly string[] = [MODERN_REVISION];
/** The revisions older clients initialize with (the SDK v1 Server also still answers 2024-11-05 and 2024-10-07). */
export const LEGACY_REVISIONS: readonly string[] = ['2025-11-25', '2025-06-18', '2025-03-26'];

export const META_VERSION = 'io.modelcontextprotocol/protocolVersion';
export const META_CAPABILITIES = 'io.modelcontextprotocol/clientCapabilities';
export const META_SERVER_INFO = 'io.modelcontextprotocol/serverInfo';

export const METHOD_NOT_FOUND = -32601;
export const HEADER_MISMATCH = -32020;
export const UNSUPPORTED_VERSION = -32022;

/** Methods the 2026-07-28 revision no longer has. */
const REMOVED = new Set(['ping', 'logging/setLevel', 'initialize', 'notifications/initialized']);

/** How long a client may keep a list or discovery result, and whether a shared cache may (public) or only this caller (private). */
export interface CachePolicy {
    ttlMs: number;
    cacheScope: 'public' | 'private';
}

/** What a server tells about itself under the new revision. */
export interface RevisionProfile {
    info: ServerInfo;
    cache: CachePolicy;
}

type Message = Record<string, unknown>;

const isObject = (value: unknown): value is Message => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The version a message's `params._meta` names, if it names one. */
export function claimedVersion(message: unknown): string | undefined {
    const meta = isObject(message) && isObject(message.params) ? message.params._meta : undefined;
    return isObject(meta) && typeof meta[META_VERSION] === 'string' ? meta[META_VERSION] : undefined;
}

/** Whether a date-shaped version is 2026-07-28 or later (what the classifier calls modern). */
export const isModernVersion = (version: string | undefined): boolean => version !== undefined && /^\d{4}-\d{2}-\d{2}$/.test(version) && version >= MODERN_REVISION;

/** Whether a body carries anything of the new revision: a `_meta` version claim, or a modern MCP-Protocol-Version header. */
export function hasModernSignal(body: unknown, protocolVersion: string | undefined): boolean {
    if (isModernVersion(protocolVersion?.trim())) {
        return true;
    }

    const hasClaim = (message: unknown) => isObject(message) && isObject(message.params) && isObject(message.params._meta) && META_VERSION in message.params._meta;
    return Array.isArray(body) ? body.some(hasClaim) : hasClaim(body);
}

export interface RevisionHeaders {
    protocolVersion?: string | undefined;
    method?: string | undefined;
    name?: string | undefined;
}

export type Classified =
    | { kind: 'legacy' }
    | { kind: 'reject'; status: number; error: { code: number; message: string; data?: unknown } }
    | { kind: 'notification' }
    | { kind: 'request'; message: Message & { id: RequestId; method: string } };

/** The SDK's classification of one POST body (or one stdio message, without headers). */
export function classify(body: unknown, headers: RevisionHeaders): Classified {
    const outcome = classifyInboundRequest({
        httpMethod: 'POST',
        ...(headers.protocolVersion !== undefined ? { protocolVersionHeader: headers.protocolVersion } : {}),
        ...(headers.method !== undefined ? { mcpMethodHeader: headers.method } : {}),
        ...(headers.name !== undefined ? { mcpNameHeader: headers.name } : {}),
        body
    }) as unknown as Message;
    if (outcome.kind === 'reject') {
        return { kind: 'reject', status: outcome.httpStatus as number, error: { code: outcome.code as number, message: outcome.message as string, ...(outcome.data !== undefined ? { data: outcome.data } : {}) } };
    }

    if (outcome.kind !== 'modern') {
        return { kind: 'legacy' };
    }

    return outcome.messageKind === 'request' ? { kind: 'request', message: outcome.message as Message & { id: RequestId; method: string } } : { kind: 'notification' };
}

/** The error a request of a version this server does not speak gets, or null when it speaks it. */
export function versionError(message: Message): { code: number; message: string; data: unknown } | null {
    const requested = claimedVersion(message);
    if (requested !== undefined && MODERN_REVISIONS.includes(requested)) {
        return null;
    }

    return {
        code: UNSUPPORTED_VERSION,
        message: `Unsupported protocol version: ${requested ?? 'none'} (this server speaks ${MODERN_REVISIONS.join(', ')} per request, and ${LEGACY_REVISIONS.join(', ')} through initialize)`,
        data: { supported: [...MODERN_REVISIONS], requested: requested ?? 'unknown' }
    };
}

/** The value an Mcp-Name header carries: plain, or the `=?base64?...?=` form for values a header cannot hold. */
function headerValue(raw: string): string | undefined {
    const value = raw.trim();
    const encoded = /^=\?base64\?(.*)\?=$/i.exec(value);
    if (!encoded) {
        return value;
    }

    const text = Buffer.from(encoded[1], 'base64').toString('utf8');
    return Buffer.from(text, 'utf8').toString('base64').replace(/=+$/, '') === encoded[1].replace(/=+$/, '') ? text : undefined;
}

/** The standard headers a 2026-07-28 POST must carry and mirror from its body: -32020 (HeaderMismatch) when one is missing or differs. */
export function headerError(message: Message & { method: string }, headers: RevisionHeaders): { code: number; message: string; data: unknown } | null {
    const mismatch = (header: string, sent: string, text: string) => ({ code: HEADER_MISMATCH, message: `Bad Request: the request headers and body disagree: ${text}`, data: { mismatch: { header, sent } } });
    if (headers.protocolVersion === undefined) {
        return mismatch('MCP-Protocol-Version', '(missing)', `the body names protocol version ${claimedVersion(message)} but the MCP-Protocol-Version header is absent`);
    }

    if (headers.method === undefined) {
        return mismatch('Mcp-Method', '(missing)', `the body names method ${message.method} but the Mcp-Method header is absent`);
    }

    const name = message.method === 'tools/call' && isObject(message.params) && typeof message.params.name === 'string' ? message.params.name : undefined;
    if (name === undefined) {
        return null;
    }

    if (headers.name === undefined) {
        return mismatch('Mcp-Name', '(missing)', `the body calls tool ${name} but the Mcp-Name header is absent`);
    }

    const sent = headerValue(headers.name);
    return sent === name ? null : mismatch('Mcp-Name', headers.name, `the body calls tool ${name} but the Mcp-Name header names ${sent === undefined ? 'an invalid Base64 value' : sent}`);
}

export const errorAnswer = (id: RequestId | null, error: { code: number; message: string; data?: unknown }): JSONRPCMessage =>
    ({ jsonrpc: '2.0', id, error }) as unknown as JSONRPCMessage;

/** What the new revision makes of one request of a version this server speaks: its answer now, or null to hand it to the Server. */
export function answerNow(message: Message & { id: RequestId; method: string }, profile: RevisionProfile): JSONRPCMessage | null {
    if (message.method === 'server/discover') {
        const result = {
            resultType: 'complete',
            supportedVersions: [...MODERN_REVISIONS],
            capabilities: { tools: {} },
            instructions: profile.info.instructions,
            ...profile.cache,
            _meta: { [META_SERVER_INFO]: { name: profile.info.name, version: profile.info.version } }
        };
        return { jsonrpc: '2.0', id: message.id, result };
    }

    if (REMOVED.has(message.method)) {
        return errorAnswer(message.id, { code: METHOD_NOT_FOUND, message: `Method not found: ${message.method} is not part of protocol revision ${MODERN_REVISION}` });
    }

    return null;
}

/** The Server's answer to a request of the new revision: `resultType` on every result, the cache hints on tools/list, the server's identity in `_meta`. */
export function decorate(answer: JSONRPCMessage, method: string, profile: RevisionProfile): JSONRPCMessage {
    if (!('result' in answer)) {
        return answer;
    }

    const result = answer.result as Message;
    const meta = { ...(isObject(result._meta) ? result._meta : {}), [META_SERVER_INFO]: { name: profile.info.name, version: profile.info.version } };
    return { ...answer, result: { resultType: 'complete', ...result, ...(method === 'tools/list' ? profile.cache : {}), _meta: meta } };
}

/**
 * Puts the new revision in front of a connected message transport that has no headers (stdio): a request whose
 * `_meta` names a version is answered by these rules, the rest reaches the Server unchanged. Call after
 * `server.connect(transport)`.
 */
export function gateTransport(transport: Transport, profile: RevisionProfile): void {
    const receive = transport.onmessage!;
    const send = transport.send.bind(transport);
    const modern = new Map<RequestId, string>();                // the modern requests in flight: id -> method

    transport.send = async (message, options) => {
        const id = 'id' in message ? message.id as RequestId : undefined;
        if (('result' in message || 'error' in message) && id !== undefined && modern.has(id)) {
            const method = modern.get(id)!;
            modern.delete(id);
            return send(decorate(message, method, profile), options);
        }

        return send(message, options);
    };

    transport.onmessage = (message, extra) => {
        if (claimedVersion(message) === undefined) {
            return receive(message, extra);
        }

        const classified = classify(message, {});
        if (classified.kind === 'reject') {
            return void send(errorAnswer('id' in message ? message.id as RequestId : null, classified.error));
        }

        if (classified.kind !== 'request') {
            return undefined;                                   // a notification of the new revision: nothing to do
        }

        const request = classified.message;
        const refusal = versionError(request);
        const now = refusal ? errorAnswer(request.id, refusal) : answerNow(request, profile);
        if (now) {
            return void send(now);
        }

        modern.set(request.id, request.method);
        return receive(message, extra);
    };
}
