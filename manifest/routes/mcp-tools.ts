import * as z from 'zod';

import type { KindTools } from '../../lib/mcp/platform-tools';

// The MCP platform tools as data (api-contract.md section 12): one line per kind, expanded into
// `<kind>_list|get|create|patch|delete` and mapped onto the REST routes named here. `offered` is the switch: a
// kind's tools are offered once the API mounts its routes, and test/mcp/catalogue.ts holds the two in step.
const projectName = () => z.string().trim().min(1).max(64);

/** A kind addressed by name: its family's list/get/create/patch/delete rows, the REST body passed through. */
const byName = (family: string, get = 'get') => ({
    key: 'name' as const,
    routes: { list: `${family}.list`, get: `${family}.${get}`, create: `${family}.create`, patch: `${family}.patch`, delete: `${family}.delete` },
    createFields: {},
    patchFields: {},
    moreFields: true
});

// The apps body, as the REST routes validate it (plugins/apps/schemas.ts), so a model sees every field.
const appSettings = {
    plan: z.enum(['starter', 'standard', 'pro']).optional().describe('Instance plan: starter (1-2 instances), standard (1-5) or pro (1-20).'),
    region: z.enum(['eu-west', 'us-east', 'us-west', 'ap-south']).optional().describe('Where the app runs.'),
    instances: z.number().int().min(1).max(20).optional().describe('Instance count, within the plan\'s bounds.'),
    buildCommand: z.string().min(1).max(2000).nullable().optional().describe('The build command, e.g. "npm ci && npm run build"; null clears it.'),
    startCommand: z.string().min(1).max(2000).nullable().optional().describe('The start command, e.g. "npm start"; null clears it.'),
    autoDeploy: z.boolean().optional().describe('Deploy on every push to the branch.'),
    repository: z.object({
        provider: z.enum(['github', 'gitlab', 'bitbucket']),
        repo: z.string().describe('owner/name'),
        branch: z.string()
    }).nullable().optional().describe('The Git repository the app builds from; null clears it.')
};
const envVars = (patch: boolean) => z.record(z.string(), patch ? z.string().nullable() : z.string()).optional()
    .describe(patch ? 'Environment variables to set (NAME: value) or remove (NAME: null); the others stay.' : 'Environment variables, NAME: value. Values are secrets: stored sealed.');

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
        kind: 'apps', offered: true, noun: 'app', plural: 'apps', ...byName('apps'),
        createFields: { ...appSettings, environmentVariables: envVars(false) },
        patchFields: { ...appSettings, environmentVariables: envVars(true) },
        moreFields: false,
        about: 'Apps are long-running web services built from a Git repository and deployed by the platform; they are addressed by name.'
    },
    { kind: 'sites', offered: false, noun: 'site', plural: 'sites', ...byName('sites'), about: 'Sites are static websites built from a repository or an uploaded archive; they are addressed by name.' },
    { kind: 'workers', offered: false, noun: 'worker', plural: 'workers', ...byName('workers'), about: 'Workers are background processes without a public port; they are addressed by name.' },
    { kind: 'cron_jobs', offered: false, noun: 'cron job', plural: 'cron jobs', ...byName('cronJobs'), about: 'Cron jobs run a command on a schedule (the standalone /cron-jobs family); they are addressed by name.' },
    { kind: 'databases', offered: false, noun: 'database', plural: 'databases', ...byName('databases', 'details'), about: 'Databases are managed database servers; they are addressed by name, and get shows connection details.' }
];
