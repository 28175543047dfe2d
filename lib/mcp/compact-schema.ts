// What tools/list shows of an input schema costs tokens in every agent's context, on every turn. The server checks
// each call against the full schema (the zod one, derived from the REST body's Joi), so the listed JSON Schema keeps
// what an agent needs to write a valid call and leaves out what only the check needs:
// - every field keeps its type, its choices (enum), its numeric bounds, its description, and which fields are required;
// - `$schema` goes (clients assume the 2020-12 dialect MCP names);
// - a `pattern` goes where the field's description already says the form in words ("a DNS label ..."): the words
//   are what a model reads, and a call in the wrong form is answered with the rule it broke;
// - `minLength: 1` and lengths of 256 and over go (no agent writes an empty name or a 2,000-character command by
//   accident, and the check answers if one does); `propertyNames` goes likewise;
// - `anyOf: [{type: T}, {type: "null"}]` becomes `type: [T, "null"]`, the same schema in fewer tokens.

type Schema = Record<string, unknown>;

const isObject = (value: unknown): value is Schema => typeof value === 'object' && value !== null && !Array.isArray(value);

const LONG = 256;

export function compactSchema(schema: Schema): Schema {
    const rest = { ...schema };
    delete rest.$schema;
    return compact(rest);
}

function compact(node: Schema): Schema {
    const described = typeof node.description === 'string';
    const out: Schema = {};
    for (const [key, value] of Object.entries(node)) {
        if (key === 'propertyNames' || (key === 'pattern' && described) || (key === 'minLength' && value === 1) || (key === 'maxLength' && typeof value === 'number' && value >= LONG)) {
            continue;
        }

        if (key === 'properties' && isObject(value)) {
            out[key] = Object.fromEntries(Object.entries(value).map(([name, child]) => [name, isObject(child) ? compact(child) : child]));
        }
        else if (Array.isArray(value)) {
            out[key] = value.map((item: unknown) => isObject(item) ? compact(item) : item);
        }
        else {
            out[key] = isObject(value) ? compact(value) : value;
        }
    }

    return nullable(out);
}

/** `anyOf` of one plain type and null, as a type list (the description and other keys stay). */
function nullable(node: Schema): Schema {
    const choices = node.anyOf;
    if (!Array.isArray(choices) || choices.length !== 2) {
        return node;
    }

    const plain = choices.find((choice): choice is Schema => isObject(choice) && typeof choice.type === 'string' && choice.type !== 'null' && !('enum' in choice));
    const none = (choices as unknown[]).find((choice) => isObject(choice) && choice.type === 'null' && Object.keys(choice).length === 1);
    if (!plain || !none) {
        return node;
    }

    const rest = { ...node };
    delete rest.anyOf;
    const { type, ...constraints } = plain;
    return { ...rest, type: [type, 'null'], ...constraints };
}
