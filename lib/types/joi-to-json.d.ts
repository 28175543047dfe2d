declare module 'joi-to-json/lib/parsers/open-api-3.1' {
    /** joi-to-json's OpenAPI 3.1 parser: a JSON Schema (2020-12 dialect) of a described Joi schema. */
    class OpenApiParser {
        constructor(options?: object);
        parse(described: unknown, definitions: object): Record<string, unknown>;
        _setStringFieldProperties(schema: Record<string, unknown>, described: unknown): void;
    }
    export = OpenApiParser;
}
