import type Joi from 'joi';
import * as z from 'zod';

// The MCP tools' input schemas are derived from the Joi schemas the REST routes validate with, so a field's type,
// bounds, choices and words are written once (lib/resources/fields.ts and the route files). This reads a Joi
// schema's description and builds the zod schema the MCP SDK lists and checks. It knows the rules the route schemas
// use; a rule it does not know stops the boot rather than being dropped, except `custom` rules (checks written as
// code), which the derived schema cannot express: the API still applies them and answers 400.

interface Description {
    type: string;
    flags?: { presence?: 'required' | 'optional' | 'forbidden'; description?: string; only?: boolean; default?: unknown };
    rules?: Array<{ name: string; args?: { limit?: number; regex?: string; options?: { invert?: boolean; name?: string } } }>;
    allow?: unknown[];
    keys?: Record<string, Description>;
    patterns?: Array<{ regex?: string; schema?: Description; rule: Description }>;
    items?: Description[];
    preferences?: unknown;
}

const regexOf = (source: string): RegExp => {
    const match = /^\/(.*)\/([a-z]*)$/s.exec(source);
    if (!match) {
        throw new Error(`Cannot read the pattern ${source}`);
    }

    return new RegExp(match[1], match[2]);
};

const limit = (rule: { args?: { limit?: number } }) => rule.args!.limit!;

export function joiToZod(schema: Joi.Schema): z.ZodType {
    return convert(schema.describe() as Description);
}

function convert(description: Description): z.ZodType {
    let type = base(description);
    const allow = description.allow ?? [];
    if (allow.includes(null)) {
        type = type.nullable();
    }

    if (description.flags?.presence !== 'required') {
        type = type.optional();
    }

    return description.flags?.description ? type.describe(description.flags.description) : type;
}

function base(description: Description): z.ZodType {
    const rules = description.rules ?? [];
    const values = (description.allow ?? []).filter((value) => value !== null);
    switch (description.type) {
        case 'string': {
            if (description.flags?.only) {
                return z.enum(values as [string, ...string[]]);
            }

            let type = z.string();
            // Joi refuses an empty string unless it is allowed; zod accepts it unless told otherwise.
            let min = values.includes('') ? 0 : 1;
            for (const rule of rules) {
                switch (rule.name) {
                    case 'min': min = Math.max(min, limit(rule)); break;
                    case 'max': type = type.max(limit(rule)); break;
                    case 'trim': type = type.trim(); break;
                    case 'pattern': {
                        const regex = regexOf(rule.args!.regex!);
                        type = rule.args?.options?.invert
                            ? type.refine((value) => !regex.test(value), { message: rule.args.options.name ? `must not contain ${rule.args.options.name}` : 'holds characters that are not accepted' })
                            : type.regex(regex, rule.args?.options?.name ? `must be a ${rule.args.options.name}` : undefined);
                        break;
                    }

                    case 'custom': break;
                    default: throw new Error(`The MCP schema derivation does not know the string rule ${rule.name}`);
                }
            }

            return min ? type.min(min) : type;
        }

        case 'number': {
            let type = z.number();
            for (const rule of rules) {
                switch (rule.name) {
                    case 'integer': type = type.int(); break;
                    case 'min': type = type.min(limit(rule)); break;
                    case 'max': type = type.max(limit(rule)); break;
                    default: throw new Error(`The MCP schema derivation does not know the number rule ${rule.name}`);
                }
            }

            return type;
        }

        case 'boolean':
            return z.boolean();

        case 'array': {
            let type = z.array(description.items?.[0] ? convert({ ...description.items[0], flags: { ...description.items[0].flags, presence: 'required' } }) : z.unknown());
            for (const rule of rules) {
                switch (rule.name) {
                    case 'min': type = type.min(limit(rule)); break;
                    case 'max': type = type.max(limit(rule)); break;
                    case 'unique': type = type.refine((items) => new Set(items.map((item) => JSON.stringify(item))).size === items.length, { message: 'must not repeat an item' }); break;
                    default: throw new Error(`The MCP schema derivation does not know the array rule ${rule.name}`);
                }
            }

            return type;
        }

        case 'object': {
            let type: z.ZodType;
            if (description.patterns?.length) {
                const [pattern] = description.patterns;
                const value = convert({ ...pattern.rule, flags: { ...pattern.rule.flags, presence: 'required' } });
                const key = pattern.schema ? base(pattern.schema) as z.ZodString : pattern.regex ? z.string().regex(regexOf(pattern.regex)) : z.string();
                type = z.record(key, value);
            }
            else {
                type = z.strictObject(Object.fromEntries(Object.entries(description.keys ?? {}).map(([key, child]) => [key, convert(child)])));
            }

            for (const rule of rules) {
                switch (rule.name) {
                    case 'min': type = type.refine((value) => Object.keys(value as object).length >= limit(rule), { message: `must have at least ${limit(rule)} field(s)` }); break;
                    case 'max': type = type.refine((value) => Object.keys(value as object).length <= limit(rule), { message: `must have at most ${limit(rule)} entries` }); break;
                    default: throw new Error(`The MCP schema derivation does not know the object rule ${rule.name}`);
                }
            }

            return type;
        }

        default:
            throw new Error(`The MCP schema derivation does not know the Joi type ${description.type}`);
    }
}

/** The object schema of a tool: the derived fields of a body, each keyed as in the body. */
export function toolShape(schema: Joi.ObjectSchema): z.ZodRawShape {
    const description = schema.describe() as Description;
    return Object.fromEntries(Object.entries(description.keys ?? {}).map(([key, child]) => [key, convert(child)]));
}
