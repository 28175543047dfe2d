import Hoek from '@hapi/hoek';
import * as z from 'zod';

import { type RouteRow } from '../route-table';
import { dnsLabel } from '../validation';
import { ApiUnreachableError, type ApiClient } from './api-client';
import { failure, success, type Tool, type ToolDefinition } from './tool';

// deployments_trigger: start a deployment of a named app, site, worker or cron job and get its id back, so an agent
// deploys, then waits on it (deployment_watch, with the diagnostic tools) and reads the failing log tail, in one loop.
// It calls the kind's own REST route (`POST /v1/<kind>/{name}/deployments/new`, deployments:write) with the caller's
// credential, so scopes, roles, collaborators and the project pin hold as for REST. It writes: MCP_READ_ONLY drops it.

export const DEPLOY_GROUP = 'deploy';

/** The resource types that deploy, with the route-table id of each one's trigger route. */
export const DEPLOYABLE: Readonly<Record<string, string>> = { app: 'apps.deployments.create', site: 'sites.deployments.create', worker: 'workers.deployments.create', cron_job: 'cronJobs.deployments.create' };

export interface DeployToolDefinition extends ToolDefinition {
    routes: Readonly<Record<string, RouteRow>>;                 // resource type -> its trigger route
}

const deploymentOutput = z.looseObject({
    id: z.string(),
    projectId: z.string(),
    status: z.string(),
    trigger: z.string(),
    commitSha: z.string().nullable(),
    branch: z.string().nullable(),
    createdAt: z.string()
});

/** The tool over the trigger routes these tables hold; a type whose route is missing is left out of its choices. */
export function deployTool(rows: readonly RouteRow[]): DeployToolDefinition | null {
    const byId = new Map(rows.map((row) => [row.id, row]));
    const routes = Object.fromEntries(Object.entries(DEPLOYABLE).flatMap(([type, id]) => byId.has(id) ? [[type, byId.get(id)!]] : []));
    const types = Object.keys(routes);
    if (!types.length) {
        return null;
    }

    Hoek.assert(new Set(types.map((type) => routes[type].scope)).size === 1, 'The deploy routes need one scope');
    return {
        name: 'deployments_trigger',
        group: DEPLOY_GROUP,
        title: 'Deploy a resource',
        description: `Start a deployment of an ${types.map((type) => type.replace('_', ' ')).join(', ').replace(/, ([^,]+)$/, ' or $1')} by name (the branch head, or commitSha); returns the deployment id to watch. Scope: ${routes[types[0]].scope}.`,
        inputSchema: z.strictObject({
            resourceType: z.enum(types as [string, ...string[]]).describe('What to deploy.'),
            resourceName: z.string().regex(dnsLabel, 'a DNS label').describe('Its name.'),
            commitSha: z.string().regex(/^[0-9a-f]{7,40}$/, 'a commit sha').optional().describe('The commit (default: the branch head).'),
            branch: z.string().min(1).max(255).optional().describe('The branch (default: the configured one).')
        }),
        outputSchema: deploymentOutput,
        annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
        routes
    };
}

export function deployToolOn(definition: DeployToolDefinition, api: ApiClient): Tool & DeployToolDefinition {
    return {
        ...definition,
        handler: async (args, { authorization, forwardedFor, projectPin }) => {
            if (!authorization) {
                return failure(`${definition.name} needs a credential: platform tools act as their caller`);
            }

            const { resourceType, resourceName, ...body } = args as { resourceType: string; resourceName: string; commitSha?: string; branch?: string };
            const row = definition.routes[resourceType];
            const path = row.path.replace(/{\w+}/, encodeURIComponent(resourceName));
            try {
                const { status, body: answer } = await api.request({
                    method: 'POST', path, body, authorization, ...(forwardedFor ? { forwardedFor } : {}), ...(projectPin ? { projectPin } : {})
                });
                if (status >= 300) {
                    const error = typeof answer === 'object' && answer !== null ? answer as Record<string, unknown> : { statusCode: status };
                    const reason = [error.error, error.message].filter((part) => typeof part === 'string').join(': ');
                    return failure(`${definition.name} was refused by the API with ${status}${reason ? ` ${reason}` : ''}\n\n${JSON.stringify(error)}`);
                }

                const deployment = answer as Record<string, unknown>;
                return success(`Deployment ${String(deployment.id)} of ${resourceType.replace('_', ' ')} ${resourceName} started (${String(deployment.status)}).`, deployment);
            }
            catch (err) {
                if (err instanceof ApiUnreachableError) {
                    return failure(err.message);
                }

                throw err;
            }
        }
    };
}
