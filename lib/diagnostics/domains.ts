import { Resolver } from 'node:dns/promises';
import * as Tls from 'node:tls';

import { DestinationPolicy, DestinationRefusedError } from '../outside/destination';
import { DOMAINS_MAX } from './limits';

// domains_diagnose: DNS and TLS of at most two verified public hostnames of a resource. The address a name resolves
// to is checked (private, loopback, link-local and reserved destinations are refused unless OUTBOUND_ALLOWLIST names
// them) and the TLS connection goes to that very address, with the hostname as SNI: the DNS answer cannot change
// between the check and the connection. Nothing is fetched over the connection.

export interface DomainProbeOptions {
    servers?: readonly string[];                                // DNS_SERVERS
    allowlist: readonly string[];                               // OUTBOUND_ALLOWLIST
    tlsPort?: number;                                           // 443 (tests: a TLS server of their own)
    timeoutMs?: number;
}

type Step = { outcome: 'ok' | 'failed' | 'refused' | 'unavailable' | 'inconclusive'; [key: string]: unknown };

async function resolve(resolver: Resolver, hostname: string): Promise<Step & { addresses?: string[] }> {
    const found: string[] = [];
    const errors: string[] = [];
    for (const lookup of [() => resolver.resolve4(hostname), () => resolver.resolve6(hostname)]) {
        try {
            found.push(...await lookup());
        }
        catch (err) {
            const code = (err as NodeJS.ErrnoException).code ?? 'error';
            if (!['ENOTFOUND', 'ENODATA', 'NXDOMAIN'].includes(code)) {
                errors.push(code);
            }
        }
    }

    if (found.length) {
        return { outcome: 'ok', addresses: found };
    }

    return errors.length ? { outcome: 'inconclusive', reason: `the resolver failed (${errors.join(', ')})` } : { outcome: 'failed', reason: 'the name has no A or AAAA record' };
}

function handshake(address: string, hostname: string, port: number, timeoutMs: number): Promise<Step> {
    return new Promise((resolvePromise) => {
        const socket = Tls.connect({ host: address, port, servername: hostname, rejectUnauthorized: false, timeout: timeoutMs });
        const done = (step: Step) => {
            socket.destroy();
            resolvePromise(step);
        };

        socket.once('secureConnect', () => {
            const certificate = socket.getPeerCertificate();
            if (!certificate || !Object.keys(certificate).length) {
                return done({ outcome: 'failed', reason: 'the server presented no certificate' });
            }

            const mismatch = Tls.checkServerIdentity(hostname, certificate);
            const expires = new Date(certificate.valid_to);
            done({
                outcome: socket.authorized && !mismatch && expires.getTime() > Date.now() ? 'ok' : 'failed',
                trusted: socket.authorized,
                ...(socket.authorizationError ? { trustError: String(socket.authorizationError) } : {}),
                matchesHostname: !mismatch,
                validFrom: new Date(certificate.valid_from).toISOString(),
                validTo: expires.toISOString(),
                daysLeft: Math.floor((expires.getTime() - Date.now()) / 86_400_000),
                protocol: socket.getProtocol()
            });
        });
        socket.once('timeout', () => done({ outcome: 'failed', reason: `no TLS handshake within ${timeoutMs} ms` }));
        socket.once('error', (err: NodeJS.ErrnoException) => done({ outcome: 'failed', reason: `the TLS connection failed (${err.code ?? err.message})` }));
    });
}

export async function diagnoseDomains(hostnames: readonly string[], pending: number, options: DomainProbeOptions) {
    const resolver = new Resolver({ timeout: options.timeoutMs ?? 3000, tries: 1 });
    if (options.servers?.length) {
        resolver.setServers([...options.servers]);
    }

    const policy = new DestinationPolicy(options.allowlist);
    const probed = hostnames.slice(0, DOMAINS_MAX);
    const results = [];
    for (const hostname of probed) {
        const dns = await resolve(resolver, hostname);
        if (dns.outcome !== 'ok') {
            results.push({ hostname, dns, tls: { outcome: 'unavailable', reason: 'the name did not resolve' } });
            continue;
        }

        const address = dns.addresses![0];
        try {
            for (const each of dns.addresses!) {
                policy.assertAllowed(hostname, each);
            }
        }
        catch (err) {
            if (err instanceof DestinationRefusedError) {
                results.push({ hostname, dns: { ...dns, outcome: 'refused', reason: err.message }, tls: { outcome: 'unavailable', reason: 'the destination is refused' } });
                continue;
            }

            throw err;
        }

        results.push({ hostname, dns: { ...dns, pinned: address }, tls: await handshake(address, hostname, options.tlsPort ?? 443, options.timeoutMs ?? 5000) });
    }

    return {
        outcome: probed.length ? 'ok' : 'unavailable',
        ...(probed.length ? {} : { reason: 'the resource has no verified custom domain' }),
        probed: results,
        notProbed: { verified: Math.max(0, hostnames.length - DOMAINS_MAX), pending }
    };
}
