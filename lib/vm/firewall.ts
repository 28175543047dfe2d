import * as Net from 'node:net';

import Joi from 'joi';

import { fields } from '../validation';

// A VM's inbound firewall: every rule allows one protocol, on a port or a range of ports (not for icmp), from one
// source network in CIDR form; everything else inbound is refused, and outbound traffic is open. Rules are replaced
// as a whole. A rule that is not valid is refused naming the rule and its field (`"rules[2].ports" ...`).
export interface FirewallRule {
    protocol: 'tcp' | 'udp' | 'icmp';
    ports?: string;
    source: string;
    description?: string;
}

export const MAX_RULES = 50;

export const DEFAULT_RULES: readonly FirewallRule[] = [
    { protocol: 'tcp', ports: '22', source: '0.0.0.0/0', description: 'SSH' },
    { protocol: 'tcp', ports: '22', source: '::/0', description: 'SSH' }
];

const portOrRange: Joi.CustomValidator = (value: string, helpers) => {
    const match = /^(\d{1,5})(?:-(\d{1,5}))?$/.exec(value);
    const low = Number(match?.[1]);
    const high = match?.[2] === undefined ? low : Number(match[2]);
    if (!match || low < 1 || high > 65535 || low > high) {
        return helpers.message({ custom: '{{#label}} must be a port (1-65535) or a range such as 8000-8100, the lower port first' });
    }

    return value;
};

/** The problem with a CIDR text, or null. */
export function cidrProblem(value: string): string | null {
    const [address, prefix, ...rest] = value.split('/');
    const family = Net.isIP(address ?? '');
    const bits = family === 4 ? 32 : 128;
    if (!family || rest.length || prefix === undefined || !/^\d{1,3}$/.test(prefix) || Number(prefix) > bits) {
        return 'must be a network in CIDR form, such as 203.0.113.0/24, 2001:db8::/32 or 0.0.0.0/0';
    }

    const network = networkAddress(address, Number(prefix), family);
    if (network !== normalise(address, family)) {
        return `has host bits set: write the network address (${network}/${prefix})`;
    }

    return null;
}

function normalise(address: string, family: number): string {
    return family === 4 ? address.split('.').map(Number).join('.') : new URL(`http://[${address}]`).hostname.slice(1, -1);
}

function networkAddress(address: string, prefix: number, family: number): string {
    if (family === 4) {
        const value = address.split('.').reduce((sum, part) => sum * 256 + Number(part), 0);
        const mask = prefix === 0 ? 0 : (0xffffffff << (32 - prefix)) >>> 0;
        const network = (value & mask) >>> 0;
        return [24, 16, 8, 0].map((shift) => (network >>> shift) & 255).join('.');
    }

    const groups = expand(normalise(address, 6)).map((group, i) => {
        const keep = Math.max(0, Math.min(16, prefix - i * 16));
        return (keep === 0 ? 0 : group & ((0xffff << (16 - keep)) & 0xffff)).toString(16);
    });
    return normalise(groups.join(':'), 6);
}

/** The eight groups of a canonical IPv6 address (no embedded IPv4: the URL parser writes those in hex). */
function expand(address: string): number[] {
    const [head, tail] = address.includes('::') ? address.split('::') as [string, string] : [address, null];
    const parse = (part: string) => part ? part.split(':').map((group) => parseInt(group, 16)) : [];
    const start = parse(head);
    const end = tail === null ? [] : parse(tail);
    return [...start, ...Array<number>(8 - start.length - end.length).fill(0), ...end];
}

// Kept in canonical form (`2001:DB8::/32` is `2001:db8::/32`), so equal rules compare equal.
const source: Joi.CustomValidator = (value: string, helpers) => {
    const problem = cidrProblem(value);
    if (problem) {
        return helpers.message({ custom: `{{#label}} ${problem}` });
    }

    const [address, prefix] = value.split('/') as [string, string];
    return `${normalise(address, Net.isIP(address))}/${Number(prefix)}`;
};

const same = (a: FirewallRule, b: FirewallRule) => a.protocol === b.protocol && (a.ports ?? '') === (b.ports ?? '') && a.source === b.source;

export const firewallRule = Joi.object<FirewallRule, true>({
    protocol: Joi.string().valid('tcp', 'udp', 'icmp').required().description('tcp, udp or icmp.'),
    ports: Joi.string().max(11).custom(portOrRange).when('protocol', { is: 'icmp', then: Joi.forbidden(), otherwise: Joi.required() })
        .description('A port (22) or a range (8000-8100); not for icmp.'),
    source: Joi.string().max(43).required().custom(source).description('Where traffic may come from, in CIDR form (0.0.0.0/0 and ::/0: anywhere).'),
    description: fields.text(100).description('What the rule is for.')
});

export const firewallBody = Joi.object<{ rules: FirewallRule[] }, true>({
    rules: Joi.array().items(firewallRule).max(MAX_RULES).unique(same).required().messages({ 'array.unique': '{{#label}} repeats an earlier rule' })
        .description('The inbound rules, replacing the current ones.')
});
