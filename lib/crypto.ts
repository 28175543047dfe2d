import * as Crypto from 'node:crypto';
import { promisify } from 'node:util';

const scrypt = promisify(Crypto.scrypt) as (password: string, salt: Buffer, keylen: number, options: Crypto.ScryptOptions) => Promise<Buffer>;

// One-shot digests (Node.js 20.12+): no Hash object per call, a third of createHash's cost on the key check's path.
export function sha256(value: string): Buffer {
    return Crypto.hash('sha256', value, 'buffer');
}

export function sha256Hex(value: string): string {
    return Crypto.hash('sha256', value, 'hex');
}

/**
 * Compares two hex digests in constant time over their characters, without a Buffer for either: the key check's
 * comparison on every request (two allocations and a native call otherwise). Unequal lengths compare as different.
 */
export function hexDigestsEqual(a: string, b: string): boolean {
    if (a.length !== b.length) {
        return false;
    }

    let difference = 0;
    for (let i = 0; i < a.length; ++i) {
        difference |= a.charCodeAt(i) ^ b.charCodeAt(i);
    }

    return difference === 0;
}

/** Compares two digests in constant time; unequal lengths compare as different without leaking where. */
export function digestsEqual(a: Buffer, b: Buffer): boolean {
    return a.length === b.length && Crypto.timingSafeEqual(a, b);
}

// Passwords: scrypt with a per-user salt, stored as `scrypt$<N>$<salt b64>$<hash b64>`.
export interface PasswordOptions {
    cost: number;                                               // scrypt N, a power of two
}

export async function hashPassword(password: string, options: PasswordOptions): Promise<string> {
    const salt = Crypto.randomBytes(16);
    const hash = await scrypt(password, salt, 32, { N: options.cost, r: 8, p: 1, maxmem: 256 * options.cost * 8 });
    return `scrypt$${options.cost}$${salt.toString('base64')}$${hash.toString('base64')}`;
}

export async function verifyPassword(password: string, stored: string | null): Promise<boolean> {
    // A missing account still pays for one hash, so timing does not reveal which emails exist.
    const [kind, cost, salt, hash] = (stored ?? `scrypt$16384$${internals.dummySalt}$${internals.dummyHash}`).split('$');
    if (kind !== 'scrypt' || !cost || !salt || !hash) {
        return false;
    }

    const N = Number(cost);
    const expected = Buffer.from(hash, 'base64');
    const actual = await scrypt(password, Buffer.from(salt, 'base64'), expected.length, { N, r: 8, p: 1, maxmem: 256 * N * 8 });
    return digestsEqual(actual, expected) && stored !== null;
}

const internals = {
    dummySalt: Buffer.alloc(16, 7).toString('base64'),
    dummyHash: Buffer.alloc(32, 9).toString('base64')
};

// Secrets at rest (environment variable values, provider tokens): AES-256-GCM, `v1.<iv>.<tag>.<data>` in base64url.
export function encryptSecret(plain: string, key: Buffer): string {
    const iv = Crypto.randomBytes(12);
    const cipher = Crypto.createCipheriv('aes-256-gcm', key, iv);
    const data = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return ['v1', iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), data.toString('base64url')].join('.');
}

export function decryptSecret(sealed: string, key: Buffer): string {
    const [version, iv, tag, data] = sealed.split('.');
    if (version !== 'v1' || !iv || !tag || data === undefined) {
        throw new Error('Unrecognised sealed secret format');
    }

    const decipher = Crypto.createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]).toString('utf8');
}

/** Derives a 32-byte key from a configured secret string (hex, base64 or any passphrase). */
export function deriveKey(secret: string, purpose: string): Buffer {
    return Crypto.createHmac('sha256', secret).update(purpose).digest();
}
