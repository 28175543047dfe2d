import * as Crypto from 'node:crypto';

import type { OutsideClient } from './outside/http-client';

// Leak reports signed the way GitHub's secret scanning partner program signs them: an ECDSA P-256 signature with
// SHA-256 over the raw request body, base64 (DER) in `Github-Public-Key-Signature`, made with the key that
// `Github-Public-Key-Identifier` names among the reporter's published keys
// (`{"public_keys":[{"key_identifier","key":"<PEM>","is_current"}]}`). The keys are fetched through the outbound
// client and kept; an identifier the kept keys lack fetches them again, at most once a minute, so a stream of forged
// identifiers cannot turn into a stream of fetches. Inside that minute such an identifier is answered "later" (the
// reporter may have just published it), after it "unknown".
export const KEY_ID_HEADER = 'github-public-key-identifier';
export const SIGNATURE_HEADER = 'github-public-key-signature';

export class ReporterKeysError extends Error { }

export interface ReporterKeysOptions {
    url: string;
    client: OutsideClient;
    clock?: () => number;
    refreshMs?: number;                                         // kept keys are fetched again after this long (default a day)
    minIntervalMs?: number;                                     // never fetched more often than this (default a minute)
}

interface Published {
    public_keys?: Array<{ key_identifier?: unknown; key?: unknown }>;
}

export class ReporterKeys {
    private keys = new Map<string, Crypto.KeyObject>();
    private fetchedAt = -Infinity;
    private fetching: Promise<void> | null = null;

    constructor(private readonly options: ReporterKeysOptions) { }

    /**
     * The key an identifier names; `later` when it is not known and the keys were fetched less than a minute ago; null
     * when it is not among the keys just fetched. Throws ReporterKeysError when no key could be fetched at all.
     */
    async find(identifier: string): Promise<Crypto.KeyObject | 'later' | null> {
        const now = (this.options.clock ?? Date.now)();
        const stale = now - this.fetchedAt > (this.options.refreshMs ?? 24 * 3600_000);
        const mayFetch = now - this.fetchedAt >= (this.options.minIntervalMs ?? 60_000);
        if (!this.keys.has(identifier) && !stale && !mayFetch) {
            return 'later';
        }

        if ((stale || !this.keys.has(identifier)) && mayFetch) {
            try {
                await (this.fetching ??= this.fetch(now).finally(() => {
                    this.fetching = null;
                }));
            }
            catch (err) {
                if (!this.keys.size) {
                    throw err;
                }
            }
        }

        return this.keys.get(identifier) ?? null;
    }

    private async fetch(now: number): Promise<void> {
        this.fetchedAt = now;                                   // a failed fetch waits its turn too
        let published: Published;
        try {
            const response = await this.options.client.request({ method: 'GET', url: this.options.url, headers: { accept: 'application/json' } });
            if (response.status !== 200) {
                throw new Error(`it answered ${response.status}`);
            }

            published = response.json<Published>();
        }
        catch (err) {
            throw new ReporterKeysError(`The leak reporter's public keys could not be fetched: ${(err as Error).message}`);
        }

        const keys = new Map<string, Crypto.KeyObject>();
        for (const entry of Array.isArray(published?.public_keys) ? published.public_keys : []) {
            if (typeof entry.key_identifier === 'string' && typeof entry.key === 'string') {
                try {
                    const key = Crypto.createPublicKey(entry.key);
                    if (key.asymmetricKeyType === 'ec' && key.asymmetricKeyDetails?.namedCurve === 'prime256v1') {
                        keys.set(entry.key_identifier, key);
                    }
                }
                catch {
                    // not a public key: skipped, like any key this server cannot use
                }
            }
        }

        if (!keys.size) {
            throw new ReporterKeysError('The leak reporter published no P-256 public key');
        }

        this.keys = keys;
    }
}

/** Whether `signature` (base64 DER) is the key's ECDSA signature of the raw body with SHA-256. */
export function verifyReport(body: Buffer, signature: string, key: Crypto.KeyObject): boolean {
    try {
        return Crypto.verify('sha256', body, key, Buffer.from(signature, 'base64'));
    }
    catch {
        return false;
    }
}
