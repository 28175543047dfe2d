import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';
import * as Jose from 'jose';

import { jwtType } from '../../lib/jwt-type';

const { describe, it } = exports.lab = Lab.script();
const { expect } = Code;

describe('jwtType', () => {

    const signed = (typ: string) => new Jose.SignJWT({ sub: 'usr_1' }).setProtectedHeader({ alg: 'HS256', typ }).sign(new TextEncoder().encode('k'.repeat(32)));

    it('reads the typ of a compact JWT without verifying it, in lowercase and without application/', async () => {
        expect(jwtType(await signed('hostless-session+jwt'))).to.equal('hostless-session+jwt');
        expect(jwtType(await signed('application/AT+JWT'))).to.equal('at+jwt');
        const unsigned = `${Buffer.from(JSON.stringify({ alg: 'none' })).toString('base64url')}.e30.`;
        expect(jwtType(unsigned)).to.be.null();                 // no typ
    });

    it('answers null for what is not a compact JWT: API keys, one dot, a header that is not JSON', () => {
        expect(jwtType('svk_abcdefghij_0123456789012345678901234567890123456789')).to.be.null();
        expect(jwtType('.a.b')).to.be.null();
        expect(jwtType(`${Buffer.from('{"typ":"at+jwt"}').toString('base64url')}.payload`)).to.be.null();
        expect(jwtType('not-base64!.a.b')).to.be.null();
        expect(jwtType(`${Buffer.from('{"typ":"at+jwt"}').toString('base64url')}.e30.sig`)).to.equal('at+jwt');
    });
});
