import * as Dns from 'node:dns';
import * as Net from 'node:net';

// Destinations the platform fetches refuse loopback, link-local, private and reserved addresses unless the operator
// allows them (api-contract.md section 14). The check runs on the addresses a name resolves to, and the connection
// is made to the checked address, so a DNS answer cannot change between the check and the connect.

const refusedV4: Array<[string, number, string]> = [
    ['0.0.0.0', 8, 'reserved'], ['10.0.0.0', 8, 'private'], ['100.64.0.0', 10, 'private'], ['127.0.0.0', 8, 'loopback'],
    ['169.254.0.0', 16, 'link-local'], ['172.16.0.0', 12, 'private'], ['192.0.0.0', 24, 'reserved'], ['192.0.2.0', 24, 'reserved'],
    ['192.88.99.0', 24, 'reserved'], ['192.168.0.0', 16, 'private'], ['198.18.0.0', 15, 'reserved'], ['198.51.100.0', 24, 'reserved'],
    ['203.0.113.0', 24, 'reserved'], ['224.0.0.0', 4, 'multicast'], ['240.0.0.0', 4, 'reserved']
];

const refusedV6: Array<[string, number, string]> = [
    ['::', 128, 'reserved'], ['::1', 128, 'loopback'], ['100::', 64, 'reserved'], ['2001::', 23, 'reserved'], ['2001:db8::', 32, 'reserved'],
    ['fc00::', 7, 'private'], ['fe80::', 10, 'link-local'], ['ff00::', 8, 'multicast']
];

const lists = new Map<string, Net.BlockList>();
for (const [address, prefix, reason] of [...refusedV4.map((r) => [...r, 'ipv4'] as const), ...refusedV6.map((r) => [...r, 'ipv6'] as const)]) {
    let list = lists.get(reason);
    if (!list) {
        list = new Net.BlockList();
        lists.set(reason, list);
    }

    list.addSubnet(address, prefix, address.includes(':') ? 'ipv6' : 'ipv4');
}

/** The IPv4 address an IPv6 address carries (mapped, NAT64 or 6to4), so it is judged as that address. */
function embeddedV4(address: string): string | null {
    const lower = address.toLowerCase();
    const dotted = /^(?:::ffff:|64:ff9b::)(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
    if (dotted) {
        return dotted[1];
    }

    const hex = /^(?:::ffff:|64:ff9b::)([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(lower) ?? /^2002:([0-9a-f]{1,4}):([0-9a-f]{1,4})(?::|$)/.exec(lower);
    if (hex) {
        const [high, low] = [parseInt(hex[1], 16), parseInt(hex[2], 16)];
        return [high >> 8, high & 255, low >> 8, low & 255].join('.');
    }

    return null;
}

/** Why an address may not be fetched ('loopback', 'private', ...), or null when it is public. */
export function refusedReason(address: string): string | null {
    const family = Net.isIP(address);
    if (!family) {
        return 'not an IP address';
    }

    const v4 = family === 6 ? embeddedV4(address) : address;
    if (v4) {
        return refusedReason4(v4);
    }

    for (const [reason, list] of lists) {
        if (list.check(address, 'ipv6')) {
            return reason;
        }
    }

    return null;
}

function refusedReason4(address: string): string | null {
    for (const [reason, list] of lists) {
        if (list.check(address, 'ipv4')) {
            return reason;
        }
    }

    return null;
}

export class DestinationPolicy {
    private readonly hosts = new Set<string>();
    private readonly ranges = new Net.BlockList();

    /** `allowlist`: hostnames, IP addresses or CIDR ranges that may be fetched even though they are not public. */
    constructor(allowlist: readonly string[] = []) {
        for (const entry of allowlist) {
            const [address, prefix] = entry.split('/');
            const family = Net.isIP(address);
            if (family) {
                const type = family === 4 ? 'ipv4' : 'ipv6';
                this.ranges.addSubnet(address, prefix ? Number(prefix) : family === 4 ? 32 : 128, type);
            }
            else {
                this.hosts.add(entry.toLowerCase());
            }
        }
    }

    /** Throws unless the address may be fetched for this hostname. */
    assertAllowed(hostname: string, address: string): void {
        const reason = refusedReason(address);
        if (reason && !this.hosts.has(hostname.toLowerCase()) && !this.ranges.check(address, Net.isIP(address) === 4 ? 'ipv4' : 'ipv6')) {
            throw new DestinationRefusedError(`${hostname} resolves to a ${reason} address, which is not allowed`);
        }
    }

    /** A `lookup` for http.request: resolves, checks every address, and connects to the first. */
    lookup(): Net.LookupFunction {
        return (hostname, options, callback) => {
            Dns.lookup(hostname, { all: true }, (err, addresses) => {
                if (err) {
                    return callback(err, '', 0);
                }

                try {
                    for (const entry of addresses) {
                        this.assertAllowed(hostname, entry.address);
                    }
                }
                catch (refused) {
                    return callback(refused as NodeJS.ErrnoException, '', 0);
                }

                const wanted = (options as { family?: number }).family;
                const chosen = addresses.find((entry) => !wanted || entry.family === wanted) ?? addresses[0];
                if ((options as { all?: boolean }).all) {
                    return (callback as unknown as (err: null, all: Dns.LookupAddress[]) => void)(null, [chosen]);
                }

                callback(null, chosen.address, chosen.family);
            });
        };
    }
}

export class DestinationRefusedError extends Error {
    readonly code = 'DESTINATION_REFUSED';
}
