import { keyRoute as r, type RouteRow, type RoutePolicy } from '../route-table';
import type { MetricName } from './metrics';
import type { RuntimeKind } from './spec';

// The route-table rows every runtime kind shares, written once: a kind's table lists the groups it has, with the
// spec's paths and scopes, and gets the same ids (`<family>.<group>...`), examples and generated security cases.
// The handlers of these rows come from handlers.ts, keyed by the same ids.
const the = (k: RuntimeKind) => `${/^[aeiou]/.test(k.noun) ? 'an' : 'a'} ${k.noun}`;
const one = (k: RuntimeKind) => `${k.path}/{${k.param}}`;
const named = (k: RuntimeKind, extra: Record<string, string> = {}) => ({ [k.param]: `{${k.fixture}}`, ...extra });
const deployment = (k: RuntimeKind) => named(k, { deploymentId: `{${k.fixture}Deployment}` });
const camel = (name: string) => name.replace(/-(\w)/g, (_, c: string) => c.toUpperCase());

export interface CrudOptions {
    patchExample: Record<string, unknown>;
    createExample?: Record<string, unknown>;
    patchPolicy?: RoutePolicy;
    deleteWhat?: string;
}

export const sharedRows = {
    crud(k: RuntimeKind, options: CrudOptions): RouteRow[] {
        return [
            r(`${k.family}.list`, 'GET', k.path, k.scopes.read, `${k.plural.charAt(0).toUpperCase()}${k.plural.slice(1)} the caller can reach, newest first; \`?projectId=\` narrows to one project.`,
                { policy: { project: 'query' }, example: { setup: [k.fixture] } }),
            r(`${k.family}.get`, 'GET', one(k), k.scopes.read, `One ${k.noun}.`, { example: { setup: [k.fixture], params: named(k) } }),
            r(`${k.family}.create`, 'POST', k.path, k.scopes.write, `Create ${the(k)}.`, {
                policy: { project: 'body', create: true }, example: { payload: { name: '{unique}', projectId: '{project}', ...k.createFields, ...options.createExample }, status: 201 }
            }),
            r(`${k.family}.patch`, 'PATCH', one(k), k.scopes.write, `Change ${the(k)}'s settings; fields left out stay as they are.`, {
                ...(options.patchPolicy ? { policy: options.patchPolicy } : {}), example: { setup: [k.fixture], params: named(k), payload: options.patchExample }
            }),
            r(`${k.family}.delete`, 'DELETE', one(k), k.scopes.delete, `Delete ${the(k)} with ${options.deleteWhat ?? 'its deployments, logs, domains and collaborators'}.`,
                { example: { setup: [k.fixture], params: named(k), status: 204 } })
        ];
    },

    envVars(k: RuntimeKind): RouteRow[] {
        return [r(`${k.family}.envVars.get`, 'GET', `${one(k)}/environment-variables`, k.scopes.read,
            `${the(k).replace(/^a/, 'A')}'s environment variables (values only to those allowed to see secrets).`, { example: { setup: [k.fixture], params: named(k) } })];
    },

    domains(k: RuntimeKind): RouteRow[] {
        return [
            r(`${k.family}.domains.list`, 'GET', `${one(k)}/custom-domains`, k.scopes.read, 'Custom domains with their verification status.', { example: { setup: [k.fixture, `${k.fixture}Domain`], params: named(k) } }),
            r(`${k.family}.domains.add`, 'POST', `${one(k)}/custom-domains`, k.scopes.write, 'Add a custom domain; it is verified by a TXT record.', { example: { setup: [k.fixture], params: named(k), payload: { domain: '{unique}.example.com' }, status: 201 } }),
            r(`${k.family}.domains.remove`, 'DELETE', `${one(k)}/custom-domains`, k.scopes.delete, 'Remove a custom domain (`?domain=`).', {
                example: { setup: [k.fixture, `${k.fixture}Domain`], params: named(k), query: { domain: `{${k.fixture}Domain}` }, status: 204 }
            })
        ];
    },

    collaborators(k: RuntimeKind): RouteRow[] {
        return [
            r(`${k.family}.collaborators.list`, 'GET', `${one(k)}/collaborators`, k.scopes.read, `Users outside the project granted this ${k.noun} (\`status: "active"\`), and those invited to be (\`"pending"\`, \`"expired"\`).`, { example: { setup: [k.fixture, `${k.fixture}Collaborator`], params: named(k) } }),
            r(`${k.family}.collaborators.upsert`, 'PATCH', `${one(k)}/collaborators`, k.scopes.write,
                'Change a collaborator\'s permissions (200), or invite an account to be one (202, the same answer whether or not it exists; it takes effect when accepted).',
                { example: { setup: [k.fixture], params: named(k), payload: { email: '{spareEmail}', permissions: ['view', 'deploy'] }, status: 202 } }),
            r(`${k.family}.collaborators.remove`, 'DELETE', `${one(k)}/collaborators/{email}`, k.scopes.delete, 'Remove a collaborator, or withdraw their invitation.', {
                example: { setup: [k.fixture, `${k.fixture}Collaborator`], params: named(k, { email: `{${k.fixture}Collaborator}` }), status: 204 }
            })
        ];
    },

    scale(k: RuntimeKind): RouteRow[] {
        return [
            r(`${k.family}.scaleDown`, 'POST', `${one(k)}/scale/down`, k.scopes.write, 'Remove instances within the plan\'s bounds (`{by}`, default 1).', {
                policy: { collaborator: 'operate' }, example: { setup: [`${k.fixture}Pair`], params: { [k.param]: `{${k.fixture}Pair}` }, payload: { by: 1 } }
            }),
            r(`${k.family}.scaleUp`, 'POST', `${one(k)}/scale/up`, k.scopes.write, 'Add instances within the plan\'s bounds (`{by}`, default 1).', { policy: { collaborator: 'operate' }, example: { setup: [k.fixture], params: named(k), payload: {} } })
        ];
    },

    restart(k: RuntimeKind): RouteRow[] {
        return [r(`${k.family}.restart`, 'POST', `${one(k)}/restart`, k.scopes.write, `Restart ${the(k)}'s instances (409 without a live deployment).`, {
            policy: { collaborator: 'operate' }, example: { setup: [k.fixture, `${k.fixture}Deployment`, `${k.fixture}Live`], params: named(k) }
        })];
    },

    search(k: RuntimeKind): RouteRow[] {
        return [r(`${k.family}.search`, 'GET', `${one(k)}/search`, k.scopes.read, `Search ${the(k)}'s deployments, logs and environment variable names.`, { example: { setup: [k.fixture], params: named(k), query: { q: 'deploy' } } })];
    },

    commits(k: RuntimeKind): RouteRow[] {
        // 409 is the honest answer without a repository and a Git connection (the Git family's connect flow makes one).
        return [r(`${k.family}.commits.list`, 'GET', `${one(k)}/commits`, k.scopes.read, `Recent commits of the ${k.noun}'s repository branch.`, { example: { setup: [k.fixture], params: named(k), status: 409 } })];
    },

    deployments(k: RuntimeKind, options: { stats?: boolean; buildStats?: boolean; postBuildLogs?: boolean } = {}): RouteRow[] {
        const deploy = { collaborator: 'deploy' as const };
        const rows = [
            r(`${k.family}.deployments.list`, 'GET', `${one(k)}/deployments`, 'deployments:read', `Deployments of ${the(k)}, newest first.`, { example: { setup: [k.fixture, `${k.fixture}Deployment`], params: named(k) } }),
            r(`${k.family}.deployments.get`, 'GET', `${one(k)}/deployments/{deploymentId}`, 'deployments:read', 'One deployment.', { example: { setup: [k.fixture, `${k.fixture}Deployment`], params: deployment(k) } }),
            r(`${k.family}.deployments.create`, 'POST', `${one(k)}/deployments/new`, 'deployments:write', 'Trigger a deployment (a JSON body; an empty object is accepted).', { policy: deploy, example: { setup: [k.fixture], params: named(k), payload: {}, status: 201 } }),
            r(`${k.family}.deployments.rerun`, 'POST', `${one(k)}/deployments/{deploymentId}/rerun`, 'deployments:write', 'Deploy the same configuration again.', { policy: deploy, example: { setup: [k.fixture, `${k.fixture}Deployment`], params: deployment(k), status: 201 } }),
            r(`${k.family}.deployments.logs`, 'GET', `${one(k)}/deployments/{deploymentId}/logs`, 'logs:read', 'Build logs of a deployment.', { example: { setup: [k.fixture, `${k.fixture}Deployment`], params: deployment(k) } })
        ];
        if (options.postBuildLogs) {
            rows.push(r(`${k.family}.deployments.postBuildLogs`, 'GET', `${one(k)}/deployments/{deploymentId}/post-build-logs`, 'logs:read', 'Post-build (release) logs of a deployment.', { example: { setup: [k.fixture, `${k.fixture}Deployment`], params: deployment(k) } }));
        }

        if (options.stats) {
            rows.push(r(`${k.family}.deployments.stats`, 'GET', `${one(k)}/deployments/{deploymentId}/stats`, 'deployments:read', 'Timings of one deployment\'s phases.', { example: { setup: [k.fixture, `${k.fixture}Deployment`], params: deployment(k) } }));
        }

        if (options.buildStats) {
            rows.push(r(`${k.family}.build.stats`, 'GET', `${one(k)}/build/stats`, 'deployments:read', `Build statistics over ${the(k)}'s deployments.`, { example: { setup: [k.fixture, `${k.fixture}Deployment`], params: named(k) } }));
        }

        return rows;
    },

    logs(k: RuntimeKind): RouteRow[] {
        return [r(`${k.family}.logs`, 'GET', `${one(k)}/logs`, 'logs:read', 'Runtime logs filtered by text, level and time, newest first.', { example: { setup: [k.fixture, `${k.fixture}Deployment`], params: named(k), query: { limit: 50 } } })];
    },

    metrics(k: RuntimeKind, names: readonly MetricName[]): RouteRow[] {
        const what: Record<MetricName, string> = {
            'request-count': 'Requests over time.',
            'response-duration': 'Response duration over time.',
            'cpu-usage': 'CPU usage over time.',
            'memory-usage': 'Memory usage over time.',
            'bandwidth': 'Bytes served over time.',
            'network-in': 'Inbound network traffic over time.',
            'network-out': 'Outbound network traffic over time.',
            'disk-usage': 'Disk usage over time.'
        };
        return names.map((name) => r(`${k.family}.metrics.${camel(name)}`, 'GET', `${one(k)}/metrics/${name}`, k.scopes.read, what[name], { example: { setup: [k.fixture], params: named(k) } }));
    },

    /** What the edge measures beyond metric series: totals, unique visitors and top paths (kinds served on the edge). */
    edgeMetrics(k: RuntimeKind): RouteRow[] {
        const example = { example: { setup: [k.fixture], params: named(k) } };
        return [
            r(`${k.family}.metrics.requestCountTotal`, 'GET', `${one(k)}/metrics/request-count/total`, k.scopes.read, 'Total requests in a period, measured at the edge.', example),
            r(`${k.family}.metrics.uniqueVisitors`, 'GET', `${one(k)}/metrics/unique-visitors`, k.scopes.read, 'Distinct visitors per UTC day (daily salted hashes: no address is stored).', example),
            r(`${k.family}.metrics.topPaths`, 'GET', `${one(k)}/metrics/top-paths`, k.scopes.read, 'The most requested paths (`?limit=`, default 20).', example)
        ];
    }
};
