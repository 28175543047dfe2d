import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { decryptSecret, deriveKey, encryptSecret, hashPassword, hexDigestsEqual, sha256Hex, verifyPassword } from '../../lib/crypto';

const { describe, it } = exports.lab = Lab.script();
const { expect } = Code;

describe('crypto', () => {

    it('hashes passwords with scrypt and a salt of their own', async () => {
        const [a, b] = [await hashPassword('same password', { cost: 1024 }), await hashPassword('same password', { cost: 1024 })];
        expect(a).to.match(/^scrypt\$1024\$[A-Za-z0-9+/=]+\$[A-Za-z0-9+/=]+$/);
        expect(a).to.not.equal(b);
        expect(a).to.not.include('same password');
        expect(await verifyPassword('same password', a)).to.be.true();
        expect(await verifyPassword('same passworD', a)).to.be.false();
        expect(await verifyPassword('anything', null)).to.be.false();
        expect(await verifyPassword('anything', 'md5$abc')).to.be.false();
    });

    it('seals secrets with AES-256-GCM and notices tampering', () => {
        const key = deriveKey('a configured secret of enough length', 'env-vars');
        const sealed = encryptSecret('postgres://user:pw@db/app', key);
        expect(sealed).to.startWith('v1.');
        expect(sealed).to.not.include('pw@db');
        expect(decryptSecret(sealed, key)).to.equal('postgres://user:pw@db/app');
        expect(encryptSecret('same', key)).to.not.equal(encryptSecret('same', key));

        const parts = sealed.split('.');
        const flipped = Buffer.from(parts[3], 'base64url');
        flipped[0] ^= 1;
        expect(() => decryptSecret([...parts.slice(0, 3), flipped.toString('base64url')].join('.'), key)).to.throw();
        expect(() => decryptSecret(sealed, deriveKey('another secret', 'env-vars'))).to.throw();
        expect(() => decryptSecret('garbage', key)).to.throw('Unrecognised sealed secret format');
    });

    it('compares hex digests by every character', () => {
        const digest = sha256Hex('a secret');
        expect(hexDigestsEqual(digest, sha256Hex('a secret'))).to.be.true();
        for (let i = 0; i < digest.length; ++i) {
            const changed = digest.slice(0, i) + (digest[i] === '0' ? '1' : '0') + digest.slice(i + 1);
            expect(hexDigestsEqual(digest, changed), `position ${i}`).to.be.false();
        }

        expect(hexDigestsEqual(digest, digest.slice(0, -1))).to.be.false();
        expect(hexDigestsEqual('', '')).to.be.true();
    });
});
