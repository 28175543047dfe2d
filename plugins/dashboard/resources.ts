import type { Server } from '@hapi/hapi';

import { apiError, nextCursor, type Api } from './api';

// A project's resources at a glance: for each kind, its API list narrowed to the project, shown only when this
// server mounts that list route (looked up by route id), so kinds appear here as their families land.
export const RESOURCE_LISTS = [
    { route: 'apps.list', label: 'Apps' },
    { route: 'sites.list', label: 'Sites' },
    { route: 'workers.list', label: 'Workers' },
    { route: 'cronJobs.list', label: 'Cron jobs' },
    { route: 'databases.list', label: 'Databases' },
    { route: 'vms.list', label: 'Virtual machines' }
] as const;

const SHOWN = 20;

export interface KindAtAGlance {
    label: string;
    lower: string;
    items: Array<{ name: string; status: string | null }>;
    more: boolean;
    error: string | null;
}

export interface ResourcesAtAGlance {
    kinds: KindAtAGlance[];
    missing: string | null;                                     // a sentence naming the kinds this server does not serve yet
}

export async function resourcesAtAGlance(server: Server, api: Api, projectId: string): Promise<ResourcesAtAGlance> {
    const kinds: KindAtAGlance[] = [];
    const missing: string[] = [];
    for (const kind of RESOURCE_LISTS) {
        const route = server.lookup(kind.route);
        const lower = kind.label.toLowerCase();
        if (!route) {
            missing.push(lower);
            continue;
        }

        const answer = await api.call('GET', `${route.path}?projectId=${encodeURIComponent(projectId)}&limit=${SHOWN}`);
        const ok = answer.status === 200 && Array.isArray(answer.body);
        kinds.push({
            label: kind.label,
            lower,
            items: ok ? answer.body.map((item: { name?: string; id?: string; status?: string }) => ({ name: item.name ?? item.id ?? '', status: item.status ?? null })) : [],
            more: ok && nextCursor(answer) !== null,
            error: ok ? null : apiError(answer).message
        });
    }

    const list = new Intl.ListFormat('en', { type: 'conjunction' }).format(missing);
    return {
        kinds,
        missing: missing.length
            ? `This server does not serve ${list} yet, so there are none to show. Each kind appears here, with its resources and their status, once its API is part of the server.`
            : null
    };
}
