import * as Fs from 'node:fs';
import * as Os from 'node:os';
import * as Path from 'node:path';

import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { checksum, explainToken, generateApiKey, ISSUED_TOKEN_PATTERN, newSecret, parseApiKey } from '../../lib/api-key-token';
import { randomBase62 } from '../../lib/base62';

const { describe, it } = exports.lab = Lab.script();
const { expect } = Code;

describe('API key tokens', () => {

    it('are svk_<10 base62>_<43 base62 + 6 checksum> with two underscores', () => {
        const { token, prefix, secret } = generateApiKey();
        expect(token).to.equal(`svk_${prefix}_${secret}`);
        expect(token.split('_')).to.have.length(3);
        expect(prefix).to.match(/^[0-9A-Za-z]{10}$/);
        expect(secret).to.match(/^[0-9A-Za-z]{49}$/);
        expect(parseApiKey(token)).to.equal({ prefix, secret });
    });

    it('end in the base62 CRC32 of everything before the checksum, left-padded with 0', () => {
        expect(checksum('abcdefghij', 'x')).to.match(/^[0-9A-Za-z]{6}$/);
        expect(crc32('svk_0000000000_0')).to.equal(3999403664);      // the value any CRC-32 (IEEE) tool prints
        for (let i = 0; i < 50; ++i) {
            const prefix = randomBase62(10);
            const body = randomBase62(43);
            expect(checksum(prefix, body)).to.equal(encode(crc32(`svk_${prefix}_${body}`)));
        }
    });

    it('reject any single-character change, truncation or extension without a lookup', () => {
        const { token } = generateApiKey();
        const alphabet = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
        for (let i = 4; i < token.length; ++i) {
            if (token[i] === '_') {
                continue;
            }

            const other = alphabet[(alphabet.indexOf(token[i]) + 1 + Math.floor(Math.random() * 60)) % 62];
            expect(parseApiKey(token.slice(0, i) + other + token.slice(i + 1)), `position ${i}`).to.equal(null);
        }

        expect(parseApiKey(token.slice(0, -1))).to.equal(null);
        expect(parseApiKey(`${token}a`)).to.equal(null);
        expect(parseApiKey(`Svk${token.slice(3)}`)).to.equal(null);
        expect(parseApiKey(`${token.slice(0, 15)}-${token.slice(16)}`)).to.equal(null);
    });

    it('never repeat over many draws and use the whole alphabet', () => {
        const seen = new Set<string>();
        const chars = new Set<string>();
        for (let i = 0; i < 5000; ++i) {
            const { token } = generateApiKey();
            seen.add(token);
            for (const char of token.slice(4)) {
                chars.add(char);
            }
        }

        expect(seen.size).to.equal(5000);
        expect(chars.size).to.equal(63);                        // 62 base62 characters and the separator
        expect(randomBase62(1000)).to.match(/^[0-9A-Za-z]{1000}$/);
    });
});

describe('the published detector', () => {

    it('finds every issued token with its pattern, and a roll keeps the prefix', () => {
        for (let i = 0; i < 200; ++i) {
            const { token, prefix } = generateApiKey();
            expect(`leaked: ${token}.`.match(ISSUED_TOKEN_PATTERN)![0]).to.equal(token);
            const rolled = newSecret(prefix);
            expect(rolled.prefix).to.equal(prefix);
            expect(rolled.token).to.not.equal(token);
            expect(parseApiKey(rolled.token)).to.equal({ prefix, secret: rolled.secret });
        }
    });

    it('is what docs/secret-scanning.md publishes: its pattern, its worked example and its detector, which runs', () => {
        const page = Fs.readFileSync(Path.join(__dirname, '..', '..', 'docs', 'secret-scanning.md'), 'utf8');
        expect(page).to.contain(`\`\`\`\n${ISSUED_TOKEN_PATTERN.source}\n\`\`\``);
        const example = /^token {5}(\S+)$/m.exec(page)![1];
        expect(explainToken(example)).to.equal({ ok: true, prefix: 'svk_Ab12Cd34Ef' });
        expect(page).to.contain(`base 62   ${example.slice(-6)}`);

        const file = Path.join(Fs.mkdtempSync(Path.join(Os.tmpdir(), 'hostless-detector-')), 'detector.js');
        Fs.writeFileSync(file, /```js\n([\s\S]*?)```/.exec(page)![1]);
        // eslint-disable-next-line @typescript-eslint/no-require-imports -- the detector is the page's own CommonJS snippet
        const { findHostlessKeys } = require(file) as { findHostlessKeys: (text: string) => string[] };
        const tokens = Array.from({ length: 100 }, () => generateApiKey().token);
        const typo = `${tokens[0].slice(0, -1)}${tokens[0].endsWith('a') ? 'b' : 'a'}`;
        expect(findHostlessKeys(`x=${tokens.join('\nkey: ')} ${typo} svk_short_abc ${example}`)).to.equal([...tokens, example]);
        Fs.rmSync(Path.dirname(file), { recursive: true, force: true });
    });

    it('explains why a text is not a token, without repeating its secret', () => {
        const { token, prefix, secret } = generateApiKey();
        expect(explainToken(token)).to.equal({ ok: true, prefix: `svk_${prefix}` });
        expect(explainToken(`Bearer ${token}\n`)).to.equal({ ok: true, prefix: `svk_${prefix}` });
        expect(explainToken('ghp_abc')).to.equal({ ok: false, reason: 'it does not start with svk_' });
        expect(explainToken(token.slice(0, -3))).to.include({ ok: false });
        const typo = `${token.slice(0, -1)}${token.endsWith('a') ? 'b' : 'a'}`;
        const verdict = explainToken(typo);
        expect(verdict).to.equal({ ok: false, reason: `its checksum does not match: a character of svk_${prefix}_... was changed, or it was made up` });
        expect(JSON.stringify(verdict)).to.not.include(secret.slice(0, 20));
    });
});

// Written out here rather than taken from zlib, so the test checks the format, not the library call.
function crc32(text: string): number {
    let crc = 0xffffffff;
    for (const byte of Buffer.from(text, 'utf8')) {
        crc ^= byte;
        for (let k = 0; k < 8; ++k) {
            crc = crc & 1 ? (crc >>> 1) ^ 0xedb88320 : crc >>> 1;
        }
    }

    return (crc ^ 0xffffffff) >>> 0;
}

function encode(value: number): string {
    const alphabet = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
    let out = '';
    for (let rest = value; rest > 0; rest = Math.floor(rest / 62)) {
        out = alphabet[rest % 62] + out;
    }

    return out.padStart(6, '0');
}
