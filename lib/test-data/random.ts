import * as Crypto from 'node:crypto';

/** A seeded generator (mulberry32): the same seed and label give the same sequence on every run and machine. */
export function seeded(seed: number, label: string): () => number {
    let state = Crypto.createHash('sha256').update(`${label}:${seed}`).digest().readUInt32BE(0);
    return () => {
        state = (state + 0x6D2B79F5) >>> 0;
        let t = state;
        t = Math.imul(t ^ (t >>> 15), t | 1);
        t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
        return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
}

/** JSON with object keys sorted at every depth: the form a digest is taken over. */
export function canonicalJson(value: unknown): string {
    if (Array.isArray(value)) {
        return `[${value.map(canonicalJson).join(',')}]`;
    }

    if (value && typeof value === 'object') {
        const entries = Object.entries(value as Record<string, unknown>).filter(([, item]) => item !== undefined).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
        return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`).join(',')}}`;
    }

    return JSON.stringify(value);
}

export const sha256 = (text: string) => Crypto.createHash('sha256').update(text).digest('hex');

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** Sixteen base62 characters that follow from a text: an id that is the same whenever its source is. */
export function digestId(text: string): string {
    return [...Crypto.createHash('sha256').update(text).digest().subarray(0, 16)].map((byte) => ALPHABET[byte % 62]).join('');
}
