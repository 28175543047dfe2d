import { Resolver } from 'node:dns/promises';

// DNS lookups for domain verification, through the operator's resolvers (DNS_SERVERS) or the system's.
export class DnsProbe {
    private readonly resolver: Resolver;

    constructor(options: { servers?: readonly string[]; timeoutMs?: number } = {}) {
        this.resolver = new Resolver({ timeout: options.timeoutMs ?? 3000, tries: 2 });
        if (options.servers?.length) {
            this.resolver.setServers([...options.servers]);
        }
    }

    /** The TXT strings published at a name; none when the name or the record does not exist. */
    async txt(name: string): Promise<string[]> {
        try {
            return (await this.resolver.resolveTxt(name)).map((chunks) => chunks.join(''));
        }
        catch (err) {
            if (['ENOTFOUND', 'ENODATA', 'NXDOMAIN'].includes((err as NodeJS.ErrnoException).code ?? '')) {
                return [];
            }

            throw err;
        }
    }
}
