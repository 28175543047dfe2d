import * as z from 'zod';

import type { KindTools } from '../../lib/mcp/platform-tools';

// The MCP platform tools as data (api-contract.md section 12): one line per kind, expanded into
// `<kind>_list|get|create|patch|delete` and mapped onto the REST routes named here. `offered` is the switch: a
// kind's tools are offered once the API mounts its routes, and test/mcp/catalogue.ts holds the two in step.
const projectName = () => z.string().trim().min(1).max(64);

export const PLATFORM_TOOL_KINDS: readonly KindTools[] = [
    {
        kind: 'projects', offered: true, noun: 'project', plural: 'projects', key: 'projectId',
        about: 'Call this first: the other kinds take a projectId from here. Each project lists the caller\'s role in it.',
        routes: { list: 'projects.list', get: 'projects.get', create: 'projects.create', patch: 'projects.patch', delete: 'projects.delete' },
        createFields: { name: projectName().describe('The project\'s display name, 1 to 64 characters.') },
        patchFields: { name: projectName().describe('The new display name, 1 to 64 characters.') },
        moreFields: false
    },
    {
        kind: 'apps', offered: false, noun: 'app', plural: 'apps', key: 'name',
        about: 'Apps are long-running web services built from a Git repository; they are addressed by name.',
        routes: { list: 'apps.list', get: 'apps.get', create: 'apps.create', patch: 'apps.patch', delete: 'apps.delete' },
        createFields: {}, patchFields: {}, moreFields: true
    },
    {
        kind: 'sites', offered: false, noun: 'site', plural: 'sites', key: 'name',
        about: 'Sites are static websites built from a repository or an uploaded archive; they are addressed by name.',
        routes: { list: 'sites.list', get: 'sites.get', create: 'sites.create', patch: 'sites.patch', delete: 'sites.delete' },
        createFields: {}, patchFields: {}, moreFields: true
    },
    {
        kind: 'workers', offered: false, noun: 'worker', plural: 'workers', key: 'name',
        about: 'Workers are background processes without a public port; they are addressed by name.',
        routes: { list: 'workers.list', get: 'workers.get', create: 'workers.create', patch: 'workers.patch', delete: 'workers.delete' },
        createFields: {}, patchFields: {}, moreFields: true
    },
    {
        kind: 'cron_jobs', offered: false, noun: 'cron job', plural: 'cron jobs', key: 'name',
        about: 'Cron jobs run a command on a schedule (the standalone /cron-jobs family); they are addressed by name.',
        routes: { list: 'cronJobs.list', get: 'cronJobs.get', create: 'cronJobs.create', patch: 'cronJobs.patch', delete: 'cronJobs.delete' },
        createFields: {}, patchFields: {}, moreFields: true
    },
    {
        kind: 'databases', offered: false, noun: 'database', plural: 'databases', key: 'name',
        about: 'Databases are managed database servers; they are addressed by name, and get shows connection details.',
        routes: { list: 'databases.list', get: 'databases.details', create: 'databases.create', patch: 'databases.patch', delete: 'databases.delete' },
        createFields: {}, patchFields: {}, moreFields: true
    }
];
