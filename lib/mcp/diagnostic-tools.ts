import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import * as z from 'zod';

import { idPattern } from '../ids';
import { LIST_MAX, LOGS_MAX, WATCH_MAX_SECONDS } from '../diagnostics/limits';
import { ApiUnreachableError, type ApiClient, type ApiRequest } from './api-client';
import { failure, success, type Tool, type ToolDefinition } from './tool';

// The diagnostic tools (docs/mcp.md "Diagnostic tools"): two groups, each offered when its flag is set on the MCP
// server (MCP_DEVELOPER_TOOLS_ENABLED, MCP_CONTEXT_TOOLS_ENABLED), each call one request to a `/v1/diagnostics/*`
// route with the caller's own credential, so scopes, roles and the project pin hold as for REST. When the API has the
// group off, its 404 becomes the outcome `unavailable`; a resource type a tool cannot inspect is `unsupported`.

export const DEVELOPER_GROUP = 'developer';
export const CONTEXT_GROUP = 'context';

export type ResourceType = 'app' | 'site' | 'worker' | 'cron_job' | 'database';
const RESOURCE_PATHS: Readonly<Record<ResourceType, string>> = { app: 'apps', site: 'sites', worker: 'workers', cron_job: 'cron-jobs', database: 'databases' };
const RUNTIME: readonly ResourceType[] = ['app', 'site', 'worker', 'cron_job'];

export interface DiagnosticToolDefinition extends ToolDefinition {
    /** The request, or null when the resource type is not one this tool inspects. */
    request: (args: Record<string, unknown>) => Pick<ApiRequest, 'method' | 'path' | 'query' | 'body'> | null;
}

const enc = (value: unknown) => encodeURIComponent(String(value));
const resource = {
    resourceType: z.enum(['app', 'site', 'worker', 'cron_job', 'database']).describe('app, site, worker, cron_job or database.'),
    resourceName: z.string().min(1).max(63).describe('The resource\'s name.')
};
const deploymentId = (what = 'The deployment (dep_...) of that resource.') => z.string().regex(idPattern('dep'), 'a deployment id such as dep_4f9KqzT0aBcD1eFg').describe(what);
const projectId = { projectId: z.string().regex(idPattern('prj'), 'a project id such as prj_4f9KqzT0aBcD1eFg').describe('The project (prj_...).') };
const listing = { limit: z.number().int().min(1).max(LIST_MAX).optional().describe(`1 to ${LIST_MAX} (default 25).`), cursor: z.string().max(200).optional().describe('`next` of the previous page.') };
const time = (what: string) => z.string().datetime().optional().describe(what);
const annotations = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };

type Args = Record<string, unknown>;
const base = (args: Args, kinds: readonly ResourceType[] = RUNTIME) => kinds.includes(args.resourceType as ResourceType)
    ? `/v1/diagnostics/${RESOURCE_PATHS[args.resourceType as ResourceType]}/${enc(args.resourceName)}` : null;
const pick = (args: Args, names: readonly string[]) => Object.fromEntries(names.map((name) => [name, args[name] as string | number | undefined]));
const get = (path: string | null, query: Args = {}) => path ? { method: 'GET' as const, path, query: query as Record<string, string | number | undefined> } : null;

const tool = (group: string, name: string, title: string, description: string, shape: z.ZodRawShape, request: DiagnosticToolDefinition['request']): DiagnosticToolDefinition => ({
    name, group, title, description, inputSchema: z.object(shape).strict(), annotations, request
});

export const DEVELOPER_TOOLS: readonly DiagnosticToolDefinition[] = [
    tool(DEVELOPER_GROUP, 'deployments_list', 'List deployments', 'Deployments of a resource, newest first, configuration with variable names only. Needs deployments:read.',
        { ...resource, status: z.enum(['queued', 'building', 'deploying', 'live', 'failed', 'canceled', 'superseded']).optional(), ...listing },
        (args) => get(base(args) && `${base(args)}/deployments`, pick(args, ['status', 'limit', 'cursor']))),
    tool(DEVELOPER_GROUP, 'deployments_get', 'Get a deployment', 'One deployment of the resource with phase timings. Needs deployments:read.',
        { ...resource, deploymentId: deploymentId() }, (args) => get(base(args) && `${base(args)}/deployments/${enc(args.deploymentId)}`)),
    tool(DEVELOPER_GROUP, 'logs_search', 'Search logs', `Runtime logs (newest first; q, level, since, until), or with deploymentId the build logs (oldest first, paged by after). ${LOGS_MAX} lines and 128 KiB at most. Needs logs:read.`,
        {
            ...resource, deploymentId: deploymentId('Build logs of this deployment.').optional(), q: z.string().max(200).optional().describe('Text in the message.'),
            level: z.enum(['debug', 'info', 'warn', 'error']).optional().describe('This level and above.'), since: time('From (ISO 8601).'), until: time('To (ISO 8601).'),
            after: time('Build logs: after this timestamp (`next`).'), limit: z.number().int().min(1).max(LOGS_MAX).optional().describe('Default 100.')
        },
        (args) => args.deploymentId
            ? get(base(args) && `${base(args)}/deployments/${enc(args.deploymentId)}/build-logs`, pick(args, ['after', 'limit', 'q', 'level', 'since', 'until']))
            : get(base(args) && `${base(args)}/logs`, pick(args, ['q', 'level', 'since', 'until', 'limit']))),
    tool(DEVELOPER_GROUP, 'metrics_query', 'Query a metric', 'A metric series; source says measured, unavailable or error. Needs metrics:read.',
        {
            ...resource, metric: z.enum(['cpu-usage', 'memory-usage', 'request-count', 'response-duration', 'bandwidth']), since: time('From (default an hour ago).'), until: time('To (default now).'),
            step: z.number().int().min(60).max(86400).optional().describe('Seconds per point.')
        },
        (args) => get(base(args) && `${base(args)}/metrics/${enc(args.metric)}`, pick(args, ['since', 'until', 'step']))),
    tool(DEVELOPER_GROUP, 'resource_health', 'Resource health', 'A verdict from the resource\'s state and recent deployments. Needs the resource\'s read scope.',
        resource, (args) => get(base(args, [...RUNTIME, 'database']) && `${base(args, [...RUNTIME, 'database'])}/health`)),
    tool(DEVELOPER_GROUP, 'project_overview', 'Project overview', 'A project\'s resources and recent deployments; sections outside the credential\'s scopes are omitted and named.',
        projectId, (args) => get(`/v1/diagnostics/projects/${enc(args.projectId)}/overview`)),
    tool(DEVELOPER_GROUP, 'deployment_watch', 'Watch a deployment', `Waits up to ${WATCH_MAX_SECONDS} s for the deployment to settle and returns its status (settled false: still running); failed ones include 4 KiB of log tail with logs:read.`,
        { ...resource, deploymentId: deploymentId(), waitSeconds: z.number().int().min(0).max(WATCH_MAX_SECONDS).optional().describe(`Default ${WATCH_MAX_SECONDS}.`) },
        (args) => get(base(args) && `${base(args)}/deployments/${enc(args.deploymentId)}/watch`, { wait: args.waitSeconds }))
];

export const CONTEXT_TOOLS: readonly DiagnosticToolDefinition[] = [
    tool(CONTEXT_GROUP, 'deployment_compare', 'Compare deployments', 'Settings, commit, databases and variable names that differ between two recorded deployments; never values.',
        { ...resource, deploymentId: deploymentId(), otherDeploymentId: deploymentId('The deployment to compare with.') },
        (args) => get(base(args) && `${base(args)}/deployments/${enc(args.deploymentId)}/compare`, { otherDeploymentId: args.otherDeploymentId })),
    tool(CONTEXT_GROUP, 'environment_audit', 'Audit environment', 'Findings on environment variable names (empty, whitespace, case clashes, secret-like); current, or as recorded at deploymentId.',
        { ...resource, deploymentId: deploymentId('Audit this deployment\'s snapshot instead.').optional() }, (args) => get(base(args) && `${base(args)}/environment/audit`, pick(args, ['deploymentId']))),
    tool(CONTEXT_GROUP, 'environment_compare', 'Compare environments', 'Variable names only in one side, different or same between a deployment\'s snapshot and otherDeploymentId\'s (default: current). No values.',
        { ...resource, deploymentId: deploymentId(), otherDeploymentId: deploymentId('The other side (default current).').optional() },
        (args) => get(base(args) && `${base(args)}/environment/compare`, pick(args, ['deploymentId', 'otherDeploymentId']))),
    tool(CONTEXT_GROUP, 'domains_diagnose', 'Diagnose domains', 'DNS and TLS of up to two verified custom domains of an app or site; private addresses are refused.',
        resource, (args) => get(base(args, ['app', 'site']) && `${base(args, ['app', 'site'])}/domains/diagnose`)),
    tool(CONTEXT_GROUP, 'project_activity', 'Project activity', 'A project\'s deployments across resources, newest first. Needs deployments:read.',
        { ...projectId, ...listing }, (args) => get(`/v1/diagnostics/projects/${enc(args.projectId)}/activity`, pick(args, ['limit', 'cursor']))),
    tool(CONTEXT_GROUP, 'deployment_preflight', 'Preflight a deployment', 'Checks the repository branch, plan limits and an optional service file without building or reserving anything.',
        {
            ...resource, branch: z.string().max(255).optional(), commitSha: z.string().max(64).optional(), plan: z.string().max(32).optional(),
            instances: z.number().int().min(1).max(1000).optional(), serviceFile: z.string().max(262144).optional().describe('hostless.yaml or JSON text.')
        },
        (args) => {
            const path = base(args);
            return path ? { method: 'POST', path: `${path}/preflight`, body: pick(args, ['branch', 'commitSha', 'plan', 'instances', 'serviceFile']) } : null;
        }),
    tool(CONTEXT_GROUP, 'resource_dependencies', 'Resource dependencies', 'Databases a resource links, or what links a database; recorded links only.',
        resource, (args) => get(base(args, [...RUNTIME, 'database']) && `${base(args, [...RUNTIME, 'database'])}/dependencies`)),
    tool(CONTEXT_GROUP, 'resource_usage_insights', 'Usage insights', 'CPU and memory against the plan over days (default 7): undersized, oversized, fits or inconclusive. Needs metrics:read.',
        { ...resource, days: z.number().int().min(1).max(31).optional() }, (args) => get(base(args) && `${base(args)}/usage-insights`, pick(args, ['days'])))
];

export const DIAGNOSTIC_TOOLS: readonly DiagnosticToolDefinition[] = [...DEVELOPER_TOOLS, ...CONTEXT_TOOLS];

/** The diagnostic tools the flags turn on. */
export function diagnosticDefinitions(flags: { developer: boolean; context: boolean }): DiagnosticToolDefinition[] {
    return [...flags.developer ? DEVELOPER_TOOLS : [], ...flags.context ? CONTEXT_TOOLS : []];
}

function result(definition: DiagnosticToolDefinition, args: Args, status: number, body: unknown): CallToolResult {
    const object = typeof body === 'object' && body !== null && !Array.isArray(body) ? body as Record<string, unknown> : { statusCode: status };
    if (status === 404 && typeof object.message === 'string' && object.message.startsWith('Diagnostics are off')) {
        return success(`${definition.title}: unavailable (${object.message}).`, { outcome: 'unavailable', reason: object.message });
    }

    if (status >= 300) {
        const reason = [object.error, object.message].filter(Boolean).join(': ');
        // The path's deployment is resolved under the named resource: one of another resource is not found there.
        const hint = status === 404 && object.message === 'Deployment not found' && args.deploymentId
            ? ` (${args.deploymentId as string} is not a deployment of the ${args.resourceType as string} ${args.resourceName as string}: a deployment id must belong to the named resource)` : '';
        return failure(`${definition.name} was refused by the API with ${status}${reason ? ` ${reason}` : ''}${hint}\n\n${JSON.stringify(object)}`);
    }

    const outcome = typeof object.outcome === 'string' ? object.outcome : 'ok';
    return success(`${definition.title}: ${outcome}${typeof object.reason === 'string' ? ` (${object.reason})` : ''}.`, object);
}

/** The diagnostic tools acting on this deployment's API with each caller's credential (the request's context). */
export function diagnosticToolsOn(api: ApiClient, definitions: readonly DiagnosticToolDefinition[]): Tool[] {
    return definitions.map((definition) => ({
        ...definition,
        handler: async (args, { authorization, forwardedFor, projectPin }) => {
            const request = definition.request(args);
            if (!request) {
                return success(`${definition.title}: unsupported.`, { outcome: 'unsupported', reason: `${definition.name} does not inspect a ${String(args.resourceType)}` });
            }

            if (!authorization) {
                return failure(`${definition.name} needs a credential`);
            }

            try {
                const answer = await api.request({ ...request, authorization, ...(forwardedFor ? { forwardedFor } : {}), ...(projectPin ? { projectPin } : {}) });
                return result(definition, args, answer.status, answer.body);
            }
            catch (err) {
                if (err instanceof ApiUnreachableError) {
                    return failure(err.message);
                }

                throw err;
            }
        }
    }));
}
