import type { Knex } from 'knex';

import type { EnvVars } from './env-vars';
import { likePattern, type LogLine, type LogStore } from './logs';
import type { ResourceRef } from './model';

// Search within one resource: its deployments (by id, commit, branch or error), its log lines and its environment
// variable names (never values). A kind without deployments or environment (a database) searches its log lines alone.
export interface SearchSources {
    deployments: boolean;
    environmentVariables: boolean;
}

const EVERY: SearchSources = { deployments: true, environmentVariables: true };

export interface SearchResult {
    query: string;
    deployments?: Array<{ id: string; status: string; commitSha: string | null; branch: string | null; createdAt: string }>;
    logs: LogLine[];
    environmentVariables?: string[];
}

export class Search {
    constructor(private readonly knex: Knex, private readonly logs: LogStore, private readonly envVars: EnvVars) { }

    async within(resource: ResourceRef, q: string, limit: number, sources: SearchSources = EVERY): Promise<SearchResult> {
        const pattern = likePattern(q);
        const like = (column: string) => [`lower(${column}) LIKE ? ESCAPE '\\'`, [pattern]] as const;
        const deployments = sources.deployments ? await this.knex('deployments').where('resource_id', resource.id)
            .andWhere((w) => void w.whereRaw(...like('id')).orWhereRaw(...like('commit_sha')).orWhereRaw(...like('branch')).orWhereRaw(...like('error')))
            .orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).select('id', 'status', 'commit_sha', 'branch', 'created_at') : null;
        const logs = await this.logs.query({ resourceId: resource.id }, { q, limit });
        return {
            query: q,
            ...(deployments ? { deployments: deployments.map((row: Record<string, string | null>) => ({ id: row.id!, status: row.status!, commitSha: row.commit_sha ?? null, branch: row.branch ?? null, createdAt: row.created_at! })) } : {}),
            logs,
            ...(sources.environmentVariables ? { environmentVariables: await this.envVars.names(resource, pattern, limit) } : {})
        };
    }
}
