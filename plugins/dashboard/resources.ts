import type { Server } from '@hapi/hapi';

import { apiError, nextCursor, type Api, type Answer } from './api';

// A project's resources at a glance: for each kind, its API list narrowed to the project, shown only when this
// server mounts a route that lists it (looked up by route id), so kinds appear here as their families land. A kind
// that also lives inside apps (`perApp`: app cron jobs) lists those app by app after its own.
export const RESOURCE_LISTS: ReadonlyArray<{ route: string; label: string; segment: string; perApp?: string; byId?: boolean }> = [
    { route: 'apps.list', label: 'Apps', segment: 'apps' },
    { route: 'sites.list', label: 'Sites', segment: 'sites' },
    { route: 'workers.list', label: 'Workers', segment: 'workers' },
    { route: 'cronJobs.list', label: 'Cron jobs', segment: 'cron-jobs', perApp: 'apps.cronJobs.list' },
    { route: 'databases.list', label: 'Databases', segment: 'databases' },
    { route: 'vms.list', label: 'Virtual machines', segment: 'virtual-machines', byId: true }
];

const SHOWN = 20;

interface Item {
    name: string;
    status: string | null;
    href: string;                                               // the resource's page (an app's cron job: the app's cron jobs tab)
}

export interface KindAtAGlance {
    label: string;
    lower: string;
    items: Item[];
    more: boolean;
    error: string | null;
}

export interface ResourcesAtAGlance {
    kinds: KindAtAGlance[];
    missing: string | null;                                     // a sentence naming the kinds this server does not serve yet
}

const page = (segment: string, name: string, tab = '') => `/dashboard/${segment}/${encodeURIComponent(name)}${tab}`;

const items = (answer: Answer, segment: string, byId = false): Item[] =>
    (answer.body as Array<{ name?: string; id?: string; status?: string; paused?: boolean }>).map((item) => ({
        name: item.name ?? item.id ?? '', status: item.paused ? 'paused' : item.status ?? null, href: page(segment, (byId ? item.id : item.name ?? item.id) ?? '')
    }));

const appItems = (answer: Answer, app: string): Item[] =>
    (answer.body as Array<{ name?: string; id?: string; status?: string; paused?: boolean }>).map((item) => ({
        name: `${app} / ${item.name ?? item.id ?? ''}`, status: item.paused ? 'paused' : item.status ?? null, href: page('apps', app, '/cron-jobs')
    }));

const listed = (answer: Answer) => answer.status === 200 && Array.isArray(answer.body);

export async function resourcesAtAGlance(server: Server, api: Api, projectId: string): Promise<ResourcesAtAGlance> {
    const kinds: KindAtAGlance[] = [];
    const missing: string[] = [];
    let apps: KindAtAGlance | null = null;
    for (const kind of RESOURCE_LISTS) {
        const lower = kind.label.toLowerCase();
        const route = server.lookup(kind.route);
        const perApp = kind.perApp ? server.lookup(kind.perApp) : null;
        if (route) {
            const answer = await api.call('GET', `${route.path}?projectId=${encodeURIComponent(projectId)}&limit=${SHOWN}`);
            const ok = listed(answer);
            const own: KindAtAGlance = { label: kind.label, lower, items: ok ? items(answer, kind.segment, kind.byId) : [], more: ok && nextCursor(answer) !== null, error: ok ? null : apiError(answer).message };
            const inApps = perApp && apps && ok ? await withinApps(api, perApp.path, apps, kind.label, lower) : null;
            kinds.push(inApps ? {
                ...own, items: [...own.items, ...inApps.items].slice(0, SHOWN), more: own.more || inApps.more || own.items.length + inApps.items.length > SHOWN, error: inApps.error
            } : own);
            apps = kind.route === 'apps.list' ? kinds[kinds.length - 1] : apps;
        }
        else if (perApp && apps) {
            kinds.push(await withinApps(api, perApp.path, apps, kind.label, lower));
        }
        else {
            missing.push(lower);
        }
    }

    const list = new Intl.ListFormat('en', { type: 'conjunction' }).format(missing);
    return {
        kinds,
        missing: missing.length
            ? `This server does not serve ${list} yet, so there are none to show. Each kind appears here, with its resources and their status, once its API is part of the server.`
            : null
    };
}

/** A kind listed app by app (`shop / nightly`) over the apps shown, at most SHOWN items; `more` when some are left out. */
async function withinApps(api: Api, path: string, apps: KindAtAGlance, label: string, lower: string): Promise<KindAtAGlance> {
    const found: Item[] = [];
    for (const app of apps.items) {
        const answer = await api.call('GET', path.replace('{appName}', encodeURIComponent(app.name)));
        if (!listed(answer)) {
            return { label, lower, items: [], more: false, error: apiError(answer).message };
        }

        found.push(...appItems(answer, app.name));
    }

    return { label, lower, items: found.slice(0, SHOWN), more: apps.more || found.length > SHOWN, error: apps.error };
}
