// A list row's public JSON written by the database (kept in the row by a trigger, lib/db/stored-json.ts), so a page
// is a few strings joined and not rows turned into objects, mapped and serialized again in JavaScript. A shape names
// each output field and the column (of the row alias `r`) it comes from; the text each database writes is byte for
// byte what JSON.stringify writes for the object the kind's serialize() builds: compact, in the shape's order.
export type JsonField =
    | { name: string; column: string; boolean?: boolean }       // boolean: 0/1 on SQLite, written true/false
    | { name: string; object: readonly JsonField[]; when: string };     // a nested object, null unless `when` holds

/** The SQL expression for one row's JSON text. */
export function jsonRowSql(fields: readonly JsonField[], postgres: boolean): string {
    return postgres ? `${postgresObject(fields)}::text` : sqliteObject(fields);
}

// json() keeps a nested value JSON (not a quoted string) whatever CASE does to its subtype.
function sqliteObject(fields: readonly JsonField[]): string {
    const value = (field: JsonField) => 'object' in field
        ? `json(CASE WHEN ${field.when} THEN ${sqliteObject(field.object)} END)`
        : field.boolean ? `json(CASE WHEN r.${field.column} THEN 'true' ELSE 'false' END)` : `r.${field.column}`;
    return `json_object(${fields.map((field) => `'${field.name}', ${value(field)}`).join(', ')})`;
}

// row_to_json of a one-row record writes compact JSON with the record's column names as keys (json_build_object
// would put spaces around its colons).
function postgresObject(fields: readonly JsonField[]): string {
    const value = (field: JsonField) => 'object' in field
        ? `CASE WHEN ${field.when} THEN ${postgresObject(field.object)} END`
        : field.boolean ? `COALESCE(r.${field.column}, false)` : `r.${field.column}`;
    return `row_to_json((SELECT x FROM (SELECT ${fields.map((field) => `${value(field)} AS "${field.name}"`).join(', ')}) x))`;
}
