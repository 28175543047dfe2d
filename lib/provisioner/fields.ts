import Joi from 'joi';

import type { PlanName } from '../plans';
import { fields } from '../validation';
import { parseSourceUrl } from './source';
import { DATABASE_ENGINES, DATABASE_TIERS, MAX_STORAGE_GIB, TIER_NAMES } from './tiers';

// The bodies of the database routes, written once: the REST routes validate with them and the MCP tools derive
// their input schemas from them.
export interface DatabaseCreate {
    projectId?: string;
    name: string;
    engine?: 'postgres';
    version?: string;
    tier?: PlanName;
    storageGiB?: number;
}

export interface DatabasePatch {
    tier?: PlanName;
    storageGiB?: number;
}

const tierHelp = TIER_NAMES.map((name) => `${name} (${DATABASE_TIERS[name].connections} connections, up to ${DATABASE_TIERS[name].maxStorageGiB} GiB)`).join(', ');
const tier = Joi.string().valid(...TIER_NAMES).description(`The tier: ${tierHelp}.`);
const storageGiB = Joi.number().integer().min(1).max(MAX_STORAGE_GIB).description('Provisioned storage in GiB, within the tier\'s bound; it can only grow.');

export const databaseCreate = Joi.object<DatabaseCreate, true>({
    projectId: fields.projectId().description('The project to create it in (prj_..., from projects_list); required with an API key or OAuth token, else the personal project.'),
    name: fields.resourceName().required().description('A DNS label (lowercase letters, digits, hyphens), unique across the platform.'),
    engine: Joi.string().valid(...DATABASE_ENGINES).description('The engine: postgres (the default).'),
    version: Joi.string().pattern(/^\d{1,2}$/, 'major version').description('The PostgreSQL major version (default: the newest the platform offers).'),
    tier: tier.description(`The tier (default starter): ${tierHelp}.`),
    storageGiB: storageGiB.description('Provisioned storage in GiB (default 1), within the tier\'s bound.')
});

export const databasePatch = Joi.object<DatabasePatch, true>({ tier, storageGiB }).min(1);
export const tierBody = Joi.object<{ tier: PlanName }, true>({ tier: tier.required() });

export const importBody = Joi.object<{ sourceUrl: string }, true>({
    sourceUrl: Joi.string().max(2048).required().custom((value: string, helpers) => {
        const parsed = parseSourceUrl(value);
        return typeof parsed === 'string' ? helpers.message({ custom: `{{#label}} ${parsed}` }) : value;
    }).description('The source: postgres://user:password@host:5432/name (only ?sslmode= may follow). Its host must be one the platform may reach.')
});
