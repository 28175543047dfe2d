import * as Crypto from 'node:crypto';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** `length` characters drawn uniformly from base62 with a CSPRNG (rejection sampling, no modulo bias). */
export function randomBase62(length: number): string {
    let out = '';
    while (out.length < length) {
        for (const byte of Crypto.randomBytes(length * 2)) {
            if (byte < 248) {                                   // 248 = 62 * 4: keeps the draw uniform
                out += ALPHABET[byte % 62];
                if (out.length === length) {
                    break;
                }
            }
        }
    }

    return out;
}

export function encodeBase62(value: number, width: number): string {
    let out = '';
    let rest = value;
    do {
        out = ALPHABET[rest % 62] + out;
        rest = Math.floor(rest / 62);
    } while (rest > 0);

    return out.padStart(width, '0');
}

const DIGITS = new Map([...ALPHABET].map((character, digit) => [character.charCodeAt(0), digit]));

/** The number the base62 characters of `text` from `start` on encode; -1 when one of them is not base62. */
export function decodeBase62(text: string, start = 0): number {
    let value = 0;
    for (let i = start; i < text.length; ++i) {
        const digit = DIGITS.get(text.charCodeAt(i));
        if (digit === undefined) {
            return -1;
        }

        value = value * 62 + digit;
    }

    return value;
}

export const base62Pattern = /^[0-9A-Za-z]+$/;
