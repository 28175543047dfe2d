import * as Boom from '@hapi/boom';
import type { Knex } from 'knex';

import { decryptSecret, encryptSecret, sha256Hex } from './crypto';
import { isUniqueViolation } from './db/errors';
import type { CompiledRow } from './route-table';

// Idempotency-Key (docs/conventions.md, "Retrying safely"): a POST that creates or triggers, sent again by the same
// user on the same route with the same key within 24 hours, answers the first request's answer; with another request
// (method, path, query or body) it is refused with 422. The row of the first request is inserted before its handler
// runs: it is the lock that concurrent replays, in this process or another on the same database, wait on until the
// answer is stored (sealed) or the first request fails (the row is deleted and the next one runs).

export const IDEMPOTENCY_HEADER = 'idempotency-key';
export const IDEMPOTENCY_TTL_MS = 24 * 3600 * 1000;
const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;                    // visible ASCII, 1 to 255 characters
const KEPT_HEADERS = ['content-type', 'location', 'link'] as const;

/** Whether a route takes the header at all: POSTs made with a credential (creates and triggers). */
export function takesIdempotencyKey(row: CompiledRow): boolean {
    return row.method === 'POST' && (row.auth === 'key' || row.auth === 'session' || row.auth === 'admin');
}

/** Whether a route takes the header and honours it: not on answers that show a secret once, nor on uploads. */
export function honoursIdempotencyKey(row: CompiledRow): boolean {
    return takesIdempotencyKey(row) && !row.secretOnce && row.body !== 'multipart';
}

/** The header's value, checked: null when absent; 400 when malformed or on a route that refuses it. */
export function idempotencyKeyOf(row: CompiledRow, header: string | string[] | undefined): string | null {
    if (header === undefined || !takesIdempotencyKey(row)) {
        return null;
    }

    if (row.secretOnce) {
        throw Boom.badRequest('This route shows a secret once and does not take an Idempotency-Key: send the request without it');
    }

    if (row.body === 'multipart') {
        throw Boom.badRequest('Uploads do not take an Idempotency-Key: send the request without it');
    }

    if (typeof header !== 'string' || !KEY_PATTERN.test(header)) {
        throw Boom.badRequest('The Idempotency-Key header must be 1 to 255 visible ASCII characters');
    }

    return header;
}

/** A stored answer: what a replay sends again. */
export interface StoredAnswer {
    statusCode: number;
    headers: Partial<Record<typeof KEPT_HEADERS[number], string>>;
    payload: string;
}

export function keptHeaders(headers: Readonly<Record<string, unknown>>): StoredAnswer['headers'] {
    const kept: StoredAnswer['headers'] = {};
    for (const name of KEPT_HEADERS) {
        const value = headers[name];
        if (typeof value === 'string') {
            kept[name] = value;
        }
    }

    return kept;
}

/** What identifies a request beyond its key: method, path, sorted query and body, hashed. */
export function fingerprint(method: string, path: string, query: Readonly<Record<string, unknown>>, payload: unknown): string {
    return sha256Hex(canonical([method.toUpperCase(), path, query, payload ?? null]));
}

function canonical(value: unknown): string {
    if (Array.isArray(value)) {
        return `[${value.map(canonical).join(',')}]`;
    }

    if (value && typeof value === 'object' && !(value instanceof Date)) {
        const entries = Object.entries(value as Record<string, unknown>).filter(([, item]) => item !== undefined).sort(([a], [b]) => a < b ? -1 : a > b ? 1 : 0);
        return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonical(item)}`).join(',')}}`;
    }

    return JSON.stringify(value) ?? 'null';
}

interface KeyRow {
    fingerprint: string;
    state: 'pending' | 'done';
    response: string | null;
    created_at: string;
    expires_at: string;
}

export interface IdempotencyOptions {
    knex: Knex;
    sealKey: Buffer;
    clock: () => number;                                        // milliseconds
    pollMs?: number;                                            // how often a replay looks whether the first has answered
    waitMs?: number;                                            // how long a replay waits before answering 409
    abandonMs?: number;                                         // a pending row older than this was left by a process that died
}

export interface Claim {
    userId: string;
    routeId: string;
    key: string;
}

/** The outcome of a request's key: run the handler (and store its answer under the claim), or send a stored answer. */
export type Outcome = { run: Claim } | { replay: StoredAnswer };

export class IdempotencyStore {
    private readonly pollMs: number;
    private readonly waitMs: number;
    private readonly abandonMs: number;

    constructor(private readonly options: IdempotencyOptions) {
        this.pollMs = options.pollMs ?? 50;
        this.waitMs = options.waitMs ?? 60_000;
        this.abandonMs = options.abandonMs ?? 10 * 60_000;
    }

    /** Claims the key for this request, or waits for the request that holds it and answers its stored answer. */
    async begin(claim: Claim, print: string): Promise<Outcome> {
        const { knex } = this.options;
        const where = { user_id: claim.userId, route_id: claim.routeId, key: claim.key };
        const deadline = Date.now() + this.waitMs;
        for (;;) {
            const now = this.options.clock();
            try {
                await knex('idempotency_keys').insert({
                    ...where, fingerprint: print, state: 'pending', response: null,
                    created_at: new Date(now).toISOString(), expires_at: new Date(now + IDEMPOTENCY_TTL_MS).toISOString()
                });
                return { run: claim };
            }
            catch (err) {
                if (!isUniqueViolation(err)) {
                    throw err;
                }
            }

            const row = await knex('idempotency_keys').where(where).first() as KeyRow | undefined;
            if (!row) {
                continue;                                       // the first request failed and let the key go: claim it
            }

            const expired = row.expires_at <= new Date(now).toISOString();
            const abandoned = row.state === 'pending' && Date.parse(row.created_at) + this.abandonMs <= now;
            if (expired || abandoned) {
                await knex('idempotency_keys').where({ ...where, created_at: row.created_at }).delete();
                continue;
            }

            if (row.fingerprint !== print) {
                throw Boom.badData('This Idempotency-Key was used with another request (method, path, query or body): use a new key for a new request');
            }

            if (row.state === 'done' && row.response) {
                return { replay: JSON.parse(decryptSecret(row.response, this.options.sealKey)) as StoredAnswer };
            }

            if (Date.now() >= deadline) {
                throw Boom.conflict('The first request with this Idempotency-Key is still being answered: try again later');
            }

            await new Promise((resolve) => setTimeout(resolve, this.pollMs));
        }
    }

    /** Stores the claimed request's answer, sealed: replays within 24 hours send it again. */
    async finish(claim: Claim, answer: StoredAnswer): Promise<void> {
        await this.options.knex('idempotency_keys')
            .where({ user_id: claim.userId, route_id: claim.routeId, key: claim.key, state: 'pending' })
            .update({ state: 'done', response: encryptSecret(JSON.stringify(answer), this.options.sealKey) });
    }

    /** Lets the key go when the first request did not succeed: the next request with it runs anew. */
    async release(claim: Claim): Promise<void> {
        await this.options.knex('idempotency_keys').where({ user_id: claim.userId, route_id: claim.routeId, key: claim.key, state: 'pending' }).delete();
    }

    /** Deletes the answers older than 24 hours. */
    async prune(): Promise<number> {
        return await this.options.knex('idempotency_keys').where('expires_at', '<=', new Date(this.options.clock()).toISOString()).delete();
    }
}
