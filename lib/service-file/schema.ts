import Joi from 'joi';

import { REPOSITORY_NAME } from '../git/provider';
import { PLAN_NAMES, REGIONS, type PlanName } from '../plans';
import { dnsLabel } from '../validation';

// The service file (`hostless.yaml` or `hostless.json`): a declarative description of an app and its companions.
// docs/service-file.md documents the same schema; values of environment variables never appear in it, only names.
export interface ServiceFile {
    version: 1;
    app: {
        name: string;
        plan: PlanName;
        region: string;
        instances: number;
        build?: string;
        start?: string;
        repository?: { provider: 'github' | 'gitlab' | 'bitbucket'; repo: string; branch: string };
        autoDeploy?: boolean;
        env?: string[];
        domains?: string[];
    };
    workers?: Array<{ name: string; command: string; instances: number; plan?: PlanName }>;
    cronJobs?: Array<{ name: string; schedule: string; command: string }>;
    databases?: Array<{ name: string; engine: 'postgres' | 'mysql' | 'redis' | 'mongodb'; plan: PlanName }>;
}

const name = Joi.string().pattern(dnsLabel, 'DNS label');
const plan = Joi.string().valid(...PLAN_NAMES);
export const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;

export const serviceFileSchema = Joi.object({
    version: Joi.number().valid(1).required(),
    app: Joi.object({
        name: name.required(),
        plan: plan.required(),
        region: Joi.string().valid(...REGIONS).required(),
        instances: Joi.number().integer().min(1).max(20).required(),
        build: Joi.string().max(2000),
        start: Joi.string().max(2000),
        repository: Joi.object({
            provider: Joi.string().valid('github', 'gitlab', 'bitbucket').required(),
            repo: Joi.string().required().when('provider', {
                is: 'gitlab', then: Joi.string().pattern(REPOSITORY_NAME.nested, 'group/name'), otherwise: Joi.string().pattern(REPOSITORY_NAME.twoParts, 'owner/name')
            }),
            branch: Joi.string().max(255).required()
        }),
        autoDeploy: Joi.boolean(),
        env: Joi.array().items(Joi.string().pattern(ENV_NAME, 'environment variable name')).unique().max(500),
        domains: Joi.array().items(Joi.string().hostname().max(253)).unique().max(50)
    }).required(),
    workers: Joi.array().items(Joi.object({
        name: name.required(), command: Joi.string().max(2000).required(), instances: Joi.number().integer().min(1).max(20).required(), plan
    })).unique('name').max(50),
    cronJobs: Joi.array().items(Joi.object({
        name: name.required(), schedule: Joi.string().max(120).required(), command: Joi.string().max(2000).required()
    })).unique('name').max(50),
    databases: Joi.array().items(Joi.object({
        name: name.required(), engine: Joi.string().valid('postgres', 'mysql', 'redis', 'mongodb').required(), plan: plan.required()
    })).unique('name').max(20)
});
