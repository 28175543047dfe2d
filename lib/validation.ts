import Joi from 'joi';

import { idPattern, type IdPrefix } from './ids';

// Field schemas shared by route files, so each rule is written once, and the words of every validation message.
export const dnsLabel = /^[a-z](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

// `<name>-pr-<n>` is what review apps and review sites are called: no resource may take such a name.
const reviewName = /-pr-\d+$/;
// What no name a person reads may hold: control characters (Cc, NUL included), format characters (Cf: the bidi
// overrides and isolates U+202A-202E and U+2066-2069, zero-width characters, the BOM), line and paragraph
// separators, and halves of surrogate pairs standing alone (Cs).
const INVISIBLE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}]/u;

/** Days in a month of the proleptic Gregorian calendar (month 1-12). */
function daysIn(year: number, month: number): number {
    const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
    return [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1] ?? 0;
}

/** Whether the calendar date an ISO 8601 text starts with exists: `2030-02-30` does not (a Date would read it as March 2). */
function realCalendarDate(text: string): boolean {
    const date = /^(?:[-+]\d{2})?(\d{4})-?(\d{2})-?(\d{2})(?!\d)/.exec(text);
    if (!date) {
        return true;                                            // no day of a month in it (`2030`, `2030-05`): nothing to check
    }

    const [year, month, day] = [Number(date[1]), Number(date[2]), Number(date[3])];
    return month >= 1 && month <= 12 && day >= 1 && day <= daysIn(year, month);
}

const calendar: Joi.CustomValidator<unknown> = (value, helpers) =>
    typeof helpers.original !== 'string' || realCalendarDate(helpers.original) ? value : helpers.error('date.calendar');

export const fields = {
    id: (prefix: IdPrefix) => Joi.string().pattern(idPattern(prefix), `${prefix} id`),
    projectId: () => Joi.string().pattern(idPattern('prj'), 'project id'),
    name: () => Joi.string().pattern(dnsLabel, 'DNS label'),
    /** The name of an app, site, worker, cron job or database: a DNS label that is not a review app's name. */
    resourceName: () => Joi.string().pattern(dnsLabel, 'DNS label').pattern(reviewName, { name: 'a -pr-<number> ending (reserved for review apps)', invert: true }),
    email: () => Joi.string().trim().lowercase().email({ tlds: false }).max(254),
    /** A name a person gives and reads (a project, a key, an SSH key, a display name): letters of any script,
     * nothing invisible or that reorders what follows it. */
    text: (max: number) => Joi.string().trim().min(1).max(max).pattern(INVISIBLE, { invert: true, name: 'control or invisible formatting characters' }),
    /** An ISO 8601 date-time (or date) that exists on the calendar, as a Date. */
    dateTime: () => Joi.date().iso().custom(calendar),
    /** A `YYYY-MM-DD` day that exists on the calendar, kept as the string. */
    day: () => Joi.string().pattern(/^\d{4}-\d{2}-\d{2}$/, 'YYYY-MM-DD date').custom(calendar),
    projectName: () => fields.text(64).description('The project\'s display name, 1 to 64 characters.')
};

// Validation messages in a user's words, naming the field and never echoing the offending value (it could be a
// pasted secret), nor the validator's own terms. Rules between fields are worded in validationMessage below.
export const validationMessages: Joi.LanguageMessages = {
    'any.custom': '{{#label}} is not valid',
    'any.invalid': '{{#label}} contains an invalid value',
    'any.ref': '{{#label}} is not valid',
    'alternatives.any': '{{#label}} is not in an accepted form',
    'alternatives.match': '{{#label}} is not in an accepted form',
    'alternatives.all': '{{#label}} is not in an accepted form',
    'alternatives.one': '{{#label}} is not in an accepted form',
    'array.includes': '{{#label}} holds an item that is not accepted',
    'array.max': '{{#label}} must hold at most {{#limit}} item{if(#limit == 1, "", "s")}',
    'array.min': '{{#label}} must hold at least {{#limit}} item{if(#limit == 1, "", "s")}',
    'array.unique': '{{#label}} must not hold the same item twice',
    'date.base': '{{#label}} must be a valid ISO 8601 date',
    'date.format': '{{#label}} must be a valid ISO 8601 date',
    'date.calendar': '{{#label}} must be a date that exists on the calendar',
    'object.base': '{{#label}} must be an object',
    'object.min': '{{#label}} must hold at least {{#limit}} field{if(#limit == 1, "", "s")}',
    'object.max': '{{#label}} must hold at most {{#limit}} field{if(#limit == 1, "", "s")}',
    'object.pattern.match': '{{#label}} holds a field that is not accepted',
    'object.assert': '{{#label}} is not valid',
    'string.email': '{{#label}} must be a valid email address',
    'string.isoDate': '{{#label}} must be a valid ISO 8601 date',
    'string.pattern.base': '{{#label}} is not in the accepted format',
    'string.pattern.name': '{{#label}} must be a valid {{#name}}',
    'string.pattern.invert.base': '{{#label}} holds characters that are not accepted',
    'string.pattern.invert.name': '{{#label}} must not contain {{#name}}'
};

/** The preferences every validation here runs with: the messages above, fields named in quotes, lists bare. The
 * messages are given as compiled templates: joi keeps a template as it is where it parses a string again at every
 * prefs() (each route's schemas get these preferences bound when a server starts: the parses were a tenth of it). */
export const validationPreferences: Joi.ValidationOptions = {
    messages: Object.fromEntries(Object.entries(validationMessages).map(([code, text]) => [code, Joi.expression(text as string)])),
    errors: { wrap: { label: '"', array: false } }
};

// Rules between fields name every field involved, each in quotes (joi's templates can quote a list's items only
// with a preference its own describe() refuses).
const quoted = (labels: unknown): string => (labels as string[]).map((label) => `"${label}"`).join(' and ');
const relations: Record<string, (context: Joi.Context) => string> = {
    'object.oxor': (context) => `Send only one of ${quoted(context.peersWithLabels)}`,
    'object.xor': (context) => `Send exactly one of ${quoted(context.peersWithLabels)}`,
    'object.missing': (context) => `Send at least one of ${quoted(context.peersWithLabels)}`,
    'object.and': (context) => `Send ${quoted(context.missingWithLabels)} with ${quoted(context.presentWithLabels)}, or none of them`,
    'object.nand': (context) => `Do not send "${context.mainWithLabel}" with ${quoted(context.peersWithLabels)}`,
    'object.with': (context) => `Send "${context.peerWithLabel}" with "${context.mainWithLabel}"`,
    'object.without': (context) => `Do not send "${context.peerWithLabel}" with "${context.mainWithLabel}"`
};

/** What the whole validated thing is called when a message is about it rather than a field. */
export type Whole = 'The request body' | 'The query string' | 'The path' | 'The headers' | 'The cookies' | 'The service file';

/**
 * The message of a validation failure: a field's own message, or, for the thing as a whole (no field to name), the
 * same in words about it: a PATCH body with no field says it must change one.
 */
export function validationMessage(error: Joi.ValidationError, whole: Whole, options: { change?: boolean } = {}): string {
    const detail = error.details[0];
    if (!detail) {
        return `${whole} is not valid`;
    }

    const relation = relations[detail.type];
    if (relation) {
        return relation(detail.context ?? {});
    }

    if (detail.path.length) {
        return detail.message;
    }

    switch (detail.type) {
        case 'object.base':
        case 'any.required':
            return `${whole} must be an object`;
        case 'object.min':
            return `${whole} must ${options.change ? 'change' : 'hold'} at least one field`;
        default:
            return detail.message.startsWith(`"${detail.context?.label}"`) ? `${whole} is not valid` : detail.message;
    }
}
