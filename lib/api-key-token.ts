import { crc32 } from 'node:zlib';

import { decodeBase62, encodeBase62, randomBase62 } from './base62';

// `svk_<prefix>_<secret body><checksum>`: prefix 10 base62, body 43 base62 (256 bits), checksum 6 base62 (CRC32
// of `svk_<prefix>_<body>`). A mistyped or truncated token fails the checksum without touching the database.
export const TOKEN_MARKER = 'svk';
const PREFIX_LENGTH = 10;
const BODY_LENGTH = 43;
const CHECKSUM_LENGTH = 6;
const TOKEN_PATTERN = /^svk_([0-9A-Za-z]{8,32})_([0-9A-Za-z]{38,122})$/;
const UNMARKED_PATTERN = /^([0-9A-Za-z]{8,32})_([0-9A-Za-z]{38,122})$/;

export interface ParsedApiKey {
    prefix: string;                                             // the random part, without `svk_`
    secret: string;                                             // body + checksum: what is hashed and stored
}

export function checksum(prefix: string, body: string): string {
    return encodeBase62(crc32(`${TOKEN_MARKER}_${prefix}_${body}`), CHECKSUM_LENGTH);
}

export function generateApiKey(): { token: string; prefix: string; secret: string } {
    return newSecret(randomBase62(PREFIX_LENGTH));
}

/** A new secret for an existing prefix (a roll): the key keeps its public prefix. */
export function newSecret(prefix: string): { token: string; prefix: string; secret: string } {
    const body = randomBase62(BODY_LENGTH);
    const secret = body + checksum(prefix, body);
    return { token: `${TOKEN_MARKER}_${prefix}_${secret}`, prefix, secret };
}

/** The pattern a secret scanner looks for (docs/secret-scanning.md): the tokens this server issues, exactly. */
export const ISSUED_TOKEN_PATTERN = /\bsvk_[0-9A-Za-z]{10}_[0-9A-Za-z]{49}\b/;

/** Why a text is or is not a well-formed token, offline (`npm run cli -- keys check`); never repeats the secret. */
export function explainToken(text: string): { ok: true; prefix: string } | { ok: false; reason: string } {
    const token = text.trim().replace(/^Bearer +/i, '');
    if (!token.startsWith(`${TOKEN_MARKER}_`)) {
        return { ok: false, reason: 'it does not start with svk_' };
    }

    const match = TOKEN_PATTERN.exec(token);
    if (!match) {
        return { ok: false, reason: 'it is not svk_<prefix>_<secret> in base62 characters of the right lengths (truncated, or with extra characters?)' };
    }

    if (!checksumHolds(token)) {
        return { ok: false, reason: `its checksum does not match: a character of ${publicPrefix(match[1] ?? '')}_... was changed, or it was made up` };
    }

    return { ok: true, prefix: publicPrefix(match[1] ?? '') };
}

export function looksLikeApiKey(value: string): boolean {
    return value.startsWith(`${TOKEN_MARKER}_`);
}

/** Parses and checksums a token; null when it is not a well-formed key. */
export function parseApiKey(token: string): ParsedApiKey | null {
    const match = TOKEN_PATTERN.exec(token);
    return match && checksumHolds(token) ? { prefix: match[1], secret: match[2] } : null;
}

/** Whether a text is a key's `<prefix>_<secret>` with a checksum that holds, its `svk_` marker left off. */
export function isApiKey(unmarked: string): boolean {
    return UNMARKED_PATTERN.test(unmarked) && checksumHolds(`${TOKEN_MARKER}_${unmarked}`);
}

// The last six characters of a well-formed token are the CRC32 of all before them, in base62 (checksum() above):
// decoded and compared as a number, on the token as it is (the key check runs on every request).
function checksumHolds(token: string): boolean {
    return decodeBase62(token, token.length - CHECKSUM_LENGTH) === crc32(token.slice(0, -CHECKSUM_LENGTH));
}

export function publicPrefix(prefix: string): string {
    return `${TOKEN_MARKER}_${prefix}`;
}
