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

/**
 * A path on this site in the characters a URL holds as they are (RFC 3986's, `%` escapes included): never another
 * origin (`//host`; `\\` is not among them), nor anything a Location header cannot carry (controls, DEL, non-ASCII).
 */
export const LOCAL_PATH = /^\/(?!\/)[A-Za-z0-9\-._~!$&'()*+,;=:@/?%#[\]]*$/;

/** The `next` of the sign-in forms, where to go after signing in: refused (400) unless it is a LOCAL_PATH. */
export const nextField = () => text(512).pattern(LOCAL_PATH, 'path on this site');

/** Where to go after signing in: the validated `next`, else the projects page. */
export function localPath(next: string | undefined): string {
    return next || '/dashboard/projects';
}
