import * as Net from 'node:net';

import ipaddr from 'ipaddr.js';

// Address allow-lists (an API key's `allowedCidrs`): ranges in CIDR notation, checked and written canonically when a
// user sets them, and matched in memory against a request's client address on the hot path. A compiled list is kept
// by its text and a parsed address by its text, so the check costs two map lookups and a native BlockList match:
// what is kept is how to read a list or an address, never whether a credential is valid.
export const MAX_RANGES = 32;

export type RangeCheck = { range: string } | { problem: string };

const EXAMPLES = 'like 203.0.113.0/24, 2001:db8::/32 or a single address';

/** A range as a user wrote it: `203.0.113.0/24`, `2001:db8::/48`, or one address (its /32 or /128). */
export function parseRange(text: string): RangeCheck {
    const value = text.trim();
    const [address = '', length, extra] = value.split('/');
    const family = Net.isIP(address);
    if (!family || address.includes('%') || extra !== undefined || (length !== undefined && !/^\d{1,3}$/.test(length))) {
        return { problem: `is not an IPv4 or IPv6 address range (${EXAMPLES})` };
    }

    const bits = length === undefined ? (family === 4 ? 32 : 128) : Number(length);
    if (bits > (family === 4 ? 32 : 128)) {
        return { problem: `has a prefix length above ${family === 4 ? 32 : 128}` };
    }

    const parsed = ipaddr.parse(address);
    if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) {
        return { problem: 'is an IPv4-mapped IPv6 range: write it as an IPv4 range' };
    }

    const network = family === 4 ? ipaddr.IPv4.networkAddressFromCIDR(`${address}/${bits}`) : ipaddr.IPv6.networkAddressFromCIDR(`${address}/${bits}`);
    const canonical = `${network.toString()}/${bits}`;
    if (network.toString() !== parsed.toString()) {
        return { problem: `has bits set past its prefix length: the range it names is ${canonical}` };
    }

    return { range: canonical };
}

const compiled = new Map<string, Net.BlockList>();
const MAX_COMPILED = 5000;

function compile(ranges: string): Net.BlockList {
    let list = compiled.get(ranges);
    if (!list) {
        list = new Net.BlockList();
        for (const range of JSON.parse(ranges) as string[]) {
            const [address = '', bits] = range.split('/');
            list.addSubnet(address, Number(bits), Net.isIPv4(address) ? 'ipv4' : 'ipv6');
        }

        if (compiled.size >= MAX_COMPILED) {
            compiled.clear();
        }

        compiled.set(ranges, list);
    }

    return list;
}

// An address is parsed once into the SocketAddress a BlockList checks (its parse costs a hundred times the check).
const parsed = new Map<string, Net.SocketAddress | null>();

function socketAddress(address: string): Net.SocketAddress | null {
    let found = parsed.get(address);
    if (found === undefined) {
        const family = Net.isIP(address);
        found = family ? new Net.SocketAddress({ address, family: family === 4 ? 'ipv4' : 'ipv6' }) : null;
        if (parsed.size >= MAX_COMPILED) {
            parsed.clear();
        }

        parsed.set(address, found);
    }

    return found;
}

/** Whether an address is in a stored list (the JSON text of canonical ranges); an unknown address is in none. */
export function inRanges(ranges: string, address: string | null): boolean {
    const parsedAddress = address ? socketAddress(address) : null;
    return parsedAddress !== null && compile(ranges).check(parsedAddress);
}
