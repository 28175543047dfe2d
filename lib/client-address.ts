import type { IncomingMessage } from 'node:http';
import * as Net from 'node:net';

import proxyaddr from 'proxy-addr';

// Where a request comes from: the connection's address, or, only when the connection comes from a proxy the operator
// trusts (TRUSTED_PROXIES), the address that proxy says it forwarded (the rightmost untrusted hop of X-Forwarded-For,
// as Express reads it with proxy-addr). A request made in-process (server.inject) carries the address its maker sets.
// Every user of an address (allow-lists, the security trail, per-address rate limits) reads it through here.

/** Whether a hop may forward an address; null trusts no proxy. */
export type ProxyTrust = ((address: string, hop: number) => boolean) | null;

/** TRUSTED_PROXIES' entries: addresses, CIDR ranges, or `loopback`, `linklocal`, `uniquelocal`. Throws on a bad entry. */
export function proxyTrust(entries: readonly string[]): ProxyTrust {
    return entries.length ? proxyaddr.compile([...entries]) : null;
}

export interface AddressedRequest {
    info: { remoteAddress: string };
    headers: Readonly<Record<string, unknown>>;
}

/** An IPv4 address as itself rather than its IPv4-mapped IPv6 form (`::ffff:203.0.113.9`). */
export function plainAddress(address: string): string {
    return address.startsWith('::ffff:') && Net.isIPv4(address.slice(7)) ? address.slice(7) : address;
}

export function clientAddress(request: AddressedRequest, trust: ProxyTrust): string | null {
    const socket = request.info.remoteAddress;
    if (!socket) {
        return null;
    }

    if (!trust || request.headers['x-forwarded-for'] === undefined) {
        return plainAddress(socket);
    }

    const message = { socket: { remoteAddress: socket }, headers: request.headers } as unknown as IncomingMessage;
    const address = proxyaddr(message, trust);
    return Net.isIP(address) ? plainAddress(address) : null;     // a trusted proxy forwarded something that is no address
}
