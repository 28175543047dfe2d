import Joi from 'joi';

import { createSchema, patchSchema } from '../../lib/resources/fields';
import { databaseOutput, projectOutput, runtimeOutput } from '../../lib/mcp/output-schemas';
import type { KindTools } from '../../lib/mcp/platform-tools';
import { databaseCreate, databasePatch } from '../../lib/provisioner/fields';
import { APP_FIELDS } from './apps';
import { fields } from '../../lib/validation';
import { CRON_JOB_FIELDS } from './cron-jobs';
import { SITE_FIELDS } from './sites';

// The MCP platform tools as data (api-contract.md section 12): one line per kind, expanded into
// `<kind>_list|get|create|patch|delete` and mapped onto the REST routes named here. `offered` is the switch: a
// kind's tools are offered once the API mounts its routes, and test/mcp/catalogue.ts holds the two in step. The
// tools' fields derive from the REST bodies' Joi schemas (lib/mcp/joi-zod.ts): one source for both.

/** A kind addressed by name: its family's list/get/create/patch/delete rows, the REST body passed through. */
const byName = (family: string, get = 'get') => ({
    key: 'name' as const,
    routes: { list: `${family}.list`, get: `${family}.${get}`, create: `${family}.create`, patch: `${family}.patch`, delete: `${family}.delete` },
    body: null
});

const projectBody = Joi.object({ name: fields.projectName().required() });

export const PLATFORM_TOOL_KINDS: readonly KindTools[] = [
    {
        item: projectOutput,
        kind: 'projects', offered: true, noun: 'project', plural: 'projects', short: 'a space for resources and members', key: 'projectId',
        about: 'Call this first: other tools take a projectId from here. Shows the caller\'s role in each.',
        routes: { list: 'projects.list', get: 'projects.get', create: 'projects.create', patch: 'projects.patch', delete: 'projects.delete' },
        body: { create: projectBody, patch: projectBody }
    },
    {
        item: runtimeOutput,
        kind: 'apps', offered: true, noun: 'app', plural: 'apps', short: 'a web service', ...byName('apps'),
        body: { create: createSchema(), patch: patchSchema(APP_FIELDS.patch) },
        about: 'Apps are web services built from a Git repository and deployed; addressed by name.'
    },
    {
        item: runtimeOutput,
        kind: 'sites', offered: true, noun: 'site', plural: 'sites', short: 'a static website', ...byName('sites'),
        body: { create: createSchema(SITE_FIELDS), patch: patchSchema(SITE_FIELDS) },
        about: 'Sites are static websites served on <name>.<SITES_DOMAIN>, from uploaded archives or the visual builder; addressed by name. sites_create makes an empty site: upload files with POST /v1/sites/{name}/upload.'
    },
    {
        item: runtimeOutput,
        kind: 'workers', offered: true, noun: 'worker', plural: 'workers', short: 'a background process', ...byName('workers'),
        body: { create: createSchema(), patch: patchSchema() },
        about: 'Workers are background processes without a public port (queue consumers, bots), built and deployed like apps; addressed by name.'
    },
    {
        item: runtimeOutput,
        kind: 'cron_jobs', offered: true, noun: 'cron job', plural: 'cron jobs', short: 'a command on a schedule', ...byName('cronJobs'),
        body: { create: createSchema(CRON_JOB_FIELDS.create), patch: patchSchema(CRON_JOB_FIELDS.patch) },
        about: 'Cron jobs run a command on a five-field schedule in a time zone; addressed by name. Pausing and runs are REST routes.'
    },
    {
        item: databaseOutput,
        kind: 'databases', offered: true, noun: 'database', plural: 'databases', short: 'managed PostgreSQL', ...byName('databases', 'details'),
        details: 'Shows the connection details: the password only to a key with databases:write or a session.',
        body: { create: databaseCreate, patch: databasePatch },
        about: 'Databases are managed PostgreSQL databases, addressed by name; databases_get shows how to connect.'
    }
];
