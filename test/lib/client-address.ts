import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { inRanges, MAX_RANGES, parseRange } from '../../lib/address-ranges';
import { clientAddress, plainAddress, proxyTrust } from '../../lib/client-address';

// The client address every user of one reads (allow-lists, the trail, per-address limits), and address ranges.
const { describe, it } = exports.lab = Lab.script();
const { expect } = Code;

const request = (remoteAddress: string, forwardedFor?: string) => ({ info: { remoteAddress }, headers: forwardedFor === undefined ? {} : { 'x-forwarded-for': forwardedFor } });

describe('clientAddress', () => {

    it('is the connection\'s address, as IPv4 when it is IPv4-mapped, when no proxy is trusted', () => {
        expect(clientAddress(request('203.0.113.9'), null)).to.equal('203.0.113.9');
        expect(clientAddress(request('::ffff:203.0.113.9'), null)).to.equal('203.0.113.9');
        expect(clientAddress(request('2001:db8::1'), null)).to.equal('2001:db8::1');
        expect(clientAddress(request('127.0.0.1', '203.0.113.9'), null), 'X-Forwarded-For is ignored').to.equal('127.0.0.1');
        expect(clientAddress(request(''), null)).to.equal(null);
        expect(plainAddress('::ffff:not-v4')).to.equal('::ffff:not-v4');
    });

    it('is the rightmost forwarded address no trusted proxy holds, only when the connection is a trusted proxy', () => {
        const trust = proxyTrust(['loopback', '10.0.0.0/8']);
        expect(clientAddress(request('127.0.0.1', '203.0.113.9'), trust)).to.equal('203.0.113.9');
        expect(clientAddress(request('::ffff:127.0.0.1', '203.0.113.9'), trust)).to.equal('203.0.113.9');
        expect(clientAddress(request('::1', '2001:db8::7'), trust)).to.equal('2001:db8::7');
        expect(clientAddress(request('127.0.0.1', '198.51.100.1, 203.0.113.9, 10.0.0.5'), trust)).to.equal('203.0.113.9');
        expect(clientAddress(request('127.0.0.1', '10.0.0.4, 10.0.0.5'), trust), 'every hop trusted: the leftmost').to.equal('10.0.0.4');
        expect(clientAddress(request('198.51.100.1', '203.0.113.9'), trust), 'an untrusted connection').to.equal('198.51.100.1');
        expect(clientAddress(request('127.0.0.1', 'garbage'), trust), 'a forwarded value that is no address').to.equal(null);
        expect(clientAddress(request('127.0.0.1'), trust)).to.equal('127.0.0.1');
    });

    it('takes addresses, ranges and the names loopback, linklocal and uniquelocal, and refuses anything else', () => {
        expect(proxyTrust([])).to.equal(null);
        expect(proxyTrust(['uniquelocal'])!('192.168.1.1', 0)).to.be.true();
        expect(() => proxyTrust(['proxy.example.com'])).to.throw();
        expect(() => proxyTrust(['10.0.0.0/40'])).to.throw();
    });
});

describe('address ranges', () => {

    it('are canonical CIDR ranges, a single address being its /32 or /128', () => {
        expect(parseRange('203.0.113.0/24')).to.equal({ range: '203.0.113.0/24' });
        expect(parseRange(' 203.0.113.7 ')).to.equal({ range: '203.0.113.7/32' });
        expect(parseRange('2001:0DB8:0000::/32')).to.equal({ range: '2001:db8::/32' });
        expect(parseRange('0.0.0.0/0')).to.equal({ range: '0.0.0.0/0' });
        for (const bad of ['', 'x', '10/8', '0x0a.0.0.0/8', '1.2.3.4/', '1.2.3.4/8/1', '1.2.3.4/-1', 'fe80::1%eth0/64', '1.2.3.4/ 8']) {
            expect(parseRange(bad), bad).to.include('problem');
        }

        expect(parseRange('10.1.2.3/8')).to.equal({ problem: 'has bits set past its prefix length: the range it names is 10.0.0.0/8' });
        expect(MAX_RANGES).to.equal(32);
    });

    it('match IPv4 and IPv6 addresses, and never an unknown one', () => {
        const ranges = JSON.stringify(['203.0.113.0/24', '2001:db8::/32', '198.51.100.7/32']);
        expect(inRanges(ranges, '203.0.113.255')).to.be.true();
        expect(inRanges(ranges, '198.51.100.7')).to.be.true();
        expect(inRanges(ranges, '198.51.100.8')).to.be.false();
        expect(inRanges(ranges, '2001:db8:abcd::1')).to.be.true();
        expect(inRanges(ranges, '2001:db9::1')).to.be.false();
        expect(inRanges(ranges, null)).to.be.false();
        expect(inRanges(ranges, 'not an address')).to.be.false();
        expect(inRanges(JSON.stringify(['0.0.0.0/0']), '2001:db8::1'), 'an IPv4 range holds no IPv6 address').to.be.false();
    });
});
