import * as Jose from 'jose';

import { ACCESS_TOKEN_ALGORITHM, KeySourceError } from './access-token';

// The public keys that verify access tokens, by `kid`, from a key set source: the database on the API, the API's
// /.well-known/jwks.json on the MCP server. The set is read again when it is older than maxAgeMs, and when a token
// names a kid it does not hold (a rotation). Such reads happen at most once per cooldownMs, so forged kids cannot
// flood the source; a token arriving sooner waits for that read rather than being refused. Only public keys are
// held: whether a token's grant is live is never cached (the API decides it per request).

export interface JwksCacheOptions {
    maxAgeMs?: number;
    cooldownMs?: number;
}

export class JwksCache {
    private keys = new Map<string, Jose.CryptoKey>();
    private fetchedAt = -Infinity;
    private pending: Promise<void> | null = null;
    private readonly maxAgeMs: number;
    private readonly cooldownMs: number;

    constructor(private readonly source: () => Promise<Jose.JSONWebKeySet>, options: JwksCacheOptions = {}) {
        this.maxAgeMs = options.maxAgeMs ?? 60_000;
        this.cooldownMs = options.cooldownMs ?? 1_000;
    }

    /** For jose's jwtVerify: the key the token's header names. */
    readonly getKey: Jose.JWTVerifyGetKey = async (header) => {
        if (typeof header.kid !== 'string') {
            throw new Jose.errors.JWKSNoMatchingKey();
        }

        const age = Date.now() - this.fetchedAt;
        if (age > this.maxAgeMs || !this.keys.has(header.kid)) {
            if (age < this.cooldownMs) {
                await new Promise((resolve) => setTimeout(resolve, this.cooldownMs - age));
            }

            await this.refresh();
        }

        const key = this.keys.get(header.kid);
        if (!key) {
            throw new Jose.errors.JWKSNoMatchingKey();
        }

        return key;
    };

    private refresh(): Promise<void> {
        this.pending ??= this.load().finally(() => {
            this.pending = null;
        });
        return this.pending;
    }

    private async load(): Promise<void> {
        let set: Jose.JSONWebKeySet;
        try {
            set = await this.source();
        }
        catch (err) {
            throw new KeySourceError(`The signing keys could not be read: ${(err as Error).message}`);
        }

        const keys = new Map<string, Jose.CryptoKey>();
        for (const jwk of set.keys ?? []) {
            if (jwk.kty === 'RSA' && typeof jwk.kid === 'string' && (jwk.alg ?? ACCESS_TOKEN_ALGORITHM) === ACCESS_TOKEN_ALGORITHM && (jwk.use ?? 'sig') === 'sig') {
                keys.set(jwk.kid, await Jose.importJWK({ ...jwk, ext: true }, ACCESS_TOKEN_ALGORITHM) as Jose.CryptoKey);
            }
        }

        this.keys = keys;
        this.fetchedAt = Date.now();
    }
}
