import Joi from 'joi';

import { idPattern, type IdPrefix } from './ids';

// Field schemas shared by route files, so each rule is written once.
export const dnsLabel = /^[a-z](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

export const fields = {
    id: (prefix: IdPrefix) => Joi.string().pattern(idPattern(prefix), `${prefix} id`),
    projectId: () => Joi.string().pattern(idPattern('prj'), 'project id'),
    name: () => Joi.string().pattern(dnsLabel, 'DNS label'),
    email: () => Joi.string().trim().lowercase().email({ tlds: false }).max(254)
};

// Validation messages never echo the offending value (it could be a pasted secret).
export const validationMessages: Joi.LanguageMessages = {
    'string.pattern.base': '{{#label}} fails to match the required pattern',
    'string.pattern.name': '{{#label}} must be a valid {{#name}}',
    'any.invalid': '{{#label}} contains an invalid value',
    'string.email': '{{#label}} must be a valid email address',
    'string.isoDate': '{{#label}} must be a valid ISO 8601 date'
};
