import Joi from 'joi';

import { REPOSITORY_NAME } from '../git/provider';
import { PLAN_NAMES, PLANS, REGIONS, type PlanName } from '../plans';
import { ENV_NAME } from '../service-file/schema';
import { fields } from '../validation';
import type { RepoProvider } from './model';

// The body fields every runtime kind shares, each written once with the words a person (or a model choosing a tool)
// reads: the REST routes validate with these schemas, and the MCP tools derive their input schemas from them.
export interface RepositoryInput {
    provider: RepoProvider;
    repo: string;
    branch: string;
}

export interface RuntimeSettings {
    plan?: PlanName;
    region?: string;
    instances?: number;
    buildCommand?: string | null;
    startCommand?: string | null;
    autoDeploy?: boolean;
}

export interface RuntimeCreate extends RuntimeSettings {
    name: string;
    projectId?: string;
    repository?: RepositoryInput;
    environmentVariables?: Record<string, string>;
}

export interface RuntimePatch extends RuntimeSettings {
    repository?: RepositoryInput | null;
    environmentVariables?: Record<string, string | null>;
    databases?: string[];                                       // a kind that links databases (lib/resources/links.ts)
}

const command = () => Joi.string().trim().min(1).max(2000);
export const MAX_INSTANCES = Math.max(...Object.values(PLANS).map((plan) => plan.maxInstances));
const planHelp = PLAN_NAMES.map((name) => `${name} (${PLANS[name].minInstances}-${PLANS[name].maxInstances} instances)`).join(', ');

/** A Git branch name: no whitespace nor the characters Git refuses, and nothing invisible. */
export const branchName = () => fields.text(255).pattern(/^[^\s~^:?*[\\]+$/, 'branch name');

export const repository = Joi.object<RepositoryInput, true>({
    provider: Joi.string().valid('github', 'gitlab', 'bitbucket', 'git').required(),
    repo: Joi.string().required().when('provider', {
        switch: [
            { is: 'gitlab', then: Joi.string().pattern(REPOSITORY_NAME.nested, 'group/name repository') },
            { is: 'git', then: Joi.string().max(200).uri({ scheme: ['https', 'file'] }).messages({ 'string.uriCustomScheme': '"repo" must be an https:// Git URL (file:// where the server allows it)' }) }
        ],
        otherwise: Joi.string().pattern(REPOSITORY_NAME.twoParts, 'owner/name repository')
    }).description('owner/name (GitLab: group/name); git: its https URL'),
    branch: branchName().required().description('The branch to build.')
}).description('The Git repository it builds from.');

export const environmentVariables = (patch: boolean) => Joi.object().pattern(
    Joi.string().pattern(ENV_NAME, 'environment variable name'),
    patch ? Joi.string().max(32_768).allow('', null) : Joi.string().max(32_768).allow('')
).max(500).description(patch
    ? 'Environment variables to set (NAME: value) or remove (NAME: null); the others stay.'
    : 'Environment variables, NAME: value. Values are secrets: stored sealed.');

export const settings = {
    plan: Joi.string().valid(...PLAN_NAMES).description(`Instance plan: ${planHelp}.`),
    region: Joi.string().valid(...REGIONS).description('Where it runs.'),
    instances: Joi.number().integer().min(1).max(MAX_INSTANCES).description('Instance count, within the plan\'s bounds.'),
    buildCommand: command().allow(null).description('The build command, e.g. "npm ci && npm run build"; null clears it.'),
    startCommand: command().allow(null).description('The start command, e.g. "npm start"; null clears it.'),
    autoDeploy: Joi.boolean().description('Deploy on every push to the branch.')
};

/** The create body of a runtime kind: the shared fields plus the kind's own. */
export function createSchema(extra: Joi.PartialSchemaMap = {}): Joi.ObjectSchema<RuntimeCreate> {
    return Joi.object<RuntimeCreate>({
        projectId: fields.projectId().description('The project to create it in (prj_..., from projects_list); required with an API key or OAuth token, else the personal project.'),
        name: fields.resourceName().required().description('A DNS label (lowercase letters, digits, hyphens), unique across the platform; not ending in -pr-<number>.'),
        ...settings,
        repository,
        environmentVariables: environmentVariables(false),
        ...extra
    });
}

/** The patch body of a runtime kind: the shared fields plus the kind's own, at least one of them. */
export function patchSchema(extra: Joi.PartialSchemaMap = {}): Joi.ObjectSchema<RuntimePatch> {
    return Joi.object<RuntimePatch>({
        ...settings,
        repository: repository.allow(null),
        environmentVariables: environmentVariables(true),
        ...extra
    }).min(1);
}

/** A kind's linked databases (its `fields.patch`): the whole set, by name, from the resource's own project. */
export const linkedDatabases = Joi.array().items(fields.resourceName()).max(20).unique()
    .description('The databases it uses, by name (databases_list), all of its own project; the list replaces the linked set ([] unlinks them all).');

export const scaleBody = Joi.object<{ by: number }, true>({ by: Joi.number().integer().min(1).max(20).default(1).description('How many instances (default 1).') }).allow(null);
export const commandField = command;
