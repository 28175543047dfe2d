// A list row's public JSON written by the database (kept in the row by a trigger, lib/db/stored-json.ts), so a page
// is a few strings joined and not rows turned into objects, mapped and serialized again in JavaScript. A shape names
// each output field and the column (of the row alias `r`) it comes from; the text each database writes is byte for
// byte what JSON.stringify writes for the object the kind's serialize() builds: compact, in the shape's order.
export type JsonField =
    | { name: string; column: string; boolean?: boolean }       // boolean: 0/1 on SQLite, written true/false
    | { name: string; object: readonly JsonField[]; when: string };     // a nested object, null unless `when` holds

/** The SQL expression for one row's JSON text, its columns read from `row` (`r` as the shapes' conditions name it). */
export function jsonRowSql(fields: readonly JsonField[], postgres: boolean, row = 'r'): string {
    const column = (name: string) => `${row}.${name}`;
    const condition = (when: string) => when.replace(/\br\./g, `${row}.`);
    return postgres ? `${postgresObject(fields, column, condition)}::text` : sqliteObject(fields, column, condition);
}

type Naming = (text: string) => string;

// json() keeps a nested value JSON (not a quoted string) whatever CASE does to its subtype.
function sqliteObject(fields: readonly JsonField[], column: Naming, condition: Naming): string {
    const value = (field: JsonField) => 'object' in field
        ? `json(CASE WHEN ${condition(field.when)} THEN ${sqliteObject(field.object, column, condition)} END)`
        : field.boolean ? `json(CASE WHEN ${column(field.column)} THEN 'true' ELSE 'false' END)` : column(field.column);
    return `json_object(${fields.map((field) => `'${field.name}', ${value(field)}`).join(', ')})`;
}

// row_to_json of a one-row record writes compact JSON with the record's column names as keys (json_build_object
// would put spaces around its colons).
function postgresObject(fields: readonly JsonField[], column: Naming, condition: Naming): string {
    const value = (field: JsonField) => 'object' in field
        ? `CASE WHEN ${condition(field.when)} THEN ${postgresObject(field.object, column, condition)} END`
        : field.boolean ? `COALESCE(${column(field.column)}, false)` : column(field.column);
    return `row_to_json((SELECT x FROM (SELECT ${fields.map((field) => `${value(field)} AS "${field.name}"`).join(', ')}) x))`;
}
