import Joi from 'joi';

// Form fields as the browser sends them (strings, a repeated field as an array). The dashboard checks only their
// shape; what they must be is the API's to say, and its message is shown on the page.
export const text = (max = 1024) => Joi.string().max(max).allow('');

export function formSchema(fields: Record<string, Joi.Schema>): Joi.ObjectSchema {
    return Joi.object({ csrf: Joi.string().max(100).required(), ...fields });
}

export const many = () => Joi.alternatives(Joi.string().max(64), Joi.array().items(Joi.string().max(64)).max(100));

export function asList(value: string | string[] | undefined): string[] {
    return value === undefined ? [] : Array.isArray(value) ? value : [value];
}

/** Where to go after signing in: a path on this site only, never another origin. */
export function localPath(next: string | undefined, fallback = '/dashboard/projects'): string {
    return next && /^\/(?![/\\])[^\s]*$/.test(next) ? next : fallback;
}
