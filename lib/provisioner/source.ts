import * as Dns from 'node:dns/promises';
import * as Net from 'node:net';

import { DestinationPolicy, DestinationRefusedError } from '../outside/destination';
import { ImportFailure, type ImportSource } from './driver';

// The source of an import: a `postgres://user:password@host:port/database` URL, parsed here and handed to the
// tools as separate settings (never as a URL, never on a command line), so nothing in it can name a socket, a
// service file or another host. Only `sslmode` may follow. Its host must pass the outbound destination rules, and
// the copy connects to the address that was checked.
export interface SourceUrl {
    host: string;
    port: number;
    database: string;
    user: string;
    password: string;
    sslmode: string | null;
}

export const SSL_MODES = ['disable', 'allow', 'prefer', 'require', 'verify-ca', 'verify-full'];

/** The source, or a sentence saying what is wrong with it (never repeating it: it holds a password). */
export function parseSourceUrl(text: string): SourceUrl | string {
    let url: URL;
    try {
        url = new URL(text);
    }
    catch {
        return 'must be a URL such as postgres://user:password@db.example.com:5432/name';
    }

    if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:') {
        return 'must be a postgres:// or postgresql:// URL';
    }

    const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
    if (!host || host.includes(',')) {
        return 'must name one host';
    }

    if (!url.username) {
        return 'must name the user to connect as (postgres://user:password@host/name)';
    }

    const database = safeDecode(url.pathname.replace(/^\//, ''));
    if (!database || database.length > 63 || database.includes('/')) {
        return 'must name one database after the host (postgres://user:password@host:5432/name)';
    }

    const params = [...url.searchParams.keys()];
    if (params.some((name) => name !== 'sslmode') || url.hash) {
        return 'may carry only the sslmode parameter';
    }

    const sslmode = url.searchParams.get('sslmode');
    if (sslmode !== null && !SSL_MODES.includes(sslmode)) {
        return `has an unknown sslmode (use ${SSL_MODES.join(', ')})`;
    }

    const user = safeDecode(url.username);
    const password = safeDecode(url.password);
    if (user === null || password === null || /[\0\r\n]/.test(`${user}${password}${database}`)) {
        return 'holds characters that are not accepted';
    }

    return { host, port: url.port ? Number(url.port) : 5432, database, user, password, sslmode };
}

/** The source without its password, as the import shows it. */
export function displaySource(source: SourceUrl): string {
    const host = Net.isIPv6(source.host) ? `[${source.host}]` : source.host;
    const query = source.sslmode ? `?sslmode=${source.sslmode}` : '';
    return `postgresql://${encodeURIComponent(source.user)}@${host}:${source.port}/${encodeURIComponent(source.database)}${query}`;
}

/** Resolves the source's host and checks every address against the destination rules; the import connects to the first. */
export async function resolveSource(source: SourceUrl, policy: DestinationPolicy): Promise<ImportSource> {
    let addresses: string[];
    if (Net.isIP(source.host)) {
        addresses = [source.host];
    }
    else {
        try {
            addresses = (await Dns.lookup(source.host, { all: true })).map((entry) => entry.address);
        }
        catch {
            throw new ImportFailure(`The source host ${source.host} could not be resolved`);
        }
    }

    try {
        for (const address of addresses) {
            policy.assertAllowed(source.host, address);
        }
    }
    catch (err) {
        if (err instanceof DestinationRefusedError) {
            throw new ImportFailure(`The source is refused: ${err.message}`);
        }

        throw err;
    }

    return { ...source, address: addresses[0] };
}

function safeDecode(text: string): string | null {
    try {
        return decodeURIComponent(text);
    }
    catch {
        return null;
    }
}
