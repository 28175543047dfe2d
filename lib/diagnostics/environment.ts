import type { ConfigSnapshot, Deployment } from '../resources/deployments';
import type { Outcome } from './limits';

// Environment audits and comparisons: names and equality only, never a value or a fingerprint of one. A deployment's
// recorded snapshot is read when a deployment is named; a snapshot that does not hold the environment is
// `unavailable`, never replaced by the current configuration.

export type Variables = ReadonlyArray<{ name: string; value: string }>;
export type Opener = (sealed: Variables) => Record<string, string>;

export interface Side {
    source: 'current' | 'deployment';
    deploymentId: string | null;
    variables: Variables | null;                                // sealed; null: the history is missing
}

export const current = (variables: Variables): Side => ({ source: 'current', deploymentId: null, variables });

export function recorded(deployment: Deployment): Side {
    const environment = (deployment.config as Partial<ConfigSnapshot> | null)?.environment;
    return { source: 'deployment', deploymentId: deployment.id, variables: Array.isArray(environment) ? environment : null };
}

const label = (side: Side) => ({ source: side.source, deploymentId: side.deploymentId });

export function compareEnvironments(first: Side, second: Side, open: Opener) {
    if (!first.variables || !second.variables) {
        const missing = [first, second].filter((side) => !side.variables).map((side) => side.deploymentId);
        return { outcome: 'unavailable' as Outcome, reason: `no environment was recorded for deployment ${missing.join(', ')}`, first: label(first), second: label(second) };
    }

    const a = open(first.variables);
    const b = open(second.variables);
    const names = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
    return {
        outcome: 'ok' as Outcome,
        first: label(first),
        second: label(second),
        onlyInFirst: names.filter((name) => !(name in b)),
        onlyInSecond: names.filter((name) => !(name in a)),
        different: names.filter((name) => name in a && name in b && a[name] !== b[name]),
        same: names.filter((name) => name in a && name in b && a[name] === b[name])
    };
}

const SECRET_NAME = /(SECRET|TOKEN|PASSWORD|PASSWD|PRIVATE|API_?KEY|CREDENTIAL)/i;

/** Findings on one environment, by name: empty values, surrounding whitespace, names differing only by case, secrets' names. */
export function auditEnvironment(side: Side, open: Opener) {
    if (!side.variables) {
        return { outcome: 'unavailable' as Outcome, reason: `no environment was recorded for deployment ${side.deploymentId}`, ...label(side) };
    }

    const values = open(side.variables);
    const names = Object.keys(values).sort();
    const findings: Array<{ name: string; finding: string }> = [];
    const lower = new Map<string, string[]>();
    for (const name of names) {
        const value = values[name];
        if (value === '') {
            findings.push({ name, finding: 'empty' });
        }
        else if (value.trim() !== value) {
            findings.push({ name, finding: 'surrounding_whitespace' });
        }

        if (name !== name.toUpperCase()) {
            findings.push({ name, finding: 'not_upper_case' });
        }

        lower.set(name.toLowerCase(), [...lower.get(name.toLowerCase()) ?? [], name]);
    }

    for (const group of lower.values()) {
        if (group.length > 1) {
            findings.push(...group.map((name) => ({ name, finding: 'differs_only_by_case' })));
        }
    }

    return { outcome: 'ok' as Outcome, ...label(side), count: names.length, names, secretLike: names.filter((name) => SECRET_NAME.test(name)), findings };
}
