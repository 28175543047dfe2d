import type { Knex } from 'knex';

import type { Lists } from '../lists';
import { Deployment } from '../resources/deployments';
import type { Scope } from '../scopes';
import { deploymentView } from './deployments';

// Project views: an overview whose sections follow the credential's scopes (a section it cannot read is left out
// and named, with the scope it needs), and the project's deployments across its resources, newest first.

interface Section {
    name: string;
    scope: Scope;
    table: string;
    columns: string[];
}

const SECTIONS: readonly Section[] = [
    { name: 'apps', scope: 'apps:read', table: 'apps', columns: ['name', 'status', 'plan', 'instances', 'live_deployment_id'] },
    { name: 'sites', scope: 'sites:read', table: 'sites', columns: ['name', 'status', 'plan', 'instances', 'live_deployment_id'] },
    { name: 'workers', scope: 'workers:read', table: 'workers', columns: ['name', 'status', 'plan', 'instances', 'live_deployment_id'] },
    { name: 'cronJobs', scope: 'cron-jobs:read', table: 'cron_jobs', columns: ['name', 'status', 'plan', 'instances', 'live_deployment_id'] },
    { name: 'databases', scope: 'databases:read', table: 'databases', columns: ['name', 'status'] }
];

const camel = (name: string) => name.replace(/_(\w)/g, (_, c: string) => c.toUpperCase());
const OVERVIEW_ROWS = 100;

export async function projectOverview(knex: Knex, projectId: string, scopes: readonly Scope[]) {
    const project = await knex('projects').where('id', projectId).first<{ id: string; name: string; created_at: string }>('id', 'name', 'created_at');
    const answer: Record<string, unknown> = { outcome: 'ok', project: { id: project.id, name: project.name, createdAt: project.created_at } };
    const omitted: Array<{ section: string; needs: Scope }> = [];
    for (const section of SECTIONS) {
        if (!scopes.includes(section.scope)) {
            omitted.push({ section: section.name, needs: section.scope });
            continue;
        }

        const rows = await knex(section.table).where('project_id', projectId).whereNot('status', 'deleting').orderBy('name').limit(OVERVIEW_ROWS).select<Array<Record<string, unknown>>>(section.columns);
        answer[section.name] = rows.map((row) => Object.fromEntries(Object.entries(row).map(([key, value]) => [camel(key), value])));
    }

    if (scopes.includes('deployments:read')) {
        const recent = await Deployment.query(knex).where('project_id', projectId).orderBy('created_at', 'desc').orderBy('id', 'desc').limit(10);
        answer.recentDeployments = recent.map((deployment) => ({ id: deployment.id, resourceType: deployment.resourceType, resourceId: deployment.resourceId, status: deployment.status, createdAt: deployment.createdAt }));
        answer.failingDeployments = recent.filter((deployment) => deployment.status === 'failed').length;
    }
    else {
        omitted.push({ section: 'recentDeployments', needs: 'deployments:read' });
    }

    answer.omitted = omitted;
    return answer;
}

/** The project's deployments across its resources, newest first, a keyset page at a time. */
export async function projectActivity(knex: Knex, lists: Lists, projectId: string, page: { limit: number; cursor?: string | undefined }) {
    const found = await lists.page({ table: 'deployments', scope: { project_id: projectId }, load: (row) => Deployment.fromDatabaseJson(row) }, page);
    const names = new Map<string, string>();
    for (const [type, table] of [['app', 'apps'], ['site', 'sites'], ['worker', 'workers'], ['cron-job', 'cron_jobs']] as const) {
        const ids = found.items.filter((deployment) => deployment.resourceType === type).map((deployment) => deployment.resourceId);
        if (ids.length) {
            for (const row of await knex(table).whereIn('id', ids).select<Array<{ id: string; name: string }>>('id', 'name')) {
                names.set(row.id, row.name);
            }
        }
    }

    return {
        outcome: 'ok',
        items: found.items.map((deployment) => ({ resourceType: deployment.resourceType, resourceName: names.get(deployment.resourceId) ?? null, ...deploymentView(deployment) })),
        next: found.next
    };
}
