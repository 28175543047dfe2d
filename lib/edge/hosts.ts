// Which Host a request names: the platform's (PUBLIC_URL, MCP_PUBLIC_URL, API_BASE_URL, and the loopback names when
// the server listens on loopback), or a tenant's: `<name>.<SITES_DOMAIN>` or any other name, which the edge resolves
// (a verified custom domain) or answers with its 404 page. Platform routes answer only on platform hosts; on every
// other host the edge owns every path.

export interface HostRulesOptions {
    publicUrl: string;
    mcpPublicUrl: string;
    apiBaseUrl: string;
    bind: string;                                               // HOST: the interface the server listens on
    sitesDomain: string;
}

export type HostClass =
    | { kind: 'platform' }
    | { kind: 'tenant'; name: string; review: number | null }   // `<name>.<SITES_DOMAIN>`, or `<name>-pr-<n>.<SITES_DOMAIN>`
    | { kind: 'custom'; hostname: string };                     // any other name: a custom domain, or nothing

const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '[::1]', '::1'];
const LABEL = /^[a-z](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
const REVIEW = /^(.+)-pr-(\d{1,9})$/;

export function isLoopback(host: string): boolean {
    return host === 'localhost' || host === '::1' || host === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

/** The hostname of a Host header, lowercased, without its port or a trailing dot. */
export function hostnameOf(header: string | undefined): string {
    const value = (header ?? '').trim().toLowerCase();
    const name = value.startsWith('[') ? value.slice(0, value.indexOf(']') + 1) : value.split(':')[0];
    return name.endsWith('.') ? name.slice(0, -1) : name;
}

export class HostRules {
    readonly platform: ReadonlySet<string>;
    readonly sitesDomain: string;

    constructor(options: HostRulesOptions) {
        const hosts = [options.publicUrl, options.mcpPublicUrl, options.apiBaseUrl].map((url) => new URL(url).hostname.toLowerCase());
        if (isLoopback(options.bind) || hosts.every(isLoopback)) {
            hosts.push(...LOOPBACK_NAMES, options.bind);
        }

        this.platform = new Set(hosts);
        this.sitesDomain = options.sitesDomain.toLowerCase().replace(/\.$/, '');
    }

    classify(hostHeader: string | undefined): HostClass {
        const host = hostnameOf(hostHeader);
        if (!host || this.platform.has(host)) {
            return { kind: 'platform' };
        }

        const suffix = `.${this.sitesDomain}`;
        if (host.endsWith(suffix)) {
            const label = host.slice(0, -suffix.length);
            const review = REVIEW.exec(label);
            if (review && LABEL.test(review[1])) {
                return { kind: 'tenant', name: review[1], review: Number(review[2]) };
            }

            if (LABEL.test(label)) {
                return { kind: 'tenant', name: label, review: null };
            }
        }

        return { kind: 'custom', hostname: host };
    }

    /** Names no resource served on the edge may take: their tenant host would be one of the platform's. */
    reservedNames(): string[] {
        const suffix = `.${this.sitesDomain}`;
        return [...this.platform].filter((host) => host.endsWith(suffix)).map((host) => host.slice(0, -suffix.length)).filter((label) => LABEL.test(label));
    }
}

/**
 * Why a SITES_DOMAIN cannot serve tenants beside this PUBLIC_URL in production, or null: equal to the platform's
 * host, or a parent of it, a tenant's page would share the dashboard's origin or its cookies' domain.
 */
export function sitesDomainProblem(sitesDomain: string, publicUrl: string): string | null {
    const domain = sitesDomain.toLowerCase().replace(/\.$/, '');
    const host = new URL(publicUrl).hostname.toLowerCase();
    if (host === domain) {
        return `SITES_DOMAIN (${domain}) is PUBLIC_URL's host: tenants' sites would share the dashboard's origin`;
    }

    if (host.endsWith(`.${domain}`)) {
        return `SITES_DOMAIN (${domain}) is a parent of PUBLIC_URL's host (${host}): a tenant's site could set cookies the dashboard reads, and a site named like the platform's subdomain would be hidden`;
    }

    return null;
}
