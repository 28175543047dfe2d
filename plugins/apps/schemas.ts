import Joi from 'joi';

import { MAX_LIMIT } from '../../lib/pagination';
import { PLAN_NAMES, PLANS, REGIONS } from '../../lib/plans';
import { PERMISSIONS } from '../../lib/roles';
import { ENV_NAME } from '../../lib/service-file/schema';
import { fields } from '../../lib/validation';

// Field schemas of the apps routes, written once.
const command = () => Joi.string().trim().min(1).max(2000);
const maxInstances = Math.max(...Object.values(PLANS).map((plan) => plan.maxInstances));

export const appParams = { appName: fields.name().required() };
export const params = {
    app: Joi.object(appParams),
    deployment: Joi.object({ ...appParams, deploymentId: fields.id('dep').required() }),
    process: Joi.object({ ...appParams, workerId: fields.id('prc').required() }),
    cronJob: Joi.object({ ...appParams, jobId: fields.id('crn').required() }),
    cronRun: Joi.object({ ...appParams, jobId: fields.id('crn').required(), runId: fields.id('run').required() }),
    collaborator: Joi.object({ ...appParams, email: fields.email().required() })
};

export const repository = Joi.object({
    provider: Joi.string().valid('github', 'gitlab', 'bitbucket').required(),
    repo: Joi.string().pattern(/^[A-Za-z0-9_.-]{1,100}\/[A-Za-z0-9_.-]{1,100}$/, 'owner/name repository').required(),
    branch: Joi.string().max(255).pattern(/^[^\s~^:?*[\\]+$/, 'branch name').required()
});

const envVars = (allowNull: boolean) => Joi.object().pattern(
    Joi.string().pattern(ENV_NAME, 'environment variable name'),
    allowNull ? Joi.string().max(32_768).allow('', null) : Joi.string().max(32_768).allow('')
).max(500);

const settings = {
    plan: Joi.string().valid(...PLAN_NAMES),
    region: Joi.string().valid(...REGIONS),
    instances: Joi.number().integer().min(1).max(maxInstances),
    buildCommand: command().allow(null),
    startCommand: command().allow(null),
    autoDeploy: Joi.boolean()
};

export const createApp = Joi.object({
    name: fields.name().required(),
    projectId: fields.projectId(),
    ...settings,
    repository,
    environmentVariables: envVars(false)
});

export const patchApp = Joi.object({
    ...settings,
    repository: repository.allow(null),
    environmentVariables: envVars(true)
}).min(1);

export const list = Joi.object({ limit: Joi.number().integer().min(1).max(MAX_LIMIT).default(50), cursor: Joi.string().max(200) });

export const logQuery = Joi.object({
    q: Joi.string().trim().min(1).max(200),
    level: Joi.string().valid('debug', 'info', 'warn', 'error'),
    since: Joi.date().iso(),
    until: Joi.date().iso(),
    limit: Joi.number().integer().min(1).max(500).default(100)
});

const day = Joi.string().pattern(/^\d{4}-\d{2}-\d{2}$/, 'YYYY-MM-DD date');
export const metricsQuery = Joi.object({
    startDate: day, endDate: day, since: Joi.date().iso(), until: Joi.date().iso(),
    step: Joi.number().integer().min(60).max(86_400)
}).oxor('startDate', 'since').oxor('endDate', 'until');

export const permissions = Joi.array().items(Joi.string().valid(...PERMISSIONS)).min(1).unique();
export const processName = fields.name;
export const processCommand = command;
export const instanceCount = settings.instances;
